package ledger

import (
	"context"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
)

// Ledger is an open ledger: the service layer as methods over one store.
// Nothing outside lib/ledger reaches the store (TestOneDoor).
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

// wrap wraps a store the caller opened (and closes, with Close or
// itself): for lib/ledger's own code and tests.
func wrap(st *store.Store) *Ledger { return &Ledger{st: st} }

// Close closes the store.
func (l *Ledger) Close() error { return l.st.Close() }

// Path is the database file.
func (l *Ledger) Path() string { return l.st.Path() }

// firstResolve is the optional ResolveOptions of a method.
func firstResolve(ro []ResolveOptions) ResolveOptions {
	if len(ro) > 0 {
		return ro[0]
	}
	return ResolveOptions{}
}
