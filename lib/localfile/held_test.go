package localfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestHeld checks which names Held counts as a held database: the file,
// a link to it, the -wal and -shm beside it (and links to those), until
// every hold is released; and that Open refuses them before opening.
func TestHeld(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	for _, p := range []string{db, db + "-wal", db + "-shm", filepath.Join(dir, "other.db")} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(db, filepath.Join(dir, "link.db")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(db+"-wal", filepath.Join(dir, "wal-link")); err != nil {
		t.Fatal(err)
	}
	names := []string{"ll.db", "link.db", "ll.db-wal", "ll.db-shm", "ll.db-journal", "wal-link"}
	for _, n := range names {
		if Held(filepath.Join(dir, n)) {
			t.Errorf("%s held before any Hold", n)
		}
	}
	r1 := Hold(db)
	r2 := Hold(filepath.Join(dir, "link.db"))
	for _, n := range names {
		if !Held(filepath.Join(dir, n)) {
			t.Errorf("%s not held", n)
		}
	}
	if Held(filepath.Join(dir, "other.db")) {
		t.Error("another file is held")
	}
	for _, n := range []string{"ll.db", "wal-link"} {
		if _, err := ReadFile(filepath.Join(dir, n), 100); !errors.Is(err, ErrHeld) {
			t.Errorf("ReadFile(%s): %v, want ErrHeld", n, err)
		}
	}
	if held, _ := Unheld(db, func() error { t.Error("Unheld ran fn on a held file"); return nil }); !held {
		t.Error("Unheld: not held")
	}
	r1()
	r1() // a second call does nothing
	if !Held(db) {
		t.Error("released while a second hold remains")
	}
	r2()
	for _, n := range names {
		if Held(filepath.Join(dir, n)) {
			t.Errorf("%s still held after release", n)
		}
	}
	if b, err := ReadFile(db, 100); err != nil || string(b) != "x" {
		t.Errorf("ReadFile after release: %q, %v", b, err)
	}
}
