// Package llindex is the ll-index command: it writes ingested content into
// the store.
//
// Reads: records from ll-parse (text, chunks, metadata), records from
// ll-fetch that did not pass through ll-parse (it parses them itself with
// the same adapter chain), records that already carry .text from any source
// (it chunks them), and error records (it marks the item failed with the
// reason, attempt count and next retry time), and records of ll-find
// --with-chunks (the item's stored chunks: only their enrichment is
// stored).
// Writes: each record with index: {status, chunks, duplicate_of, unchanged};
// bodies, text and chunks are dropped from the output unless --keep-content.
// Touches: the network for the images the records list (after the
// item's content committed, under caps; images.go, docs/fetch.md
// "Images"), and the store, each item written whole in one transaction (items
// that arrive together share one, see pipeline.go; a killed ll-index
// leaves every item either complete or untouched, and writes a record out
// only after its transaction committed); it opens (and creates) the
// database at the first record to write, so an empty input touches nothing.
package llindex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/parse/mainext"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/source"
)

const description = `ll-index stores ingested records: per item, in one transaction, its
metadata, its chunks (replaced atomically), the full-text index, checksum and
ingest state (saved -> fetched -> parsed -> enriched, or failed). Records
that arrive together share a transaction (at most 64, or 8 MB of text);
each is written out once its transaction committed, so a killed ll-index
leaves every item complete or untouched.

Records that were fetched but not parsed are parsed here with ll-parse's
adapter chain, so 'll-find --stale | ll-fetch | ll-index' works as written.
Records that carry .text but no chunks are chunked here; content that came
in the record (no ll-fetch step) is never re-fetched by the stale or pending
queues. A 304 (not
modified) or an unchanged checksum keeps the content and refreshes
fetched_at. An error record marks the item failed with the reason, the
attempt count and the next retry time (retryable errors only: 1 minute,
doubling per attempt, at most 24 hours). An item whose text equals another
item's is marked duplicate_of it. Records with nothing to index (plain saved
records) pass through unchanged.

Records enriched by ll-enrich (an artifact created by an agent, and that
agent's highlight suggestions) store the artifact and suggestions with the
content and mark the item enriched; the agent's earlier artifact and
unpinned highlights on the item are replaced, a person's and pinned ones
never, and at most --agent-cap agent highlights stay (docs/enrich.md).
A record with enrich.error (the model failed) is indexed as parsed and the
failure is kept on the item (ingest.last_enrich_error, an enrich_failed
event) until an enrichment is stored.

Images a record lists (ll-parse's "images") are fetched once the item's
content committed and stored in the ledger, for the reader and export
--vault: only PNG, JPEG, GIF, WebP or AVIF by their bytes, from public
addresses or the page's own server (none but public ones with
--public-only), at most --max-images per item, --max-image-bytes each,
--max-item-image-bytes in all, --image-timeout each (docs/fetch.md
"Images"). --images=false fetches none.

Records of 'll-find --with-chunks' (marked "stored", no text) bring the
item's own chunks back: only their enrichment is stored, never content;
chunks that are no longer the item's are refused (bad_input).

EXAMPLES:
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-index
   ll-find --stale --older-than 30d | ll-fetch | ll-index
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-enrich | ll-index
   ll-find --status parsed --with-chunks | ll-enrich | ll-index
   echo '{"url":"https://notes.local/1","title":"Idea","text":"Some text."}' | ll-index`

// Command returns the ll-index command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        "ll-index",
		Usage:       "write fetched or parsed records into the store",
		UsageText:   "ll-index [options] < records.ndjson",
		Description: description,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.BoolFlag{Name: "keep-content", Usage: "keep body, text and chunks in the output records"},
			&ucli.DurationFlag{Name: "retry-base", Value: time.Minute, Usage: "wait before the first retry of a failed item"},
			&ucli.IntFlag{Name: "chunk-tokens", Value: 0, Usage: "target chunk size in tokens when chunking here (0: ll-parse's default)"},
			&ucli.IntFlag{Name: "chunk-overlap", Usage: "chunk overlap in tokens when chunking here (0: none; default: ll-parse's)"},
			&ucli.IntFlag{Name: "max-text-bytes", Value: parse.DefaultMaxTextBytes, Usage: "keep at most `BYTES` of text per item; a record over it (or with more chunks than such a text makes) is cut and chunked again, with parse.truncated set"},
			&ucli.BoolFlag{Name: "optimize", Usage: "after the input, merge the whole full-text index into one segment (can take minutes on a large store)"},
			&ucli.BoolFlag{Name: "no-merge", Usage: "skip the bounded index merge done after the input"},
			&ucli.BoolFlag{Name: "images", Value: true, Usage: "fetch and store the images the records list (--images=false: none; docs/fetch.md \"Images\")"},
			&ucli.IntFlag{Name: "max-images", Value: fetch.DefaultMaxImages, Usage: "images stored per item"},
			&ucli.StringFlag{Name: "max-image-bytes", Value: "4MiB", Usage: "bytes of one image (`SIZE`: bytes, or with k, KiB, MB, MiB)"},
			&ucli.StringFlag{Name: "max-item-image-bytes", Value: "16MiB", Usage: "bytes of all images of one item (`SIZE`)"},
			&ucli.DurationFlag{Name: "image-timeout", Value: fetch.DefaultImageTimeout, Usage: "time for one image: connect, redirects, body"},
			&ucli.BoolFlag{Name: "public-only", Usage: "fetch images from public addresses only, not even the page's own server (also LINKLEDGER_PUBLIC_ONLY=1)"},
			&ucli.IntFlag{Name: "agent-cap", Value: spec.DefaultAgentHighlightCap, Usage: "agent highlights kept per item when storing ll-enrich suggestions (3..7)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-index as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	if c.NArg() > 0 {
		return cli.Usage("ll-index takes no arguments: it reads records on stdin")
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	popts := parse.Options{MaxTextBytes: int(c.Int("max-text-bytes"))}
	if popts.MaxTextBytes <= 0 {
		return cli.Usage("--max-text-bytes must be positive, got %d", popts.MaxTextBytes)
	}
	if n := c.Int("chunk-tokens"); n > 0 {
		popts.Chunk.TargetTokens = n
	}
	if c.IsSet("chunk-overlap") {
		switch n := c.Int("chunk-overlap"); {
		case n < 0:
			return cli.Usage("--chunk-overlap %d: must be 0 or more", n)
		case n == 0:
			popts.Chunk.OverlapTokens = -1 // chunk.Options: negative means none
		default:
			popts.Chunk.OverlapTokens = n
		}
	}
	capN := int(c.Int("agent-cap"))
	if err := spec.CheckAgentHighlightCap(capN); err != nil {
		return cli.Usage("--%v", err)
	}
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	path := loc.Path
	wait := cli.BusyTimeout(c.Duration("busy-timeout"))
	progress := out.Progress(c.Root().Name)
	ix := &indexer{
		path:     path,
		wait:     wait,
		loc:      loc,
		adapters: source.Adapters(source.Options{MaxTextBytes: popts.MaxTextBytes, MainText: parse.MainText{Readability: mainext.Readability, Trafilatura: mainext.Trafilatura}}),
		popts:    popts,
		iopts:    spec.IndexOptions{RetryBase: c.Duration("retry-base"), AgentHighlightCap: capN},
		keep:     c.Bool("keep-content"),
		diag:     cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Quiet: c.Bool("quiet"), Progress: progress},
		progress: progress,
	}
	defer ix.close()
	if c.Bool("images") {
		if ix.imgs, err = imagesOf(ctx, c, env, ix); err != nil {
			return err
		}
	}
	indexed, err := ix.pipeline(ctx, cli.Stdin(ctx, env, ix.diag), out)
	ix.imgs.wait()
	if err != nil {
		return err
	}
	ix.progress.Done()
	if err := out.Finish(); err != nil {
		return err
	}
	if out.IsHuman() && out.Written() == 0 && !c.Bool("optimize") && !c.Bool("quiet") {
		// a person ran it (often as `linkledger worker`) and nothing came in
		if note := env.Getenv(cli.EmptyInputEnv); note != "" {
			// the front's worker or stale: say what the verb found (a
			// second line is the hint)
			msg, hint, _ := strings.Cut(note, "\n")
			ix.diag.Printf("%s", msg)
			if hint != "" {
				ix.diag.Hintf("%s", hint)
			}
		} else {
			ix.diag.Printf("nothing to index: no records came in")
			ix.diag.Hintf("linkledger worker ingests saved links; ll-find --pending lists what waits, ll-find --failed what failed")
		}
	}
	switch {
	case ix.busy != nil:
		// no maintenance while another process holds the lock
	case c.Bool("optimize"):
		if _, err := ix.store(ctx); err != nil {
			return err
		}
		ix.merge(ctx, -1)
	case !c.Bool("no-merge") && indexed > 0:
		ix.merge(ctx, indexed*spec.MergePagesPerItem)
	}
	return nil
}

// imagesOf reads the image flags into the image pass of ix.
func imagesOf(ctx context.Context, c *ucli.Command, env cli.Env, ix *indexer) (*images, error) {
	o := fetch.ImageOptions{MaxImages: int(c.Int("max-images")), Timeout: c.Duration("image-timeout")}
	if o.MaxImages < 1 || o.MaxImages > record.MaxListedImages {
		return nil, cli.Usage("--max-images %d: want 1..%d", o.MaxImages, record.MaxListedImages)
	}
	if o.Timeout <= 0 {
		return nil, cli.Usage("--image-timeout %v: must be positive", o.Timeout)
	}
	var err error
	if o.MaxImageBytes, err = cli.ParseSize(c.String("max-image-bytes")); err != nil || o.MaxImageBytes <= 0 {
		return nil, cli.Usage("--max-image-bytes %q: want a positive size", c.String("max-image-bytes"))
	}
	if o.MaxItemBytes, err = cli.ParseSize(c.String("max-item-image-bytes")); err != nil || o.MaxItemBytes <= 0 {
		return nil, cli.Usage("--max-item-image-bytes %q: want a positive size", c.String("max-item-image-bytes"))
	}
	pub, err := cli.PublicOnly(c, env)
	if err != nil {
		return nil, err
	}
	f := fetch.New(fetch.Options{PublicOnly: pub, UserAgent: "linkledger/" + cli.Version + " (+https://github.com/linkledger/linkledger)"})
	return newImages(ctx, ix, f, o.WithDefaults()), nil
}

// merge merges full-text index segments after the input (see
// ledger.MergeIndex). It is maintenance: a failure (another writer holding
// the lock, an interrupt) is a -v diagnostic, never a failed run, and the
// next run continues where it stopped.
func (ix *indexer) merge(ctx context.Context, pages int) {
	start := time.Now()
	st, err := ix.st.MergeIndex(ctx, pages)
	if err != nil {
		ix.diag.Debugf("index merge stopped after %d steps: %v", st.Steps, err)
		return
	}
	ix.diag.Debugf("index merge: %d steps in %v (complete: %v)", st.Steps, time.Since(start).Round(time.Millisecond), st.Complete)
}

type indexer struct {
	path     string
	wait     time.Duration // busy timeout
	busy     error         // set once a write gave up on another process's lock
	loc      cli.DBLocation
	st       *ledger.Ledger // opened by the first record to write (see store)
	adapters []parse.Adapter
	popts    parse.Options
	iopts    spec.IndexOptions
	keep     bool
	diag     cli.Diag
	progress *cli.Progress
	imgs     *images // nil with --images=false
}

// store opens the database on first use: an input with nothing to write
// (an empty stream, as after a failed ll-find in linkledger worker)
// creates no database.
func (ix *indexer) store(ctx context.Context) (*ledger.Ledger, error) {
	if ix.st == nil {
		st, err := cli.OpenWriter(ctx, ix.loc, ledger.OpenOptions{BusyTimeout: ix.wait})
		if err != nil {
			return nil, err
		}
		ix.st = st
	}
	return ix.st, nil
}

func (ix *indexer) close() {
	if ix.st != nil {
		ix.st.Close()
	}
}

// prepare does what ll-index does to rec before the store (identity,
// parsing, chunking, bounds: no state but the options, so workers run it
// concurrently) and reports whether rec has anything to write. Its
// diagnostics go to diag.
func (ix *indexer) prepare(rec *record.Record, diag cli.Diag) (write bool) {
	if rec.ID == "" || rec.CanonicalURL == "" {
		if rec.URL == "" {
			if rec.Error == nil {
				rec.Error = &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput, Message: "record has no url"}
				diag.Itemf("record without url: skipped")
			}
			return false // an earlier stage's error without an item: nothing to store
		}
		res, err := canon.Canonicalize(rec.URL)
		if err != nil {
			if rec.Error == nil {
				rec.Fail(record.StageIndex, record.CodeBadURL, err.Error(), false)
			}
			return false
		}
		rec.CanonicalURL = res.URL
		rec.ID = record.ItemID(res.URL)
		if rec.SourceType == "" {
			rec.SourceType = res.SourceType
		}
	}
	if e := ledger.CheckID(rec); e != nil {
		// A forged id: nothing is stored, whatever the record carries.
		diag.Itemf("%s: %s", rec.Ref(), e.Message)
		if rec.Error == nil {
			rec.Error = e
		}
		return false
	}
	if rec.Error == nil {
		hasBody := rec.Body != nil || rec.BodyBase64 != nil
		notModified := rec.Fetch != nil && rec.Fetch.NotModified
		switch {
		case rec.Text == nil && len(rec.Chunks) == 0 && hasBody && !notModified:
			parse.Run(rec, ix.adapters, ix.popts)
		case rec.Text != nil && len(rec.Chunks) == 0:
			if from := parse.ChunkText(rec, ix.popts); from > 0 {
				parse.MarkTruncated(rec, from, ix.popts)
			}
		}
		// Records can be made by hand: text and chunks over the cap are cut.
		// (A record carrying the item's stored chunks writes no content.)
		if !ledger.FromStore(rec) && parse.Bound(rec, ix.popts) {
			diag.Debugf("%s: text over --max-text-bytes %d: truncated", rec.Ref(), ix.popts.MaxTextBytes)
		}
	}
	if rec.Error == nil && rec.Text == nil && len(rec.Chunks) == 0 && (rec.Fetch == nil || !rec.Fetch.NotModified) {
		diag.Debugf("%s: nothing to index (no body, text or error): passed through", rec.Ref())
		return false
	}
	return true
}

// stored applies what the store did with a prepared record (res, err from
// ledger.IndexBatch) to rec in place. It returns an error only when the
// stream must stop (cancelled).
func (ix *indexer) stored(ctx context.Context, rec *record.Record, res *record.IndexResult, err error) error {
	var bad *record.Error
	if errors.As(err, &bad) {
		// The record asks for something invalid: nothing was stored.
		ix.diag.Itemf("%s: %s", rec.Ref(), bad.Message)
		if rec.Error == nil {
			rec.Error = bad
		}
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if ledger.IsBusy(err) {
			if ix.busy != nil {
				// the rest of a batch that met the lock: as a record after it
				ix.notTried(rec)
				return nil
			}
			ix.busy = cli.BusyError(ix.path, ix.wait, "this record and the rest of the input are written out failed (retryable), not indexed; saved items keep their status, so ll-find --pending or --failed lists them again")
			err = ix.busy
		}
		ix.diag.Printf("%s: %s", rec.Ref(), record.Clean(err.Error()))
		if rec.Error == nil {
			rec.Fail(record.StageIndex, record.CodeStore, err.Error(), ledger.IsRetryable(err) || ix.busy != nil)
		}
		return nil
	}
	if rec.Error != nil {
		ix.diag.Debugf("%s: stored failure: %s", rec.Ref(), record.Clean(rec.Error.Message))
	}
	rec.Index = res
	rec.Status = res.Status
	if !ix.keep {
		rec.Body, rec.BodyBase64, rec.Text, rec.Chunks = nil, nil, nil, nil
	}
	return nil
}

// notTried fails a record that was not written because an earlier one met
// another process's lock.
func (ix *indexer) notTried(rec *record.Record) {
	// Every write would wait the whole timeout again: the rest of the
	// input passes through failed (retryable), without trying.
	if rec.Error == nil {
		rec.Fail(record.StageIndex, record.CodeStore, fmt.Sprintf("not indexed: database locked by another process (ll-index gave up after %v on an earlier record)", ix.wait), true)
	}
}
