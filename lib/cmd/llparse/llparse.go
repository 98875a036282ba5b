// Package llparse is the ll-parse command: it extracts text and metadata
// from fetched records.
//
// Reads: NDJSON records from ll-fetch (fetch info and body or body_base64),
// records that already carry text (imports), and error records.
// Writes: each record, in input order, with title, author, published_at,
// site_name, lang, excerpt, description, duration_s, text (normalised),
// checksum, chunks and parse {adapter, source, fallback_from, warnings,
// no_text_reason}; the body is dropped unless --keep-body. Records that
// carry an error, or whose fetch was not_modified, pass through untouched.
// A record that cannot be parsed gets an error (stage parse) and the stream
// goes on.
// Touches: nothing but stdin and stdout (no network, no database).
package llparse

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/parse/mainext"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/source"
)

const prog = "ll-parse"

const description = `ll-parse extracts the readable text and metadata of fetched records and
splits the text into chunks for indexing.

Each record goes to the first adapter of the chain that accepts it
(source-specific adapters such as YouTube, X and PDF first, then HTML
article, Markdown, plain text, and the visible text of an HTML page as the
last resort). When an adapter fails the next matching one is tried and the
failed ones are listed in parse.fallback_from. Text is normalised (NFC, no
soft hyphens or zero-width characters, collapsed spaces, one blank line
between paragraphs), checksummed (sha256 of the text) and cut into chunks of
about --chunk-tokens tokens (cl100k_base) that follow paragraph and
sentence boundaries and repeat up to --chunk-overlap tokens of the previous
chunk.

Bodies are dropped from the output by default (they are big and ll-index
does not need them once there is text); --keep-body keeps them. Records
with text but no body (imported notes) are normalised and chunked
(parse.adapter "text-import").

EXAMPLES:
   ll-fetch page.html | ll-parse
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-index
   ll-fetch notes.md | ll-parse --jq '{title, chunks: (.chunks | length)}'
   echo '{"url":"https://notes.local/1","text":"Some  text.\r\n\r\n\r\nMore."}' | ll-parse --jq .text`

// Command returns the ll-parse command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        prog,
		Usage:       "extract text, metadata and chunks from fetched records",
		UsageText:   "ll-parse [options] < fetched.ndjson",
		Description: description,
		Flags: []ucli.Flag{
			&ucli.BoolFlag{Name: "drop-body", Value: true, Usage: "drop body and body_base64 from the output records"},
			&ucli.BoolFlag{Name: "keep-body", Usage: "keep body and body_base64 in the output records (same as --drop-body=false)"},
			&ucli.IntFlag{Name: "chunk-tokens", Value: chunk.DefaultTarget, Usage: "target chunk size in `TOKENS` (a chunk may grow to 1.5× to end on a paragraph boundary)"},
			&ucli.IntFlag{Name: "chunk-overlap", Value: chunk.DefaultOverlap, Usage: "`TOKENS` of trailing sentences repeated at the start of the next chunk (0: none)"},
			&ucli.IntFlag{Name: "concurrency", Value: runtime.NumCPU(), Usage: "records parsed at once (`N`); output keeps input order"},
			&ucli.IntFlag{Name: "max-text-bytes", Value: parse.DefaultMaxTextBytes, Usage: "keep at most `BYTES` of text per item; the rest is dropped and parse.truncated set"},
			&ucli.IntFlag{Name: "memory-budget", Value: parse.DefaultMemoryBudget, Usage: "`BYTES` of records parsed at once, shared by all workers (a record weighs about 4× its body and text; one over the budget is parsed alone)"},
			&ucli.BoolFlag{Name: "restore-lead", Usage: "put back a lead (standfirst) the extractor dropped when it is the page's own description"},
			&ucli.StringFlag{Name: "pdf-password", Usage: "user `PASSWORD` of encrypted PDFs (pdftotext -upw)", Sources: ucli.EnvVars("LINKLEDGER_PDF_PASSWORD")},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-parse as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

// job is one input line on its way through the workers.
type job struct {
	rec    *record.Record
	done   chan struct{}
	weight int64 // taken from the memory budget until the record is written
}

// inFlight, when set by a test, is called with the budget in use each time
// a record is handed to a worker.
var inFlight func(int64)

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	if c.NArg() > 0 {
		return cli.Usage("ll-parse takes no arguments: it reads fetched records on stdin")
	}
	if c.IsSet("keep-body") && c.IsSet("drop-body") && c.Bool("keep-body") == c.Bool("drop-body") {
		return cli.Usage("--keep-body and --drop-body contradict each other")
	}
	drop := c.Bool("drop-body") && !c.Bool("keep-body")
	copts := chunk.Options{
		TargetTokens:  int(c.Int("chunk-tokens")),
		OverlapTokens: int(c.Int("chunk-overlap")),
	}
	if copts.TargetTokens <= 0 {
		return cli.Usage("--chunk-tokens must be positive, got %d", copts.TargetTokens)
	}
	if copts.OverlapTokens < 0 {
		return cli.Usage("--chunk-overlap must be 0 or more, got %d", copts.OverlapTokens)
	}
	if copts.OverlapTokens == 0 {
		copts.OverlapTokens = -1 // chunk.Options: negative means none
	}
	if err := copts.Validate(); err != nil {
		return cli.Usage("--chunk-overlap: %v", err)
	}
	maxText := int(c.Int("max-text-bytes"))
	if maxText <= 0 {
		return cli.Usage("--max-text-bytes must be positive, got %d", maxText)
	}
	memBudget := c.Int("memory-budget")
	if memBudget <= 0 {
		return cli.Usage("--memory-budget must be positive, got %d", memBudget)
	}
	workers := int(c.Int("concurrency"))
	if workers < 1 {
		return cli.Usage("--concurrency must be at least 1, got %d", workers)
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	progress := out.Progress(c.Root().Name)
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Quiet: c.Bool("quiet"), Progress: progress}
	defer progress.Done()
	adapters := source.Adapters(source.Options{PDFPassword: c.String("pdf-password"), MaxTextBytes: maxText, MainText: parse.MainText{Readability: mainext.Readability, Trafilatura: mainext.Trafilatura, RestoreLead: c.Bool("restore-lead")}})
	popts := parse.Options{Chunk: copts, MaxTextBytes: maxText}
	budget := parse.NewBudget(int64(memBudget))

	// The reader feeds jobs to the workers and, in input order, to the
	// writer; at most 2×workers records are in flight.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan *job)
	order := make(chan *job, 2*workers)
	for i := 0; i < workers; i++ {
		go func() {
			for j := range work {
				parseOne(j.rec, adapters, popts, drop)
				close(j.done)
			}
		}()
	}
	var readErr error
	go func() {
		defer close(order)
		defer close(work)
		rd := ndjson.NewReader(cli.Stdin(ctx, env, diag))
		for ctx.Err() == nil {
			rec, _, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var le *ndjson.LineError
			j := &job{done: make(chan struct{})}
			switch {
			case errors.As(err, &le):
				diag.Printf("line %d: %v", le.Line, le.Err)
				j.rec = le.Record(record.StageParse)
				close(j.done)
			case err != nil:
				readErr = fmt.Errorf("read stdin: %w", err)
				return
			default:
				j.rec = rec
				// Records in flight, read but not yet written, share the
				// memory budget: the reader waits here for earlier records
				// to be written before it takes on more.
				if j.weight, err = budget.Acquire(ctx, parse.Weight(rec)); err != nil {
					return
				}
				if inFlight != nil {
					inFlight(budget.InUse())
				}
			}
			select {
			case order <- j:
			case <-ctx.Done():
				return
			}
			if rec != nil && err == nil {
				select {
				case work <- j:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	for j := range order {
		select {
		case <-j.done:
		case <-ctx.Done():
			// Interrupted: what was written stays; the rest is not emitted.
			return ctx.Err()
		}
		if e := j.rec.Error; e != nil && e.Stage == record.StageParse && !ndjson.IsLineError(e) {
			diag.Itemf("%s: %s: %s", j.rec.Ref(), record.Clean(e.Code), record.Clean(e.Message))
		}
		progress.Tick(j.rec.Error != nil)
		err := out.Emit(j.rec)
		if j.weight > 0 {
			budget.Release(j.weight)
		}
		if err != nil {
			cancel()
			if ndjson.IsClosedPipe(err) {
				return nil
			}
			return err
		}
	}
	if readErr != nil {
		return readErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return out.Finish()
}

// parseOne parses rec in place: identity for bare records, the adapter
// chain, then the body is dropped when asked. Records that carry an error or
// a not-modified fetch are left exactly as they came.
func parseOne(rec *record.Record, adapters []parse.Adapter, opts parse.Options, drop bool) {
	if rec.Error != nil || (rec.Fetch != nil && rec.Fetch.NotModified) {
		return
	}
	if rec.ID == "" && rec.URL != "" {
		if res, err := canon.Canonicalize(rec.URL); err == nil {
			rec.CanonicalURL = res.URL
			rec.ID = record.ItemID(res.URL)
			if rec.SourceType == "" {
				rec.SourceType = res.SourceType
			}
		}
	}
	parse.Run(rec, adapters, opts)
	if drop {
		rec.Body, rec.BodyBase64 = nil, nil
	}
}
