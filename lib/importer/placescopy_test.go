package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPlacesCopyPID reads the pid only from names of our exact pattern.
func TestPlacesCopyPID(t *testing.T) {
	for _, tc := range []struct {
		name string
		pid  int
		ok   bool
	}{
		{"ll-import-places-1234-987654", 1234, true},
		{"ll-import-places-1-2", 1, true},
		{"ll-import-places-987654", 0, false}, // an older linkledger's: no pid
		{"ll-import-places-12x-9", 0, false},
		{"ll-import-places-12-9x", 0, false},
		{"ll-import-places--9", 0, false},
		{"ll-import-places-0-9", 0, false},
		{"ll-import-places-99999999999999999999999-1", 0, false},
		{"xll-import-places-12-9", 0, false},
		{"ll-import-places-12-", 0, false},
	} {
		pid, ok := placesCopyPID(tc.name)
		if pid != tc.pid || ok != tc.ok {
			t.Errorf("placesCopyPID(%q) = %d, %v; want %d, %v", tc.name, pid, ok, tc.pid, tc.ok)
		}
	}
}

// TestRemoveStaleCopiesLinks leaves a link named as ours alone, and what
// it points to.
func TestRemoveStaleCopiesLinks(t *testing.T) {
	tmp := t.TempDir()
	target := filepath.Join(tmp, "target")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "places.sqlite"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// a pid no process can have (over Linux's pid_max)
	link := filepath.Join(tmp, "ll-import-places-2147483000-1")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(tmp, "ll-import-places-2147483001-1")
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(target, "places.sqlite"), filepath.Join(dead, "places.sqlite")); err != nil {
		t.Fatal(err)
	}
	var said []string
	removeStaleCopies(tmp, func(m string) { said = append(said, m) })
	for _, p := range []string{link, dead, filepath.Join(target, "places.sqlite")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	if len(said) != 0 {
		t.Errorf("said %q", said)
	}
	// a real one of a dead pid goes
	if err := os.Remove(filepath.Join(dead, "places.sqlite")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "places.sqlite-wal"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	removeStaleCopies(tmp, func(m string) { said = append(said, m) })
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("%s left: %v", dead, err)
	}
	if len(said) != 1 {
		t.Errorf("said %q, want one notice", said)
	}
}
