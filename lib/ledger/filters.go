package ledger

import (
	"context"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// The service calls of the ll-* filters (ll-save, ll-index, ll-find,
// ll-brief) and of the importers: batched save and index, search, the
// fetch queue, stored chunks and images, so that no package outside
// lib/ledger reaches the store (docs/cli.md, "Three faces").

// IsRetryable reports whether a failed write may succeed when tried again.
func IsRetryable(err error) bool { return store.IsRetryable(err) }

// CheckID is the error of a record whose id is not its URL's item id (nil
// when it is).
func CheckID(rec *record.Record) *record.Error { return store.CheckID(rec) }

// FromStore reports whether rec's chunks were read back from the store
// (ll-find --with-chunks), so need no parsing again.
func FromStore(rec *record.Record) bool { return store.FromStore(rec) }

// Index stores one fetched and parsed record (ll-index's one-record path).
func (l *Ledger) Index(ctx context.Context, rec *record.Record, opt spec.IndexOptions) (*record.IndexResult, error) {
	return l.st.Index(ctx, rec, opt)
}

// IndexBatch stores records in one transaction (ll-index's batches).
func (l *Ledger) IndexBatch(ctx context.Context, recs []*record.Record, opt spec.IndexOptions) []spec.IndexResult {
	return l.st.IndexBatch(ctx, recs, opt)
}

// MergeIndex merges the full-text index's segments, at most maxPages
// pages of work.
func (l *Ledger) MergeIndex(ctx context.Context, maxPages int) (spec.MergeStats, error) {
	return l.st.MergeIndex(ctx, maxPages)
}

// ImagesToFetch lists the images of item id not stored yet, with how many
// are and their bytes.
func (l *Ledger) ImagesToFetch(ctx context.Context, id string) (missing []record.Image, stored int, bytes int64, err error) {
	return l.st.ImagesToFetch(ctx, id)
}

// PutImages stores fetched images of item id.
func (l *Ledger) PutImages(ctx context.Context, id string, imgs []record.Image) error {
	return l.st.PutImages(ctx, id, imgs)
}

// SaveRecord saves one canonical record as ll-save does (no URL
// resolving: the caller did it).
func (l *Ledger) SaveRecord(ctx context.Context, rec *record.Record, opt spec.SaveOptions) (*record.Record, error) {
	return l.st.Save(ctx, rec, opt)
}

// SaveBatch saves canonical records in one transaction (ll-save --batch).
func (l *Ledger) SaveBatch(ctx context.Context, recs []*record.Record, opt spec.SaveOptions) ([]spec.BatchResult, error) {
	return l.st.SaveBatch(ctx, recs, opt)
}

// Restore writes back one record of linkledger export.
func (l *Ledger) Restore(ctx context.Context, rec *record.Record) (*record.Record, bool, error) {
	return l.st.Restore(ctx, rec)
}

// Search runs a search as the store takes it (ll-find --queries).
func (l *Ledger) Search(ctx context.Context, opt spec.SearchOptions) (*spec.SearchResult, error) {
	return l.st.Search(ctx, opt)
}

// QueueItems lists the items of a fetch queue (ll-find --pending,
// --failed, --stale).
func (l *Ledger) QueueItems(ctx context.Context, opt spec.QueueOptions) ([]*record.Record, error) {
	return l.st.Queue(ctx, opt)
}

// ClaimPending claims up to opt.Limit pending items for this process for
// lease (0: the default lease), so two fetchers never fetch one page.
func (l *Ledger) ClaimPending(ctx context.Context, opt spec.QueueOptions, lease time.Duration) ([]*record.Record, error) {
	return l.st.ClaimPending(ctx, opt, lease)
}

// ItemStatus is item id's ingest state as a record (ll-find --id).
func (l *Ledger) ItemStatus(ctx context.Context, id string) (*record.Record, error) {
	return l.st.Status(ctx, id)
}

// AttachStoredChunks adds item rec.ID's stored chunks (up to maxBytes of
// text) to rec.
func (l *Ledger) AttachStoredChunks(ctx context.Context, rec *record.Record, maxBytes int) error {
	return l.st.AttachStoredChunks(ctx, rec, maxBytes)
}

// MarkRevalidate marks items as due for a re-fetch.
func (l *Ledger) MarkRevalidate(ctx context.Context, ids []string) error {
	return l.st.MarkRevalidate(ctx, ids)
}

// ItemsToEmbed lists up to limit items with chunks lacking vectors of
// model (only ids, when given), after the item id after.
func (l *Ledger) ItemsToEmbed(ctx context.Context, model string, ids []string, after string, limit int) ([]spec.ItemToEmbed, error) {
	return l.st.ItemsToEmbed(ctx, model, ids, after, limit)
}

// PutVectors stores the chunk vectors of one item for model.
func (l *Ledger) PutVectors(ctx context.Context, itemID, model string, vs []spec.ChunkVector) (int, error) {
	return l.st.PutVectors(ctx, itemID, model, vs)
}
