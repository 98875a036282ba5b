// Package llbrief is the ll-brief command: it turns search results into an
// evidence pack under a token budget.
//
// Reads: ll-find records on stdin, or with --query (or arguments) runs the
// search itself. Writes: one pack, as one JSON document ({query, items,
// tokens, max_tokens, dropped}) into a pipe or file (or with --format json),
// or as Markdown at a terminal (or with --format md; docs/output.md).
// Touches: reads the store when it searches; sets revalidate_due on stale
// items it returns (a short write, skipped when the database is busy).
package llbrief

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

const description = `ll-brief builds an evidence pack for a topic or task: the best saved items
with their URL, source, highlights and lowlights (with actor and confidence),
notes, why they ranked, summary and key claims when an enrichment exists, and
the passages that answer: whole sentences of the item's text, each with its
locator (chunk_index, and start/end: byte offsets in that chunk's text), so
they can be quoted and annotated as they are (snippets for a record without
its text), cut to --max-tokens counted with the cl100k_base tokenizer.

Ranking is ll-find's, --mode (lexical, semantic, hybrid) and
--semantic-weight included: by meaning too when an embeddings endpoint is
configured (docs/retrieval.md).

Over the budget, evidence is dropped lowest value first: planned passage
sentences (least value first), snippets of the lowest-ranked items, then lowlights, then low-confidence agent highlights
(below --low-confidence-below), then whole items from the bottom. The pack
lists what was dropped. The budget the full items leave holds further
candidates (up to --max-pointers, default 24) as one-line pointers: rank,
URL, title, and with --pointer-words N their best sentence ("pointers";
"More candidates" in Markdown), so a pack names more sources than it can
quote. tokens counts the pack exactly as written (without
--jq or --json).

Into a pipe or file the pack is one JSON document; at a terminal it is
Markdown ready to paste into a prompt. --format json or --format md (also
human) forces either.

Input: ll-find records on stdin, or a query (--query or arguments) that
ll-brief searches itself with ll-find's ranking and filter flags.

Copies of one text (the same page saved under several URLs) take one place
in the pack: a search makes them one item (with every copy's highlights and
notes), and a record on stdin that is a copy of one already taken (it is
named in the other's "copies", shares its duplicate_of or checksum, or is
the same item) is skipped. --all-copies keeps every copy, as ll-find
--all-copies does.

EXAMPLES:
   ll-brief --query "agent memory design" --max-tokens 1500
   ll-brief --format md sqlite full text search
   ll-find --tags ai "retrieval" | ll-brief --max-items 5
   ll-brief --query "vector databases" --jq '.items[].url'`

// Command returns the ll-brief command.
func Command(env cli.Env) *ucli.Command {
	flags := []ucli.Flag{
		cli.DBFlag(),
		&ucli.StringFlag{Name: "query", Usage: "search for `TEXT` instead of reading ll-find records"},
		&ucli.IntFlag{Name: "max-tokens", Value: brief.DefaultMaxTokens, Usage: "token budget of the pack (cl100k_base)"},
		&ucli.IntFlag{Name: "max-items", Value: brief.DefaultMaxItems, Usage: fmt.Sprintf("at most `N` candidate items (1..%d)", brief.MaxItems)},
		&ucli.IntFlag{Name: "max-pointers", Value: brief.DefaultMaxPointers, Usage: fmt.Sprintf("at most `N` further candidates as one-line pointers in the budget left (0..%d; 0: none)", brief.MaxPointers)},
		&ucli.IntFlag{Name: "pointer-words", Usage: fmt.Sprintf("give each pointer its best sentence, at most `N` words (0..%d; 0: none)", brief.MaxPointerWords)},
		&ucli.BoolFlag{Name: "exit-status", Aliases: []string{"e"}, Usage: "exit 4 when the pack has no items"},
	}
	flags = append(flags, findflags.SearchFlags(false)...)
	cmd := &ucli.Command{
		Name:        "ll-brief",
		Usage:       "build an evidence pack under a token budget",
		UsageText:   "ll-brief [options] [--query TEXT | TEXT ...] [< ll-find records]",
		Description: description,
		Flags:       flags,
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-brief as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose")}
	q := strings.TrimSpace(c.String("query"))
	if args := strings.TrimSpace(strings.Join(c.Args().Slice(), " ")); args != "" {
		if q != "" {
			return cli.Usage("give the query either with --query or as arguments, not both")
		}
		q = args
	}
	if q == "" && (c.Args().Len() > 0 || c.IsSet("query")) {
		// an empty query typed is a mistake, not a wish to read records
		return cli.Usage("the query is empty: give the words to brief on (%s \"how agents keep sources\"), or no query at all to read records from stdin", c.Root().Name)
	}
	maxItems, maxPointers := c.Int("max-items"), c.Int("max-pointers")
	if err := ledger.CheckBriefLimits(ledger.BriefLimits{MaxTokens: c.Int("max-tokens"), MaxItems: maxItems,
		MaxPointers: maxPointers, PointerWords: c.Int("pointer-words")}); err != nil {
		return findflags.RequestError(err)
	}
	// The output decides once: Markdown for a person, the JSON pack for a
	// pipe (--format forces either).
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	format := brief.FormatJSON
	if out.IsHuman() {
		format = brief.FormatMD
	}
	if c.IsSet("expand-chunks") {
		// a brief gives what fits --max-tokens; whole chunks would be
		// cut again by the budget, so the flag is refused, not ignored
		return cli.UsageHint("read an item's whole text with: linkledger show ID --text, or the matching chunks with: ll-find --expand-chunks",
			"--expand-chunks: a brief holds the evidence that fits --max-tokens, not whole chunks")
	}
	fo, err := findflags.FindOptions(c, time.Now(), maxItems+maxPointers)
	if err != nil {
		return err
	}
	low := c.Float("low-confidence-below")

	// recs are the candidates, best first; the pack takes one record per
	// group of copies (ledger.Pack)
	var recs []*record.Record
	var st *ledger.Ledger
	skipped := func(rec *record.Record) {
		diag.Debugf("%s: skipping a copy of an item already in the pack", rec.Ref())
	}
	malformed := 0 // stdin lines that were not records: exit 3 at the end
	if q != "" {
		st, err = findflags.OpenStore(ctx, c, env)
		if err != nil {
			return err
		}
		defer st.Close()
		fo.Query = q
		fo.Detailed = ledger.BriefOptions{MaxItems: maxItems, PointerWords: c.Int("pointer-words")}.Detailed()
		findflags.Embedder(ctx, env, st, &fo, diag)
		res, err := st.Find(ctx, fo)
		if err != nil {
			return err
		}
		findflags.Warn(diag, res.Warnings)
		if res.MarkErr != nil {
			diag.Debugf("revalidation mark skipped: %v", res.MarkErr)
		}
		recs = res.Hits
	} else {
		// read only as many records as the pack can take: copies of one
		// already taken do not count
		var copies brief.Copies
		rd := ndjson.NewReader(cli.Stdin(ctx, env, diag))
		for len(recs) < maxItems+maxPointers {
			rec, _, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *ndjson.LineError
			if errors.As(err, &le) {
				diag.Printf("line %d: %v", le.Line, le.Err)
				malformed++
				continue
			}
			if err != nil {
				return fmt.Errorf("read stdin: %w", err)
			}
			if rec.Error != nil {
				diag.Printf("%s: skipping a record with an error: %s", rec.Ref(), rec.Error.Message)
				continue
			}
			if rec.ID == "" && rec.CanonicalURL == "" && rec.URL == "" {
				continue
			}
			if !fo.AllCopies && copies.Seen(rec) {
				skipped(rec)
				continue
			}
			recs = append(recs, rec)
		}
	}
	fo.Query = q
	pointers := maxPointers
	if pointers == 0 {
		pointers = -1 // --max-pointers 0: none
	}
	pack, text, err := st.PackFrom(ctx, recs, fo, ledger.BriefOptions{MaxItems: maxItems, MaxPointers: pointers, PointerWords: c.Int("pointer-words"), MaxTokens: c.Int("max-tokens"), Format: format, LowConfidence: low, Skipped: skipped})
	if errors.Is(err, brief.ErrBudget) {
		return cli.Usage("%v", err)
	}
	if err != nil {
		return err
	}
	for _, d := range pack.Dropped {
		diag.Debugf("dropped %d %s to fit %d tokens", d.Count, d.What, pack.MaxTokens)
	}
	if len(pack.Items) == 0 && out.IsHuman() && q != "" {
		findflags.SayNoMatch(ctx, st, diag, q, findflags.SetFilters(c), 0)
	}
	if len(pack.Items) > 0 && q != "" && out.Hints() {
		defer findflags.SayNext(ctx, st, diag, q, len(pack.Items), ledger.BestPacked(pack.Items[0]))
	}
	if format == brief.FormatMD {
		// text ends with a newline; one more, as ll-brief always wrote
		if err := out.Text(text + "\n"); err != nil && !ndjson.IsClosedPipe(err) {
			return err
		}
	} else {
		if err := out.EmitValue(rawJSON(text)); err != nil {
			if ndjson.IsClosedPipe(err) {
				return nil
			}
			return err
		}
		if err := out.Finish(); err != nil {
			return err
		}
	}
	if malformed > 0 {
		// The pack is written, but without what those lines held.
		return cli.Partial
	}
	if len(pack.Items) == 0 && c.Bool("exit-status") {
		return cli.NoMatch
	}
	return nil
}

// rawJSON writes the pack exactly as counted.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }
