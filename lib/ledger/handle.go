package ledger

import (
	"context"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/record"
)

// Ledger is an open ledger: the service layer as methods over one store,
// for a face that must not reach the store itself (the web app, lib/web,
// imports no lib/store; its dependency test checks). Each method is the
// package function of the same name.
type Ledger struct {
	st *store.Store
}

// OpenOptions are the settings of Open.
type OpenOptions struct {
	// BusyTimeout is how long a write waits for the lock (0: the store's
	// default).
	BusyTimeout time.Duration
	// MustExist refuses to create a missing database.
	MustExist bool
	// ReadOnly opens the database for reading only.
	ReadOnly bool
	// PagePool preallocates page-cache slots for the process (see
	// store.Options.PagePool; only the first open of a process sets it).
	PagePool int
	// BulkImports sets the process up for the bulk imports it runs now
	// and then (linkledger ui's import form): SQLite's sub-journals in
	// memory, as ll-save --batch has them (store.Options.MemorySubjournal).
	BulkImports bool
	// Bulk sets the connection up for one bulk load (ll-save --batch:
	// store.Options.Bulk).
	Bulk bool
	// ReadPolicies reads the query-time policies once at open (ll-find,
	// ll-brief: store.Options.ReadPolicies).
	ReadPolicies bool
	// Now is the clock (nil: the wall clock); tests set it.
	Now func() time.Time
}

// Open opens the ledger at path (created when missing, unless
// opt.MustExist).
func Open(ctx context.Context, path string, opt OpenOptions) (*Ledger, error) {
	st, err := store.Open(ctx, path, opt.storeOptions())
	if err != nil {
		return nil, err
	}
	return &Ledger{st: st}, nil
}

// New wraps a store the caller opened (and closes, with Close or itself).
func New(st *store.Store) *Ledger { return &Ledger{st: st} }

// Close closes the store.
func (l *Ledger) Close() error { return l.st.Close() }

// Path is the database file.
func (l *Ledger) Path() string { return l.st.Path() }

// Which archived items a search lets through (FindOptions.Archived).
const (
	ArchivedAny  = store.AnyArchived
	NotArchived  = store.NotArchived
	OnlyArchived = store.OnlyArchived
)

// Review decisions (record.ReviewDecision.Decision).
const (
	ReviewConfirmed = store.ReviewConfirmed
	ReviewRejected  = store.ReviewRejected
)

// HighlightFilter chooses the annotations of Highlights.
type HighlightFilter = store.AnnotationFilter

// Find is Find on this ledger.
func (l *Ledger) Find(ctx context.Context, opt FindOptions) (*FindResult, error) {
	return Find(ctx, l.st, opt)
}

// Show is Show on this ledger.
func (l *Ledger) Show(ctx context.Context, arg string, opt ShowOptions) (*record.Record, error) {
	return Show(ctx, l.st, arg, opt)
}

// Status is Status on this ledger (URL arguments read with ro, when
// given).
func (l *Ledger) Status(ctx context.Context, arg string, ro ...ResolveOptions) (*record.Record, error) {
	return Status(ctx, l.st, arg, firstResolve(ro))
}

// History is History on this ledger (URL arguments read with ro, when
// given).
func (l *Ledger) History(ctx context.Context, arg string, ro ...ResolveOptions) ([]*record.Record, error) {
	return History(ctx, l.st, arg, firstResolve(ro))
}

// firstResolve is the optional ResolveOptions of a method.
func firstResolve(ro []ResolveOptions) ResolveOptions {
	if len(ro) > 0 {
		return ro[0]
	}
	return ResolveOptions{}
}

// Tags is Tags on this ledger.
func (l *Ledger) Tags(ctx context.Context) ([]*record.Record, error) { return Tags(ctx, l.st) }

// Save is Save on this ledger.
func (l *Ledger) Save(ctx context.Context, rec *record.Record, opt SaveOptions) (*record.Record, error) {
	return Save(ctx, l.st, rec, opt)
}

// Annotate is Annotate on this ledger.
func (l *Ledger) Annotate(ctx context.Context, arg string, anns []record.Annotation, opt SaveOptions) (*record.Record, error) {
	return Annotate(ctx, l.st, arg, anns, opt)
}

// Tag is Tag on this ledger.
func (l *Ledger) Tag(ctx context.Context, arg string, add, remove []string, opt SaveOptions) (*record.Record, error) {
	return Tag(ctx, l.st, arg, add, remove, opt)
}

// Pin is Pin on this ledger.
func (l *Ledger) Pin(ctx context.Context, arg string, annotationID int64, pin bool, opt SaveOptions) (*record.Record, error) {
	return Pin(ctx, l.st, arg, annotationID, pin, opt)
}

// Unannotate is Unannotate on this ledger.
func (l *Ledger) Unannotate(ctx context.Context, arg string, ids []int64, opt WriteOptions) (*record.Record, error) {
	return Unannotate(ctx, l.st, arg, ids, opt)
}

// Archive is Archive on this ledger.
func (l *Ledger) Archive(ctx context.Context, arg string, archived bool, opt WriteOptions) (*record.Record, error) {
	return Archive(ctx, l.st, arg, archived, opt)
}

// Delete is Delete on this ledger.
func (l *Ledger) Delete(ctx context.Context, arg string, opt WriteOptions) (*record.Record, error) {
	return Delete(ctx, l.st, arg, opt)
}

// ReviewQueue is ReviewQueue on this ledger.
func (l *Ledger) ReviewQueue(ctx context.Context, opt ReviewQueueOptions) ([]*record.Record, error) {
	return ReviewQueue(ctx, l.st, opt)
}

// Review applies one decision on the item itemID: d names an annotation
// (AnnotationID) or a tag, and says confirm or reject (Decision), a
// confidence or a pin.
func (l *Ledger) Review(ctx context.Context, itemID string, d record.ReviewDecision, opt WriteOptions) (*record.Record, error) {
	return l.Decide(ctx, ReviewDecision{AnnotationID: d.AnnotationID, ItemID: itemID, Tag: d.Tag,
		Decision: d.Decision, Confidence: d.Confidence, Pinned: d.Pinned}, opt)
}

// Retry is Retry on this ledger.
func (l *Ledger) Retry(ctx context.Context, arg string, opt WriteOptions) (*record.Record, error) {
	return Retry(ctx, l.st, arg, opt)
}

// StateCounts is StateCounts on this ledger.
func (l *Ledger) StateCounts(ctx context.Context) (map[string]int, error) {
	return StateCounts(ctx, l.st)
}

// Queue is Queue on this ledger.
func (l *Ledger) Queue(ctx context.Context, which string, limit int) ([]*record.Record, error) {
	return Queue(ctx, l.st, which, limit)
}

// Highlights is Highlights on this ledger.
func (l *Ledger) Highlights(ctx context.Context, f HighlightFilter) ([]*record.Record, error) {
	return Highlights(ctx, l.st, f)
}

// ListPacks is ListPacks on this ledger.
func (l *Ledger) ListPacks(ctx context.Context) ([]record.PackInfo, error) {
	return ListPacks(ctx, l.st)
}

// ShowPack is ShowPack on this ledger.
func (l *Ledger) ShowPack(ctx context.Context, name string, version int) (*record.PackInfo, error) {
	return ShowPack(ctx, l.st, name, version)
}

// SavePack is SavePack on this ledger.
func (l *Ledger) SavePack(ctx context.Context, name, query string, o record.PackOptions, opt PackWriteOptions) (*record.PackInfo, error) {
	return SavePack(ctx, l.st, name, query, o, opt)
}

// RefreshPack is RefreshPack on this ledger.
func (l *Ledger) RefreshPack(ctx context.Context, name string, opt PackWriteOptions) (*record.PackInfo, error) {
	return RefreshPack(ctx, l.st, name, opt)
}

// Stats is Stats on this ledger.
func (l *Ledger) Stats(ctx context.Context, opt StatsOptions) (*record.UsageStats, error) {
	return Stats(ctx, l.st, opt)
}

// Import is Import on this ledger.
func (l *Ledger) Import(ctx context.Context, name string, data []byte, opt ImportOptions) (*ImportResult, error) {
	return Import(ctx, l.st, name, data, opt)
}
