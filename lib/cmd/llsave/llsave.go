// Package llsave is the ll-save command: it records intent.
//
// Reads: URLs, existing local paths or item IDs as arguments, or, when
// there are no arguments, stdin as plain lines (one URL or path each) or
// NDJSON records ({"url", "note", "tags", "annotations", ...}; unknown
// fields pass through). Writes: one record per input with id, url,
// canonical_url, source_type, status, new and save (what it did); an error
// record for a bad input (with its line or argument number), which is never
// saved: a missing path, a line of some other file.
// Touches: the store (items, annotations, tags, artifacts, events), one
// short transaction per record.
package llsave

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

const description = `ll-save records a link (or a local file), with an optional note, tags and
annotations, in milliseconds. It does no network work: pipe its output into
ll-fetch | ll-parse | ll-index, or run 'linkledger worker' later.

An argument is a URL (http, https, file), a host name with a path
(example.com/page, saved as https), a local path that exists (saved as a
file:// URL of its absolute path) or an item ID (ll_ followed by 16 hex
digits) to annotate or tag an existing item. Saving the same canonical URL
again returns the same ID, marked "new": false, and merges the new note
and tags. Anything else is an error record, never an item: a path that does
not exist (not_found), or a line that is not a URL, path or JSON record,
such as a line of an exported bookmarks or CSV file (bad_input, with a hint).

Text flags (--note, --highlight, --lowlight, --annotate-note) keep their
text whole, commas included; repeat a flag for several. List flags (--tags,
--untag, --pin, --unpin) also split on commas.

With no arguments, stdin is read: plain lines (a URL or path each) or NDJSON
records such as
  {"url": "https://example.com/a", "note": "why", "tags": ["ai"],
   "annotations": [{"type": "highlight", "text": "...", "actor": "agent:r", "confidence": 0.8}]}
Fields ll-save does not own pass through to its output. Flags apply to every
input as defaults.

Records from ll-import also carry saved_at (a new item's saved time, when
in the past), title (a new item's title until the page is parsed) and via
(import:<format>, kept in the history; with it an annotation the item has
already is not added again, so an import can run twice). --batch N saves N
records per transaction (imports), with the same output, and gives SQLite
a 64 MiB page cache (docs/import-export.md, Speed).

Agent annotations without --confidence get 0.5. At most --agent-cap (default 5,
3..7) agent highlights are kept per item: beyond it the lowest-confidence
unpinned agent highlight is displaced; human and pinned ones never are.

A record's "review" holds a person's review decisions on the item's agent
annotations and tags, as 'linkledger review' takes them:
  {"id": "ll_...", "review": [{"annotation_id": 12, "decision": "confirm",
   "confidence": 0.8, "pinned": true}, {"tag": "draft", "decision": "reject"}]}
Only a person (actor human) confirms or rejects, and an agent never changes
a person's decision: such a record is an error record (bad_input).

EXAMPLES:
   ll-save https://example.com/post --note "read later" --tags ai,memory
   ll-save ./paper.pdf
   ll-save ll_0123456789abcdef --highlight "the key claim" --confidence 0.82 --actor agent:researcher
   ll-save ll_0123456789abcdef --tags reading --untag inbox
   cat urls.txt | ll-save | ll-fetch | ll-parse | ll-index`

// Command returns the ll-save command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        "ll-save",
		Usage:       "record links, notes, tags and annotations in the store",
		UsageText:   "ll-save [options] [URL|PATH|ID ...]",
		Description: description,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "note", Usage: "attach a note `TEXT`"},
			&ucli.StringSliceFlag{Name: "tags", Aliases: []string{"tag", "t"}, Usage: "add tags (comma-separated, repeatable)"},
			&ucli.StringSliceFlag{Name: "untag", Usage: "remove tags (comma-separated, repeatable)"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who says it: human or agent:<name>"},
			&ucli.StringSliceFlag{Name: "highlight", Usage: "add a highlight `TEXT`, kept whole, commas and all (repeat the flag for several)"},
			&ucli.StringSliceFlag{Name: "lowlight", Usage: "add a lowlight `TEXT`, kept whole (repeat the flag for several)"},
			&ucli.StringSliceFlag{Name: "annotate-note", Usage: "add a note annotation `TEXT`, kept whole (repeat the flag for several)"},
			&ucli.FloatFlag{Name: "confidence", Value: -1, HideDefault: true, Usage: "confidence 0..1 of the annotations given by flags (agents: 0.5 when not given)"},
			&ucli.BoolFlag{Name: "pinned", Usage: "pin the highlights given by flags"},
			&ucli.Int64Flag{Name: "chunk", Usage: "anchor the annotations given by flags to chunk `ID`"},
			&ucli.StringSliceFlag{Name: "pin", Usage: "pin highlight annotation `ID` (comma-separated, repeatable)"},
			&ucli.StringSliceFlag{Name: "unpin", Usage: "unpin highlight annotation `ID` (comma-separated, repeatable)"},
			&ucli.IntFlag{Name: "agent-cap", Value: spec.DefaultAgentHighlightCap, Usage: "agent highlights kept per item (3..7)"},
			&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON, see docs/canonicalization.md)", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
			&ucli.IntFlag{Name: "batch", Value: 1, Usage: "save `N` stdin records per transaction (imports: fewer commits, a 64 MiB page cache; records are written when their batch is saved)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-save as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

type defaults struct {
	note     string
	tags     []string
	untags   []string
	actor    string
	anns     []record.Annotation
	pin      []int64
	unpin    []int64
	saveOpts spec.SaveOptions
}

func splitList(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// idList reads the annotation IDs of a repeatable, comma-separated flag
// (--pin 1 --pin 2, or --pin 1,2).
func idList(flag string, vals []string) ([]int64, error) {
	var out []int64
	for _, v := range splitList(vals) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return nil, cli.Usage("--%s %q: want annotation IDs (numbers), comma-separated or with the flag repeated", flag, v)
		}
		out = append(out, n)
	}
	return out, nil
}

func readDefaults(c *ucli.Command) (defaults, error) {
	fv := cli.Flags(c)
	d := defaults{
		note:   fv.String("note"),
		tags:   splitList(fv.StringSlice("tags")),
		untags: splitList(fv.StringSlice("untag")),
		actor:  fv.String("actor"),
	}
	var err error
	if d.pin, err = idList("pin", fv.StringSlice("pin")); err != nil {
		return d, err
	}
	if d.unpin, err = idList("unpin", fv.StringSlice("unpin")); err != nil {
		return d, err
	}
	if err := record.CheckActor(d.actor); err != nil {
		return d, cli.Usage("--%v", err)
	}
	capN := fv.Int("agent-cap")
	if err := spec.CheckAgentHighlightCap(int(capN)); err != nil {
		return d, cli.Usage("--%v", err)
	}
	d.saveOpts = spec.SaveOptions{Actor: d.actor, AgentHighlightCap: capN}
	var confp *float64
	if fv.IsSet("confidence") {
		v := fv.Float("confidence")
		if err := record.CheckConfidence(v); err != nil {
			return d, cli.Usage("--%v", err)
		}
		confp = &v
	}
	var chunk *int64
	if fv.IsSet("chunk") {
		v := c.Int64("chunk")
		chunk = &v
	}
	add := func(typ string, texts []string) {
		for _, t := range texts {
			d.anns = append(d.anns, record.Annotation{Type: typ, Text: t, Confidence: confp, ChunkID: chunk, Pinned: fv.Bool("pinned") && typ == record.AnnHighlight})
		}
	}
	add(record.AnnHighlight, fv.StringSlice("highlight"))
	add(record.AnnLowlight, fv.StringSlice("lowlight"))
	add(record.AnnNote, fv.StringSlice("annotate-note"))
	return d, nil
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	fv := cli.Flags(c)
	d, err := readDefaults(c)
	if err != nil {
		return err
	}
	if n := fv.Int("batch"); n < 1 || n > 10000 {
		return cli.Usage("--batch %d: want 1..10000", n)
	}
	rules := canon.DefaultRules()
	if f := fv.String("rules"); f != "" {
		if err := rules.MergeFile(f); err != nil {
			return cli.Usage("--rules: %v", err)
		}
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	loc, err := cli.LocateDB(fv.String("db"), env)
	if err != nil {
		return err
	}
	path := loc.Path
	wait := cli.BusyTimeout(fv.Duration("busy-timeout"))
	// --batch is a bulk writer's (an import's): a larger page cache
	// (docs/benchmarks.md, Import)
	st, err := cli.OpenWriter(ctx, loc, ledger.OpenOptions{BusyTimeout: wait, Bulk: fv.Int("batch") > 1})
	if err != nil {
		return err
	}
	defer st.Close()
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: fv.Bool("verbose")}
	cwd, _ := env.Getwd()
	home := env.Getenv("HOME")
	s := &saver{st: st, rules: rules, d: d, cwd: cwd, home: home, out: out, diag: diag, batch: fv.Int("batch")}
	// A write given up on another process's lock stops the run: every
	// later write would wait as long. Saving is idempotent, so the whole
	// input can simply be run again.
	busy := func(err error) error {
		if ledger.IsBusy(err) {
			return cli.BusyError(path, wait, fmt.Sprintf("%d input(s) saved before it, none from there on; running the same input again is safe", s.saved))
		}
		return err
	}

	if args := c.Args().Slice(); len(args) > 0 {
		for i, a := range args {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := s.one(ctx, &record.Record{URL: a}, i+1, "argument"); err != nil {
				return busy(err)
			}
		}
		s.sayNext()
		return out.Finish()
	}
	err = cli.EachRecord(ctx, cli.Stdin(ctx, env, diag), out, diag, record.StageSave, func(rec *record.Record, line int) error {
		return s.one(ctx, rec, line, "line")
	})
	if err == nil {
		err = s.flush(ctx)
	}
	if err != nil {
		return busy(err)
	}
	s.sayNext()
	return out.Finish()
}

// sayNext names the next step after saving new links that wait for the
// worker (ledger.SaveNext decides, as for the MCP save tool): the
// command that fetches and indexes them, on stderr, for a person at a
// terminal only (Output.Hints).
func (s *saver) sayNext() {
	if s.waiting == 0 || !s.out.Hints() {
		return
	}
	what := "it"
	if s.waiting > 1 {
		what = fmt.Sprintf("the %d new links", s.waiting)
	}
	s.diag.Hintf("fetch and index %s with: %s (or keep %s --watch running)", what, ledger.IngestHint, ledger.IngestHint)
}

type saver struct {
	hinted map[string]bool // hints already given, by kind: once per run
	st     *ledger.Ledger
	rules  *canon.Rules
	d      defaults
	cwd    string
	home   string
	out    *cli.Output
	diag   cli.Diag
	saved  int // inputs saved so far
	// waiting counts the new links saved that wait for the worker
	waiting int
	// batch is how many records share a transaction (--batch); pending
	// are the records of the batch being gathered.
	batch   int
	pending []pendingSave
}

// one saves one input and emits its record. It returns an error only for
// failures that must stop the stream (output closed, database unusable).
func (s *saver) one(ctx context.Context, rec *record.Record, pos int, what string) error {
	if rec.Error != nil {
		// an upstream error record passes through untouched, in order
		if err := s.flush(ctx); err != nil {
			return err
		}
		return s.out.Emit(rec)
	}
	fail := func(code, msg string) error {
		if err := s.flush(ctx); err != nil {
			return err
		}
		s.diag.Printf("%s %d: %s", what, pos, msg)
		rec.Error = &record.Error{Stage: record.StageSave, Code: code, Message: msg, Line: pos}
		return s.out.Emit(rec)
	}
	if rec.IsExport() {
		if err := s.flush(ctx); err != nil {
			return err
		}
		return s.restore(ctx, rec, pos, what)
	}
	s.applyDefaults(rec)
	opts := s.d.saveOpts
	target := strings.TrimSpace(rec.URL)
	switch {
	case target == "" && rec.ID != "":
		if !ledger.IsItemID(rec.ID) {
			return fail(record.CodeBadInput, fmt.Sprintf("id %q is not an item id", rec.ID))
		}
	case ledger.IsItemID(target):
		rec.ID, rec.URL = target, ""
	case target == "":
		return fail(record.CodeBadInput, "record has no url or id")
	default:
		// the same reading of an input as the MCP save tool's (lib/ledger)
		if err := ledger.Canonicalize(rec, target, ledger.ResolveOptions{Rules: s.rules, Cwd: s.cwd, Home: s.home}); err != nil {
			var ie *ledger.InputError
			if !errors.As(err, &ie) {
				return fail(record.CodeBadURL, err.Error())
			}
			switch {
			case errors.Is(err, canon.ErrNoSuchFile):
				defer s.hint("missing", "a path is saved only when it exists (a relative one is read from the working directory); check its name")
			case errors.Is(err, canon.ErrNotInput):
				defer s.hintFor(target)
			}
			return fail(ie.Code, ie.Message)
		}
		// A path or URL typed as an argument is the user's own choice: a
		// local file saved so may be read by the worker (docs/security.md).
		opts.NamedByUser = what == "argument"
	}
	// a batch holds stdin records only: an argument may carry a file grant
	if s.batch > 1 && !opts.NamedByUser {
		s.pending = append(s.pending, pendingSave{rec, pos, what})
		if len(s.pending) >= s.batch {
			return s.flush(ctx)
		}
		return nil
	}
	res, err := s.st.SaveRecord(ctx, rec, opts)
	return s.finish(ctx, rec, res, err, pos, what)
}

// pendingSave is a record waiting for its batch (--batch).
type pendingSave struct {
	rec  *record.Record
	pos  int
	what string
}

// flush saves the pending batch in one transaction and emits its records,
// in input order.
func (s *saver) flush(ctx context.Context) error {
	if len(s.pending) == 0 {
		return nil
	}
	recs := make([]*record.Record, len(s.pending))
	for i, p := range s.pending {
		recs[i] = p.rec
	}
	results, err := s.st.SaveBatch(ctx, recs, s.d.saveOpts)
	if err != nil {
		return err
	}
	pending := s.pending
	s.pending = nil
	for i, p := range pending {
		if err := s.finish(ctx, p.rec, results[i].Out, results[i].Err, p.pos, p.what); err != nil {
			return err
		}
	}
	return nil
}

// finish emits the record of one save: its result, or its error.
func (s *saver) finish(ctx context.Context, rec, res *record.Record, err error, pos int, what string) error {
	if err != nil {
		var re *record.Error
		if errors.As(err, &re) {
			s.diag.Printf("%s %d: %s", what, pos, re.Message)
			if re.Hint != "" {
				fmt.Fprintf(s.diag.W, "hint: %s\n", re.Hint)
			}
			re.Line = pos
			rec.Error = re
			return s.out.Emit(rec)
		}
		if ledger.IsBusy(err) || ctx.Err() != nil {
			return err
		}
		msg := err.Error()
		s.diag.Printf("%s %d: %s", what, pos, msg)
		rec.Error = &record.Error{Stage: record.StageSave, Code: record.CodeStore, Message: msg, Line: pos, Retryable: ledger.IsRetryable(err)}
		return s.out.Emit(rec)
	}
	rec.ID, rec.CanonicalURL, rec.SourceType = res.ID, res.CanonicalURL, res.SourceType
	if rec.URL == "" {
		rec.URL = res.URL
	}
	rec.Status, rec.New, rec.Save = res.Status, res.New, res.Save
	s.saved++
	if res.New != nil && *res.New && ledger.SaveNext(res.ID, res.Status).Step == ledger.StepIngest {
		s.waiting++
	}
	// intent fields are consumed: what was done is in save
	rec.Note, rec.Tags, rec.TagsRemove, rec.Annotations, rec.Pin, rec.Unpin, rec.Artifact, rec.Actor = "", nil, nil, nil, nil, nil, nil, ""
	rec.Review = nil
	rec.SavedAt, rec.Via = "", ""
	return s.out.Emit(rec)
}

// restore writes back an item of a linkledger export (ll-import --format
// linkledger): as it was, ids, annotations and history included, or not at
// all when the ledger has it already ("new": false). The flags' defaults do
// not apply.
func (s *saver) restore(ctx context.Context, rec *record.Record, pos int, what string) error {
	_, created, err := s.st.Restore(ctx, rec)
	out := &record.Record{ID: rec.ID, URL: rec.URL, CanonicalURL: rec.CanonicalURL, SourceType: rec.SourceType, Status: rec.Status, Title: rec.Title}
	if err != nil {
		var re *record.Error
		if !errors.As(err, &re) {
			if ledger.IsBusy(err) || ctx.Err() != nil {
				return err
			}
			re = &record.Error{Stage: record.StageSave, Code: record.CodeStore, Message: err.Error(), Retryable: ledger.IsRetryable(err)}
		}
		s.diag.Printf("%s %d: %s", what, pos, re.Message)
		re.Line = pos
		out.Error = re
		return s.out.Emit(out)
	}
	s.saved++
	out.New = &created
	return s.out.Emit(out)
}

func (s *saver) applyDefaults(rec *record.Record) {
	if rec.Note == "" {
		rec.Note = s.d.note
	}
	rec.Tags = append(rec.Tags, s.d.tags...)
	rec.TagsRemove = append(rec.TagsRemove, s.d.untags...)
	if rec.Actor == "" {
		rec.Actor = s.d.actor
	}
	rec.Annotations = append(rec.Annotations, s.d.anns...)
	rec.Pin = append(rec.Pin, s.d.pin...)
	rec.Unpin = append(rec.Unpin, s.d.unpin...)
}

// hint prints a hint line on stderr, once per run for each kind.
func (s *saver) hint(kind, text string) {
	if s.hinted[kind] {
		return
	}
	if s.hinted == nil {
		s.hinted = map[string]bool{}
	}
	s.hinted[kind] = true
	fmt.Fprintf(s.diag.W, "hint: %s\n", text)
}

// hintFor gives the hint for an input that is neither a URL, a path nor a
// record: what the line looks like, and what ll-save takes instead.
func (s *saver) hintFor(in string) {
	switch lower := strings.ToLower(in); {
	case strings.HasPrefix(lower, "<") || strings.Contains(lower, "<a href") || strings.Contains(lower, "netscape-bookmark-file"):
		s.hint("html", "this looks like an exported bookmarks file (HTML); ll-save takes one URL or path per line, "+
			"and ll-import reads bookmark files: ll-import bookmarks.html | ll-save (or linkledger import bookmarks.html)")
	case (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) && strings.ContainsFunc(in, unicode.IsSpace):
		s.hint("spaced", "a URL has no spaces (write a space in it as %20); ll-save takes one URL or path per line")
	case strings.Contains(in, ","):
		s.hint("csv", "this looks like a CSV row; ll-save takes one URL or path per line, "+
			"and ll-import reads the CSV exports of Pocket and Instapaper: ll-import export.csv | ll-save; for another CSV, pick the URL column first, e.g. cut -d, -f2 links.csv | ll-save")
	default:
		s.hint("other", "ll-save takes one URL (http, https, file), an existing path or a JSON record per line (or argument)")
	}
}
