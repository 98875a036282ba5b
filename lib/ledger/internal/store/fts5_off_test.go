//go:build !sqlite_fts5

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// Built without the sqlite_fts5 tag, Open must say so at once.
func TestOpenWithoutFTS5(t *testing.T) {
	t.Parallel()
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "x.db"), Options{})
	if !errors.Is(err, ErrNoFTS5) {
		t.Fatalf("Open without FTS5: %v, want ErrNoFTS5", err)
	}
}
