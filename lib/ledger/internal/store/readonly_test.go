package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestReaderFallback checks the order in which a reader gives up
// writing: read-write, then read-only, then immutable, and only on errors
// about opening or writing.
func TestReaderFallback(t *testing.T) {
	t.Parallel()
	cantOpen := sqlite3.Error{Code: sqlite3.ErrCantOpen}
	cases := []struct {
		name     string
		in       Options
		err      error
		want     Options
		fallBack bool
	}{
		{"rw to ro", Options{MustExist: true}, cantOpen, Options{MustExist: true, ReadOnly: true}, true},
		{"ro to immutable", Options{ReadOnly: true}, sqlite3.Error{Code: sqlite3.ErrReadonly}, Options{ReadOnly: true, immutable: true}, true},
		{"immutable is the end", Options{ReadOnly: true, immutable: true}, cantOpen, Options{ReadOnly: true, immutable: true}, false},
		{"busy is no reason", Options{MustExist: true}, sqlite3.Error{Code: sqlite3.ErrBusy}, Options{MustExist: true}, false},
		{"not a database is no reason", Options{MustExist: true}, sqlite3.Error{Code: sqlite3.ErrNotADB}, Options{MustExist: true}, false},
		{"other errors are no reason", Options{MustExist: true}, errors.New("x"), Options{MustExist: true}, false},
	}
	for _, c := range cases {
		got, ok := readerFallback(c.in, c.err)
		if ok != c.fallBack || got.ReadOnly != c.want.ReadOnly || got.immutable != c.want.immutable || got.MustExist != c.want.MustExist {
			t.Errorf("%s: got %+v, %v; want %+v, %v", c.name, got, ok, c.want, c.fallBack)
		}
	}
}

// newLedger creates a linkledger database with one saved item and
// returns its path; the store is closed, so no -wal or -shm file is left.
func newLedger(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "x.db")
	s, err := Open(context.Background(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.DB().MustExec(`INSERT INTO items (id, canonical_url, original_url, source_type, saved_at, updated_at) VALUES ('a', 'https://example.com/', 'https://example.com/', 'article', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`)
	s.Close()
	for _, ext := range []string{"-wal", "-shm"} {
		if _, err := os.Stat(p + ext); err == nil {
			t.Fatalf("%s left after Close", ext)
		}
	}
	return p
}

// readOne opens p as a reader and reads the item back.
func readOne(t *testing.T, p string) {
	t.Helper()
	s, err := Open(context.Background(), p, Options{MustExist: true})
	if err != nil {
		t.Fatalf("reader open: %v", err)
	}
	defer s.Close()
	var n int
	if err := s.DB().Get(&n, "SELECT count(*) FROM items"); err != nil || n != 1 {
		t.Fatalf("read %d items, %v; want 1", n, err)
	}
}

// TestReaderNoShm checks that a reader opens a WAL database whose -shm
// file cannot be made, as in a read-only folder. Root ignores folder
// permissions, so a dangling symbolic link in the -shm file's place
// stands in for one: SQLite opens the -shm with O_NOFOLLOW, so it cannot
// make one there, read-write or read-only, even as root.
func TestReaderNoShm(t *testing.T) {
	t.Parallel()
	p := newLedger(t, t.TempDir())
	if err := os.Symlink("nowhere", p+"-shm"); err != nil {
		t.Fatal(err)
	}
	readOne(t, p)
	// the fallback is for readers only: a writer reports the failure
	if s, err := Open(context.Background(), p, Options{}); err == nil {
		s.Close()
		t.Error("writer opened a database whose -shm cannot be made")
	}
}

// TestReaderReadOnlyFolder checks a reader in a folder it may not write
// (skipped as root, for whom folder permissions do not apply).
func TestReaderReadOnlyFolder(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders (TestReaderNoShm covers the fallback)")
	}
	dir := t.TempDir()
	p := newLedger(t, dir)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	readOne(t, p)
}
