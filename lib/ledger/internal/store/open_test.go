package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenCreatesNoFolder checks that Open never creates a folder, and
// with MustExist not even the file.
func TestOpenCreatesNoFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "x.db")
	if _, err := Open(ctx, p, Options{MustExist: true}); !errors.Is(err, ErrNoDatabase) {
		t.Errorf("MustExist on a missing file: %v, want ErrNoDatabase", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("MustExist created the file: %v", err)
	}
	deep := filepath.Join(dir, "a", "b", "x.db")
	if _, err := Open(ctx, deep, Options{}); err == nil {
		t.Error("Open in a missing folder succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open created a folder: %v", err)
	}
	s, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, p, Options{MustExist: true})
	if err != nil {
		t.Fatalf("MustExist on an existing file: %v", err)
	}
	s.Close()
}

// TestBulkCacheSize checks that Options.Bulk gives every connection of
// the pool the bulk page cache, and that a store without it keeps
// SQLite's default.
func TestBulkCacheSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		bulk bool
		want int
	}{{false, -2000}, {true, -BulkCacheKiB}} {
		s, err := Open(ctx, filepath.Join(t.TempDir(), "x.db"), Options{Bulk: tc.bulk})
		if err != nil {
			t.Fatal(err)
		}
		// two connections at once: the setting is in the DSN, not set
		// on one connection
		c1, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		c2, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range []interface {
			QueryRowContext(context.Context, string, ...any) *sql.Row
		}{c1, c2} {
			var got int
			if err := c.QueryRowContext(ctx, `PRAGMA cache_size`).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Bulk %v, connection %d: cache_size %d, want %d", tc.bulk, i+1, got, tc.want)
			}
		}
		c1.Close()
		c2.Close()
		s.Close()
	}
}
