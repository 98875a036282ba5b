package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenCreatesNoFolder checks that Open never creates a folder, and
// with MustExist not even the file.
func TestOpenCreatesNoFolder(t *testing.T) {
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
