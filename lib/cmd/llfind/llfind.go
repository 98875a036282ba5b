// Package llfind is the ll-find command: it searches the store.
//
// Reads: the query from its arguments (any text; "--" ends the options), or
// with --queries FILE one query per line. Writes: one record per item, best
// first: id, url, canonical_url, title, source_type, tags, metadata and hit
// (rank, score, why_ranked, highlights, lowlights, notes, snippets); with
// --with-chunks also the item's stored chunks and a "stored" mark. Queue
// views (--pending, --failed, --stale) and --id write item records with an
// "ingest" object instead. Touches: reads the store; sets revalidate_due on
// returned items past --stale-after (a short write, skipped when the
// database is busy).
package llfind

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

const description = `ll-find searches saved links and prints the best items first, each with its
highlights, lowlights, notes, a couple of snippets and why it ranked there.

Any text is a query: words are OR-ed (an item need not contain every word),
stemmed and accent-folded; AND, OR, *, parentheses and emoji are plain text.
CJK text is matched by substring. The query language narrows it (the same
in ll-brief, linkledger find/brief and MCP): "exact phrase", -word,
tag:T, site:HOST, type:TYPE, after:2w, before:2026-01-01, is:pinned,
is:archived, is:failed, has:highlights, has:notes, by:ACTOR; an unknown
qualifier is plain words and no query is a syntax error. Put "--" before a
query that starts with "-".

Weak matches are cut: items scoring below --cut (0.3) of the best item's
score are left out; --all-matches lists every match. Pages are stable:
--limit 10 is the first 10 of --limit 100, and --offset pages never
repeat or skip an item.

Ranking: ranking_score = bm25 + --pinned-boost when the item has a pinned
highlight - --low-confidence-penalty × the share of low-confidence agent
annotations when annotation text matched. bm25 weighs the title, body and
annotation fields by --w-title, --w-body, --w-annotations; an item scores
its best chunk plus --w-doc × its whole text. hit.why_ranked shows each
term of the sum, the matched fields and the matched terms. Terms too common
to rank within --scan-rows rows are scored on the candidates only, or left
out (-v lists them). See docs/retrieval.md.

Semantic and hybrid ranking: with an embeddings endpoint configured
(LINKLEDGER_EMBED_URL, LINKLEDGER_EMBED_MODEL, or the ledger's own:
linkledger config embed) and the ledger holding its model's vectors
(ll-embed, linkledger embed), the default --mode is hybrid: the lexical
ranking fused with a ranking by meaning (reciprocal rank fusion,
--semantic-weight; why_ranked.fusion). --mode lexical or semantic
chooses one side; --related ranks the same way, the item's own vectors
standing for the query. An endpoint that fails gives the lexical ranking
and a warning, never an error. The query is sent after the model's query
prefix (LINKLEDGER_EMBED_QUERY_PREFIX, the stored one, else the model's
own: "search_query: " for nomic-embed-text); only vectors made with the
document prefix in force are searched. See docs/retrieval.md.

Decay: agent annotations below a confidence, older than a period, never
confirmed by a person and on items never cited stop counting (highlights,
adjustments), under the ledger's policy: 'linkledger config decay'
(default on: below 0.5, after 90d). --decay-below, --decay-after and
--no-decay change it for one search; nothing is written.

Copies of one text (items with the same content under different URLs) are
one hit: the copy with the most human evidence (pins, human annotations,
then the earliest saved) stands for the group, its record lists the others
in "copies", and their annotations count for it. --all-copies shows every
copy.

Archived items (linkledger archive) are left out of searches, listings and
--related unless --archived (include them) or --only-archived is given;
the queue views and --id show them.

ll-find only reads: a missing database is an error (exit 1), never created.
The one exception is --pending --claim, which the worker runs: it claims
the items it lists, a few at a time as the next stage reads them, for a
lease of 10 minutes; another ll-find --pending --claim skips them until
ll-index stores their result or the lease ends, so two ingest loops on
one ledger never fetch a page twice (docs/store.md "Claims").

With no query, lists items newest first (filters apply). Other modes:
  --related ID        items related to ID by content and shared tags
  --pending           items waiting for ingest (saved, or failed and due
                      for a retry with fewer than --max-attempts attempts)
  --failed            items whose ingest failed
  --stale             items fetched longer ago than --older-than; the records
                      carry fetch.etag/last_modified for a conditional GET
                      (--pending and --stale skip items whose text came in
                      the record: they have nothing to fetch)
  --id ID             one item's full status
  --queries FILE      one query per line (plain text, or JSON with "_id"/"id"
                      and "text"/"query"); records carry "query_id"

--with-chunks adds to every record the item's stored chunks ("chunks", the
first ones up to --max-chunk-bytes of text) and "stored" (checksum, chunks,
chunks_omitted), so ll-enrich can enrich items already stored and ll-index
stores only the enrichment, never the content: see docs/enrich.md.

EXAMPLES:
   ll-find sqlite full text search
   ll-find --tags ai,memory --since 30d "agent memory"
   ll-find '"full text" -vector site:sqlite.org after:2w'
   ll-find 'is:pinned by:human'
   ll-find -e -- "-v flag" || echo nothing
   ll-find --related ll_0123456789abcdef --limit 5
   ll-find --pending | ll-fetch | ll-parse | ll-index
   ll-find --stale --older-than 90d | ll-fetch | ll-parse | ll-index
   ll-find --status parsed --with-chunks --limit 100 | ll-enrich | ll-index
   ll-find --jq '.canonical_url' kubernetes`

// Command returns the ll-find command.
func Command(env cli.Env) *ucli.Command {
	flags := []ucli.Flag{cli.DBFlag()}
	flags = append(flags, findflags.SearchFlags(true)...)
	flags = append(flags,
		&ucli.BoolFlag{Name: "exit-status", Aliases: []string{"e"}, Usage: "exit 4 when nothing matched"},
		&ucli.StringFlag{Name: "related", Usage: "items related to item `ID` (or canonical URL); neighbours below --cut of the best one are left out (--all-matches keeps them)"},
		&ucli.BoolFlag{Name: "pending", Usage: "queue view: items waiting for ingest"},
		&ucli.BoolFlag{Name: "failed", Usage: "queue view: items whose ingest failed"},
		&ucli.BoolFlag{Name: "stale", Usage: "queue view: items fetched longer ago than --older-than"},
		&ucli.StringFlag{Name: "older-than", Value: "30d", Usage: "--stale threshold `DURATION` (30d, 12h, 0s)"},
		&ucli.BoolFlag{Name: "claim", Usage: "with --pending: claim the listed items for this ingest loop, skipping items another loop claimed"},
		&ucli.IntFlag{Name: "max-attempts", Value: spec.DefaultMaxAttempts, Usage: "--pending: retry failed items with fewer attempts than `N`"},
		&ucli.StringFlag{Name: "id", Usage: "one item's full status by `ID` (or canonical URL)"},
		&ucli.StringFlag{Name: "queries", Usage: "run every query of `FILE` (one per line; - for stdin)"},
		&ucli.BoolFlag{Name: "with-chunks", Usage: "add each item's stored chunks (\"chunks\") and a \"stored\" mark, for ll-enrich | ll-index (docs/enrich.md)"},
		&ucli.IntFlag{Name: "max-chunk-bytes", Value: spec.DefaultStoredChunkBytes, Usage: "with --with-chunks: at most `BYTES` of chunk text per record (whole chunks, the first ones)"},
	)
	cmd := &ucli.Command{
		Name:        "ll-find",
		Usage:       "search saved links; best items first, highlights first",
		UsageText:   "ll-find [options] [--] [QUERY ...]",
		Description: description,
		Flags:       flags,
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-find as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

// run is ll-find's action, in steps: the flags checked (checkFlags), the
// store opened and the decay policy resolved, one mode run (the queue, an
// id, related items, a queries file, or a search), then the hints and
// the exit status (finish).
func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	fv := cli.Flags(c)
	r := &findRun{c: c, env: env, fv: fv, diag: cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: fv.Bool("verbose")}}
	r.text = strings.TrimSpace(strings.Join(c.Args().Slice(), " "))
	if err := checkModes(fv, r.text); err != nil {
		return err
	}
	var err error
	if r.out, err = cli.OutputOn(c, env); err != nil {
		return err
	}
	if r.fo, err = findflags.FindOptions(c, time.Now(), 10); err != nil {
		return err
	}
	if r.olderThan, err = ledger.ParseDuration(fv.String("older-than")); err != nil {
		return cli.Usage("--older-than: %v", err)
	}
	if err := checkFlags(c, fv, r.fo.SearchOptions()); err != nil {
		return err
	}
	if r.st, err = openStore(ctx, c, env, fv.Bool("claim")); err != nil {
		return err
	}
	defer r.st.Close()
	// the ledger's decay policy, unless the flags chose (--related and
	// --queries call the store directly)
	if r.fo, err = r.st.ResolveDecay(ctx, r.fo); err != nil {
		return err
	}
	r.opts = r.fo.SearchOptions()
	r.attach = attachChunks(ctx, fv, r.st)
	switch {
	case fv.Bool("pending") || fv.Bool("failed") || fv.Bool("stale"):
		err = r.queue(ctx)
	case fv.String("id") != "":
		err = r.byID(ctx)
	case fv.String("related") != "":
		err = r.related(ctx)
	case fv.String("queries") != "":
		findflags.Embedder(ctx, env, r.st, &r.fo, r.diag)
		var n int
		n, err = runQueries(ctx, fv.String("queries"), r.st, r.fo, r.out, env, r.diag, r.attach)
		r.emitted += n
	default:
		err = r.search(ctx)
	}
	if err != nil {
		return err
	}
	return r.finish(ctx)
}

// findRun is the state of one ll-find run.
type findRun struct {
	c         *ucli.Command
	env       cli.Env
	fv        *cli.FlagValues
	diag      cli.Diag
	text      string // the query
	out       *cli.Output
	fo        ledger.FindOptions
	opts      spec.SearchOptions
	olderThan time.Duration
	st        *ledger.Ledger
	// attach puts the item's stored chunks on a record (--with-chunks)
	attach  func(*record.Record) error
	emitted int
	next    []*record.Record // a search's hits, for the next step (SayNext)
	// archived items a search that left them out finds (ledger.FindResult.ArchivedMatches)
	archived int
}

// checkModes: at most one of a query, --related, --pending, --failed,
// --stale, --id and --queries.
func checkModes(fv *cli.FlagValues, text string) error {
	modes := 0
	for _, m := range []bool{text != "", fv.String("related") != "", fv.Bool("pending"), fv.Bool("failed"), fv.Bool("stale"), fv.String("id") != "", fv.String("queries") != ""} {
		if m {
			modes++
		}
	}
	if modes > 1 {
		return cli.Usage("give one of: a query, --related, --pending, --failed, --stale, --id, --queries")
	}
	return nil
}

// checkFlags refuses the flags that do not go together (exit 2).
func checkFlags(c *ucli.Command, fv *cli.FlagValues, opts spec.SearchOptions) error {
	if fv.Int("max-attempts") < 1 {
		return cli.Usage("--max-attempts %d: want 1 or more", fv.Int("max-attempts"))
	}
	if fv.Bool("with-chunks") && (fv.Bool("pending") || fv.Bool("stale")) {
		// their records feed ll-fetch, whose fresh content replaces chunks
		return cli.Usage("--with-chunks and --%s: the queue's records go to ll-fetch for new content; give one", map[bool]string{true: "pending", false: "stale"}[fv.Bool("pending")])
	}
	if c.IsSet("max-chunk-bytes") && !fv.Bool("with-chunks") {
		return cli.Usage("--max-chunk-bytes needs --with-chunks")
	}
	if fv.Int("max-chunk-bytes") < 1 {
		return cli.Usage("--max-chunk-bytes %d: want 1 or more", fv.Int("max-chunk-bytes"))
	}
	if fv.Bool("claim") && !fv.Bool("pending") {
		return cli.Usage("--claim: only with --pending")
	}
	if fv.Bool("claim") && opts.Offset > 0 {
		return cli.Usage("--claim and --offset: a claiming loop takes the oldest unclaimed items; give one")
	}
	return nil
}

// attachChunks returns what puts an item's stored chunks on its record:
// nothing without --with-chunks.
func attachChunks(ctx context.Context, fv *cli.FlagValues, st *ledger.Ledger) func(*record.Record) error {
	if !fv.Bool("with-chunks") {
		return func(*record.Record) error { return nil }
	}
	maxBytes := int(fv.Int("max-chunk-bytes"))
	return func(r *record.Record) error {
		if r.Error != nil || r.ID == "" {
			return nil
		}
		return st.AttachStoredChunks(ctx, r, maxBytes)
	}
}

// emit writes recs, each with its chunks when asked, and counts them.
func (r *findRun) emit(recs []*record.Record) error {
	for _, rec := range recs {
		if err := r.attach(rec); err != nil {
			return err
		}
		if err := r.out.Emit(rec); err != nil {
			return err
		}
		r.emitted++
	}
	return nil
}

// queue lists the pending, failed or stale items (--claim: claims the
// pending ones as it goes).
func (r *findRun) queue(ctx context.Context) error {
	fv := r.fv
	q := spec.QueueOptions{Filter: r.opts.Filter, Offset: r.opts.Offset, MaxAttempts: fv.Int("max-attempts"), OlderThan: r.olderThan}
	if q.Filter.Archived == spec.NotArchived {
		// archived items are still ingested and revalidated
		q.Filter.Archived = spec.AnyArchived
	}
	if fv.IsSet("limit") {
		q.Limit = r.opts.Limit
	}
	switch {
	case fv.Bool("pending"):
		q.Queue = ledger.QueuePending
	case fv.Bool("failed"):
		q.Queue = ledger.QueueFailed
	default:
		q.Queue = spec.QueueStale
	}
	if fv.Bool("claim") {
		return claimPending(ctx, r.st, q, r.emit)
	}
	recs, err := r.st.QueueItems(ctx, q)
	if err != nil {
		return err
	}
	return r.emit(recs)
}

// byID writes one item's status (--id), or a not_found record.
func (r *findRun) byID(ctx context.Context) error {
	id := r.fv.String("id")
	rec, err := r.st.ItemStatus(ctx, id)
	if errors.Is(err, spec.ErrNotFound) {
		r.diag.Printf("%s: no such item", id)
		rec = &record.Record{ID: id, Error: &record.Error{Stage: record.StageFind, Code: record.CodeNotFound, Message: "no item with id " + id}}
	} else if err != nil {
		return err
	}
	if err := r.emit([]*record.Record{rec}); err != nil {
		return err
	}
	if rec.Error != nil {
		r.emitted = 0
	}
	return nil
}

// related writes the items related to --related's.
func (r *findRun) related(ctx context.Context) error {
	findflags.Embedder(ctx, r.env, r.st, &r.fo, r.diag)
	sem, _, warnings := r.st.RelatedSide(ctx, r.fo)
	findflags.Warn(r.diag, warnings)
	ro := r.opts
	ro.Semantic = sem
	// the argument read as linkledger related reads it: an id, or a URL
	// canonicalized (case, tracking parameters) to its item
	arg := r.fv.String("related")
	cwd, _ := r.env.Getwd()
	id, err := r.st.ResolveItem(ctx, arg, ledger.ResolveOptions{Rules: canon.DefaultRules(), Cwd: cwd, Home: r.env.Getenv("HOME")})
	var nie *ledger.NoItemError
	if errors.As(err, &nie) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("--related %s: no such item", arg)}
	}
	if err != nil {
		return err
	}
	res, err := r.st.RelatedHits(ctx, id, ro)
	if errors.Is(err, spec.ErrNotFound) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("--related %s: no such item", arg)}
	}
	if err != nil {
		return err
	}
	findflags.MarkStale(ctx, r.st, res.StaleIDs, r.diag)
	if err := r.emit(res.Hits); err != nil {
		return err
	}
	r.next = res.Hits
	return nil
}

// search writes the hits of the query.
func (r *findRun) search(ctx context.Context) error {
	r.fo.Query = r.text
	findflags.Embedder(ctx, r.env, r.st, &r.fo, r.diag)
	res, err := r.st.Find(ctx, r.fo)
	if err != nil {
		return err
	}
	findflags.Warn(r.diag, res.Warnings)
	if res.Mode != spec.ModeLexical || len(res.Warnings) > 0 {
		// (a lexical search without warnings: the envelope as always)
		r.out.Meta("mode", res.Mode)
		r.out.Meta("warnings", res.Warnings)
	}
	if len(res.Dropped) > 0 {
		r.diag.Debugf("left out of the query: %s", strings.Join(res.Dropped, " "))
	}
	if res.MarkErr != nil {
		r.diag.Debugf("revalidation mark skipped: %v", res.MarkErr)
	}
	if err := r.emit(res.Hits); err != nil {
		return err
	}
	r.next = res.Hits
	r.archived = res.ArchivedMatches
	return nil
}

// finish says what to do when nothing matched or what to do next (at a
// terminal), closes the output, and turns "nothing" into --exit-status's
// code.
func (r *findRun) finish(ctx context.Context) error {
	if r.emitted == 0 && r.out.IsHuman() {
		sayNothing(ctx, r.c, r.st, r.diag, r.text, r.archived)
	}
	if len(r.next) > 0 && r.out.Hints() {
		findflags.SayNext(ctx, r.st, r.diag, r.text, len(r.next), ledger.BestHit(r.next[0]))
	}
	if err := r.out.Finish(); err != nil {
		return err
	}
	if r.emitted == 0 && r.fv.Bool("exit-status") {
		return cli.NoMatch
	}
	return nil
}

// runQueries runs one search per line of the file and tags each hit with
// its query_id. It returns the number of hits written.
func runQueries(ctx context.Context, path string, st *ledger.Ledger, fo ledger.FindOptions, out *cli.Output, env cli.Env, diag cli.Diag, attach func(*record.Record) error) (int, error) {
	opts := fo.SearchOptions()
	warned := map[string]bool{}
	warn := func(ws []string) { // each warning once per run
		for _, w := range ws {
			if !warned[w] {
				warned[w] = true
				findflags.Warn(diag, []string{w})
			}
		}
	}
	var r io.Reader = cli.Stdin(ctx, env, diag)
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return 0, cli.Usage("--queries: %v", err)
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	n, line := 0, 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		raw, rerr := br.ReadString('\n')
		if raw == "" && rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return n, nil
			}
			return n, rerr
		}
		line++
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		id, text := strconv.Itoa(line), raw
		if strings.HasPrefix(raw, "{") {
			var q struct {
				ID    json.RawMessage `json:"id"`
				UID   json.RawMessage `json:"_id"`
				Text  string          `json:"text"`
				Query string          `json:"query"`
			}
			if err := json.Unmarshal([]byte(raw), &q); err != nil {
				diag.Printf("--queries: line %d: %v", line, err)
				continue
			}
			for _, v := range []json.RawMessage{q.UID, q.ID} {
				if len(v) > 0 {
					var s string
					if json.Unmarshal(v, &s) != nil {
						s = string(v)
					}
					id = s
					break
				}
			}
			text = q.Text
			if text == "" {
				text = q.Query
			}
		}
		o := opts
		o.Text = text
		if text != "" {
			qo := fo
			qo.Query = text
			var warnings []string
			o.Semantic, _, warnings = st.SemanticSide(ctx, qo)
			warn(warnings)
		}
		res, err := st.Search(ctx, o)
		if err != nil {
			return n, err
		}
		if res.SemanticErr != nil {
			warn([]string{ledger.EmbedFailed(res.SemanticErr)})
		}
		qid, _ := json.Marshal(id)
		for _, h := range res.Hits {
			if h.Extra == nil {
				h.Extra = map[string]json.RawMessage{}
			}
			h.Extra["query_id"] = qid
			if err := attach(h); err != nil {
				return n, err
			}
			if err := out.Emit(h); err != nil {
				return n, err
			}
			n++
		}
	}
}

// sayNothing tells a person at a terminal, on stderr, that a view is empty.
func sayNothing(ctx context.Context, c *ucli.Command, st *ledger.Ledger, diag cli.Diag, text string, archived int) {
	fv := cli.Flags(c)
	switch {
	case fv.Bool("pending"):
		diag.Printf("nothing pending: every saved item is ingested")
	case fv.Bool("failed"):
		diag.Printf("nothing failed")
	case fv.Bool("stale"):
		diag.Printf("nothing fetched longer ago than %s", fv.String("older-than"))
	case fv.String("id") != "":
		// already said: no such item
	case fv.String("related") != "":
		diag.Printf("nothing related to %s", fv.String("related"))
	case fv.String("queries") != "":
		diag.Printf("no matches for any query of %s", fv.String("queries"))
	case fv.Int("offset") > 0:
		diag.Printf("no more results past --offset %d", fv.Int("offset"))
		diag.Hintf("the earlier pages hold the matches: try a smaller --offset, or none")
	default:
		findflags.SayNoMatch(ctx, st, diag, text, findflags.SetFilters(c), archived)
	}
}

// claimBatch is how many pending items --claim takes at a time: a batch
// is claimed when the next stage has read the one before, so a claim
// starts near its item's fetch and a long queue is not held for one lease
// by a loop that reaches its last items much later.
const claimBatch = 8

// claimPending is --pending --claim: batches of unclaimed pending items,
// each claimed (ledger.ClaimPending) then written, until the queue has
// none left or q.Limit items (0: no limit) were written.
func claimPending(ctx context.Context, st *ledger.Ledger, q spec.QueueOptions, emit func([]*record.Record) error) error {
	left := q.Limit
	for {
		b := q
		b.Limit = claimBatch
		if left > 0 {
			b.Limit = min(b.Limit, left)
		}
		recs, err := st.ClaimPending(ctx, b, 0)
		if err != nil {
			return err
		}
		if err := emit(recs); err != nil {
			return err
		}
		if len(recs) < b.Limit {
			return nil
		}
		if left > 0 {
			if left -= len(recs); left == 0 {
				return nil
			}
		}
	}
}

// openStore opens the ledger for ll-find; a claiming one waits longer
// for the write lock (ll-index of another loop may hold it a moment).
func openStore(ctx context.Context, c *ucli.Command, env cli.Env, claim bool) (*ledger.Ledger, error) {
	if !claim {
		return findflags.OpenStore(ctx, c, env)
	}
	loc, err := cli.LocateDB(cli.Flags(c).String("db"), env)
	if err != nil {
		return nil, err
	}
	return cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: 5 * time.Second, PagePool: findflags.PagePoolSlots, ReadPolicies: true})
}
