// Package llenrich is the ll-enrich command: the offline, deterministic
// enricher between ll-parse and ll-index.
//
// Reads: NDJSON records from ll-parse (chunks or text), or ll-find output
// that carries chunks or text.
// Writes: each record, in input order, with artifact {summary, key_claims,
// claims [{text, chunk_index, confidence}], created_by agent:linkledger,
// method offline} and highlight suggestions appended to annotations (type
// highlight, actor agent:linkledger, confidence, chunk_index); suggestions
// an earlier run left on the record are replaced, other annotations kept.
// Records that carry an error, a not-modified fetch, or no text pass
// through untouched.
// Touches: nothing but stdin and stdout (no network, no database, no model).
package llenrich

import (
	"context"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/enrich"
	"github.com/linkledger/linkledger/lib/record"
)

const prog = "ll-enrich"

const description = `ll-enrich adds to each parsed record an extractive summary, key claims and
highlight suggestions, offline and deterministic (no model, no network):
the same chunks always give the same output.

Every summary sentence, claim and highlight is a sentence of the item's
text, quoted exactly, with the index of the chunk it came from. The summary
is the --summary-sentences sentences closest to the item's TF-IDF centroid,
in reading order. Key claims are sentences that carry something checkable
(numbers, multiword names, comparisons, causal words). Highlights are the
most central sentences. Everything is by actor agent:linkledger; ll-index
stores it, marks the item enriched and replaces that actor's earlier
artifact and unpinned suggestions (never a human's or pinned ones).
See docs/enrich.md for the scores and confidences.

Records with an error, a not-modified fetch or no text pass through as they
came.

EXAMPLES:
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-enrich | ll-index
   ll-fetch page.html | ll-parse | ll-enrich --jq .artifact.summary -r
   ll-fetch page.html | ll-parse | ll-enrich --max-claims 3 --jq '.artifact.claims[]'`

// Command returns the ll-enrich command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        prog,
		Usage:       "add an extractive summary, key claims and highlight suggestions to parsed records",
		UsageText:   "ll-enrich [options] < parsed.ndjson",
		Description: description,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "max-claims", Value: enrich.DefaultMaxClaims, Usage: "at most `N` key claims per item (0..20)"},
			&ucli.IntFlag{Name: "max-highlights", Value: enrich.DefaultMaxHighlights, Usage: "at most `N` highlight suggestions per item (0..20; ll-index keeps at most its agent highlight cap)"},
			&ucli.IntFlag{Name: "summary-sentences", Value: enrich.DefaultSummarySentences, Usage: "`N` sentences in the summary (1..20)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-enrich as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	if c.NArg() > 0 {
		return cli.Usage("ll-enrich takes no arguments: it reads parsed records on stdin")
	}
	opts := enrich.Options{
		MaxClaims:        int(c.Int("max-claims")),
		MaxHighlights:    int(c.Int("max-highlights")),
		SummarySentences: int(c.Int("summary-sentences")),
	}
	for _, f := range []struct {
		name   string
		v, min int
	}{{"max-claims", opts.MaxClaims, 0}, {"max-highlights", opts.MaxHighlights, 0}, {"summary-sentences", opts.SummarySentences, 1}} {
		if f.v < f.min || f.v > enrich.MaxCount {
			return cli.Usage("--%s %d: want %d..%d", f.name, f.v, f.min, enrich.MaxCount)
		}
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	progress := out.Progress(c.Root().Name)
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Progress: progress}
	defer progress.Done()
	err = cli.EachRecord(ctx, env.Stdin, out, diag, record.StageEnrich, func(rec *record.Record, _ int) error {
		switch {
		case rec.Error != nil, rec.Fetch != nil && rec.Fetch.NotModified:
		case !enrich.Enrich(rec, opts):
			diag.Debugf("%s: no sentences to enrich: passed through", rec.Ref())
		}
		progress.Tick(rec.Error != nil)
		return out.Emit(rec)
	})
	if err != nil {
		return err
	}
	return out.Finish()
}
