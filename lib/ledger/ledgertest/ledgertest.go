// Package ledgertest holds fixtures for the tests of the packages over
// lib/ledger (the faces, the filters, e2e): a ledger seeded with items
// and their vectors, and a look at the database's rows where no command
// shows them. Only _test files import it (lib/internal's
// TestTestHelpersNotShipped checks), so no binary links it.
package ledgertest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
)

// Open opens (creating) a ledger in a fresh folder of t, closed when the
// test ends.
func Open(t testing.TB, opt ledger.OpenOptions) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// DB is the database at path opened as the store opens it (migrated,
// with its SQL functions), for a test that reads rows no command shows
// (the event journal, full-text rows). close closes it.
func DB(ctx context.Context, path string) (db *sqlx.DB, close func() error, err error) {
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return nil, nil, err
	}
	return st.DB(), st.Close, nil
}

// IntegrityCheck is SQLite's integrity check of the database at path and
// of its full-text index ("ok" when sound).
func IntegrityCheck(ctx context.Context, path string) (string, error) {
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		return "", err
	}
	defer st.Close()
	return st.IntegrityCheck(ctx)
}
