package ledger

import (
	"context"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// The rest of the service layer as methods of Ledger, and the store's
// names a face needs (limits, errors, filters), so that no face (the
// linkledger commands, the MCP server, the web app) imports lib/store:
// their dependency tests check (docs/cli.md, "Three faces").

// IsBusy reports whether err is SQLite's "database is locked" (another
// process held the write lock longer than the busy timeout).
func IsBusy(err error) bool { return store.IsBusy(err) }

// storeOptions are opt as the store's options.
func (opt OpenOptions) storeOptions() store.Options {
	return store.Options{BusyTimeout: opt.BusyTimeout, MustExist: opt.MustExist, ReadOnly: opt.ReadOnly, PagePool: opt.PagePool,
		MemorySubjournal: opt.BulkImports, Bulk: opt.Bulk, ReadPolicies: opt.ReadPolicies, Now: opt.Now}
}

// Now is the store's clock (UTC, to the second).
func (l *Ledger) Now() time.Time { return l.st.Now() }

// ItemCount is the number of items.
func (l *Ledger) ItemCount(ctx context.Context) (int, error) { return l.st.CountItems(ctx) }

// Recent lists the newest saved items (at most limit), as find with no
// query does.
func (l *Ledger) Recent(ctx context.Context, limit int) ([]*record.Record, error) {
	res, err := l.st.Recent(ctx, spec.SearchOptions{Limit: limit})
	if err != nil {
		return nil, err
	}
	return res.Hits, nil
}

// TagCounts is every tag with how many items carry it.
func (l *Ledger) TagCounts(ctx context.Context) ([]record.TagCount, error) {
	return l.st.TagCounts(ctx)
}

// AllowedFiles is every local file the user named on ll-save's command
// line: the only files ll-fetch may read.
func (l *Ledger) AllowedFiles(ctx context.Context) ([]string, error) {
	return l.st.AllowedFiles(ctx)
}

// StoredChunks is the item id as a record for ll-enrich: its metadata and
// stored chunks (up to maxBytes of text). With no chunks stored, status
// says why (the item's ingest status).
func (l *Ledger) StoredChunks(ctx context.Context, id string, maxBytes int) (rec *record.Record, status string, err error) {
	it, err := l.st.Status(ctx, id)
	if err != nil {
		return nil, "", err
	}
	rec = &record.Record{ID: it.ID, URL: it.URL, CanonicalURL: it.CanonicalURL, SourceType: it.SourceType, Title: it.Title, Lang: it.Lang}
	if err := l.st.AttachStoredChunks(ctx, rec, maxBytes); err != nil {
		return nil, "", err
	}
	if len(rec.Chunks) == 0 {
		status = Ingest(it).Status
	}
	return rec, status, nil
}

// ExportIDs lists the ids of the items f lets through, in export order.
func (l *Ledger) ExportIDs(ctx context.Context, f spec.Filter) ([]string, error) {
	return l.st.ExportIDs(ctx, f)
}

// Export is the item id as linkledger export writes it (with its text
// when text); spec.ErrNotFound when it was deleted.
func (l *Ledger) Export(ctx context.Context, id string, text bool) (*record.Record, error) {
	return l.st.Export(ctx, id, text)
}

// ShowID is the item id as show prints it (no resolving of a URL;
// spec.ErrNotFound when there is none), with its text and structured document
// as opt asks.
func (l *Ledger) ShowID(ctx context.Context, id string, opt ShowOptions) (*record.Record, error) {
	return l.st.Show(ctx, id, store.ShowOptions{Text: opt.Text, Markdown: opt.Markdown})
}

// Backup writes a consistent copy of the database to dest.
func (l *Ledger) Backup(ctx context.Context, dest string) (*spec.BackupResult, error) {
	return l.st.Backup(ctx, dest)
}

// Check lists what is wrong with the database (nothing: none).
func (l *Ledger) Check(ctx context.Context) ([]spec.Problem, error) { return l.st.Check(ctx) }

// Repair rebuilds the search index and deletes orphan rows.
func (l *Ledger) Repair(ctx context.Context) (orphans, items int, err error) {
	return l.st.Repair(ctx)
}

// CountClaimable is how many pending items no other ingest loop holds a
// live claim on (store.CountClaimable): what the next claiming pass takes.
func (l *Ledger) CountClaimable(ctx context.Context, maxAttempts int) (int, error) {
	return l.st.CountClaimable(ctx, maxAttempts)
}

// ResolveDecayOptions is the policy o gives on this ledger, over the
// stored one.
func (l *Ledger) ResolveDecayOptions(ctx context.Context, o DecayOptions) (spec.DecayPolicy, error) {
	return o.resolve(ctx, l.st)
}

// StoredEmbed is the stored embeddings endpoint (stored nil: none); it
// makes a Ledger a cli.EmbedSettings.
func (l *Ledger) StoredEmbed(ctx context.Context) (embed.Endpoint, *spec.StoredSetting, error) {
	return l.st.StoredEmbed(ctx)
}

// Image is the stored copy of the item's image at position n (1, 2, ...
// in record.Images): its media type (PNG, JPEG, GIF, WebP or AVIF, known
// by its bytes when it was fetched) and bytes. spec.ErrNoImage when the item
// has no stored copy there.
func (l *Ledger) Image(ctx context.Context, id string, n int) (string, []byte, error) {
	return l.st.Image(ctx, id, n)
}
