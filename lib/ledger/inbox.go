package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/linkledger/linkledger/lib/importer"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Retry makes the item arg names due for ingest now (attempts reset, a
// retry event in its history); the next worker pass ingests it. The
// result carries the item's identity and status.
func (l *Ledger) Retry(ctx context.Context, arg string, opt WriteOptions) (*record.Record, error) {
	st := l.st
	id, err := l.ResolveItem(ctx, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	rec, err := st.Retry(ctx, id, opt.actor())
	return rec, notFound(err, arg, st)
}

// StateCounts returns how many items are in each ingest state (saved,
// fetched, parsed, enriched, failed), how many are archived ("archived")
// and how many are copies of another item's text ("copies").
func (l *Ledger) StateCounts(ctx context.Context) (map[string]int, error) {
	st := l.st
	return st.StateCounts(ctx)
}

// ItemsTotal is the number of items of counts (StateCounts) as find
// counts them: every item in every state, copies of one text once (find
// shows a page saved under two links, one with a tracking parameter the
// canonical URL keeps, as one result; the totals did count it twice).
func ItemsTotal(counts map[string]int) int {
	n := 0
	for _, state := range []string{record.StateSaved, record.StateFetched, record.StateParsed, record.StateEnriched, record.StateFailed} {
		n += counts[state]
	}
	return n - counts["copies"]
}

// Ingest reads the ingest status rec carries; the zero value (with
// rec.Status as the state) when it carries none.
func Ingest(rec *record.Record) spec.IngestInfo {
	var in spec.IngestInfo
	if rec == nil {
		return in
	}
	if raw, ok := rec.Extra["ingest"]; ok {
		_ = json.Unmarshal(raw, &in)
	}
	if in.Status == "" {
		in.Status = rec.Status
	}
	return in
}

// Queues that Queue lists.
const (
	QueuePending = "pending" // waiting for the worker: saved, or failed and due for a retry
	QueueFailed  = "failed"  // every failed item, with its last error
)

// Queue lists the items of a queue (QueuePending, QueueFailed), oldest
// first, at most limit (0: all). A failed item's record carries its
// ingest status and last error (the "ingest" extra field).
func (l *Ledger) Queue(ctx context.Context, which string, limit int) ([]*record.Record, error) {
	st := l.st
	q := spec.QueueOptions{Limit: limit}
	switch which {
	case QueuePending:
		q.Queue = store.QueuePending
	case QueueFailed:
		q.Queue = store.QueueFailed
	default:
		return nil, fmt.Errorf("unknown queue %q: want %s or %s", which, QueuePending, QueueFailed)
	}
	return st.Queue(ctx, q)
}

// Highlights lists annotations across the ledger (by default every
// highlight), newest first, filtered by actor, tag, confidence, review
// state and text: records with the item's id, url and title and
// annotations[0].
func (l *Ledger) Highlights(ctx context.Context, f spec.AnnotationFilter) ([]*record.Record, error) {
	st := l.st
	for _, t := range f.Types {
		if err := record.CheckAnnotationType(t); err != nil {
			return nil, &InputError{Code: record.CodeBadInput, Message: err.Error()}
		}
	}
	return st.ListAnnotations(ctx, f)
}

// ImportOptions are the settings of Import.
type ImportOptions struct {
	// Format forces a format (importer.Formats); empty: recognised from
	// the content and name.
	Format string
	// Tags are added to every imported link.
	Tags []string
	// WebOnly refuses links that are not http or https (a file:// link
	// in an uploaded file must not name a local file for the worker).
	WebOnly bool
	// Actor is who imports (default human).
	Actor string
}

// ImportResult says what Import did.
type ImportResult struct {
	Format   string
	Saved    int      // new items
	Existing int      // links already in the ledger (their tags and notes merged)
	Refused  int      // rows or links that could not be saved
	Problems []string // the first problems, for the person (at most 20)
}

func (r *ImportResult) problem(msg string) {
	r.Refused++
	if len(r.Problems) < 20 {
		r.Problems = append(r.Problems, msg)
	}
}

// importBatch is how many links one transaction saves: as linkledger
// import (ll-save --batch 5000), whose page cache Import also takes
// (store.Bulk).
const importBatch = 5000

// Import reads an export file of another link tool (name helps recognise
// its format; data is the whole file, which the caller bounds) with the
// importers of `linkledger import` and saves every link as it does: a
// transaction per 5,000 links on one connection with a bulk writer's page
// cache (store.Bulk). It stops between links when ctx ends (a request
// whose client went away); what was committed stays. A row that cannot
// be read or a link that cannot be saved is counted and reported in the
// result; the rest is saved.
func (l *Ledger) Import(ctx context.Context, name string, data []byte, opt ImportOptions) (*ImportResult, error) {
	st := l.st
	f := importer.Formats[opt.Format]
	if opt.Format != "" && f == nil {
		return nil, &InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("format %q: want one of %s", opt.Format, strings.Join(importer.Names(), ", "))}
	}
	if f == nil {
		var err error
		if f, err = importer.Detect(name, data); err != nil {
			return nil, &InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("%s: %v; formats: %s", name, err, strings.Join(importer.Names(), ", ")), Err: err}
		}
	}
	res := &ImportResult{Format: f.Name}
	bulk, err := st.Bulk(ctx)
	if err != nil {
		return res, err
	}
	defer bulk.Close()
	var batch []*record.Record
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		out, err := bulk.SaveBatch(ctx, batch, spec.SaveOptions{Actor: opt.Actor})
		if err != nil {
			return err
		}
		for i, r := range out {
			switch {
			case r.Err != nil:
				res.problem(batch[i].URL + ": " + r.Err.Error())
			case r.Out != nil && r.Out.New != nil && *r.Out.New:
				res.Saved++
			default:
				res.Existing++
			}
		}
		batch = batch[:0]
		return nil
	}
	add := func(rec *record.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		in := &record.Record{URL: rec.URL, Title: rec.Title, Note: rec.Note, Tags: append(rec.Tags, opt.Tags...),
			Annotations: rec.Annotations, SavedAt: rec.SavedAt, Via: rec.Via}
		if err := Canonicalize(in, in.URL, ResolveOptions{}); err != nil {
			res.problem(fmt.Sprintf("%q: %v", rec.URL, err))
			return nil
		}
		if opt.WebOnly && !strings.HasPrefix(in.CanonicalURL, "http://") && !strings.HasPrefix(in.CanonicalURL, "https://") {
			res.problem(fmt.Sprintf("%q: only http and https links are imported here", rec.URL))
			return nil
		}
		batch = append(batch, in)
		if len(batch) >= importBatch {
			if err := flush(); err != nil {
				return saveFailed{err}
			}
		}
		return nil
	}
	sink := &importer.Sink{
		Link: func(l *importer.Link) error { return add(l.Record(f.Tool)) },
		Bad: func(line int, msg string) error {
			if line > 0 {
				msg = fmt.Sprintf("line %d: %s", line, msg)
			}
			res.problem(msg)
			return nil
		},
		Record: add,
	}
	if err := f.Read(data, sink); err != nil {
		var sf saveFailed
		if errors.As(err, &sf) {
			return res, sf.err
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, &InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("%s: not readable as %s: %v", name, f.Name, err), Err: err}
	}
	return res, flush()
}

// saveFailed marks an error of saving a batch (the store), which ends the
// import, from one of reading the file.
type saveFailed struct{ err error }

func (e saveFailed) Error() string { return e.err.Error() }
