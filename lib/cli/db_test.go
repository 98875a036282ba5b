package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
)

func TestLocateDBSource(t *testing.T) {
	root := t.TempDir()
	proj := filepath.Join(root, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".linkledger"), 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, flag string
		vars       map[string]string
		wd         string
		want       DBLocation
	}{
		{"flag", "/x/flag.db", map[string]string{"LINKLEDGER_DB": "/x/env.db"}, root, DBLocation{"/x/flag.db", DBFromFlag}},
		{"env through the flag", "/x/env.db", map[string]string{"LINKLEDGER_DB": "/x/env.db"}, root, DBLocation{"/x/env.db", DBFromEnv}},
		{"env", "", map[string]string{"LINKLEDGER_DB": "/x/env.db"}, root, DBLocation{"/x/env.db", DBFromEnv}},
		{"project", "", map[string]string{"HOME": "/home/u"}, proj, DBLocation{filepath.Join(proj, ".linkledger", "linkledger.db"), DBFromProject}},
		{"default", "", map[string]string{"HOME": "/home/u"}, root, DBLocation{"/home/u/.local/share/linkledger/linkledger.db", DBFromDefault}},
	}
	for _, c := range cases {
		got, err := LocateDB(c.flag, envWith(c.vars, c.wd))
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

// TestOpenReaderWriter checks who creates what: a reader nothing, a
// writer the file, and folders only at the default location.
func TestOpenReaderWriter(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	exitCode := func(err error) int {
		var ee *ExitError
		if errors.As(err, &ee) {
			return ee.Code
		}
		return -1
	}

	missing := DBLocation{Path: filepath.Join(dir, "no", "such", "x.db"), Source: DBFromFlag}
	if _, err := OpenReader(ctx, missing, ledger.OpenOptions{}); exitCode(err) != ExitFatal || !strings.Contains(err.Error(), "no database at "+missing.Path+" (given with --db)") {
		t.Errorf("reader on a missing database: %v", err)
	}
	// a writer creates the missing folders of any location, 0700
	w, err := OpenWriter(ctx, missing, ledger.OpenOptions{})
	if err != nil {
		t.Fatalf("writer in a missing folder: %v", err)
	}
	w.Close()
	for _, d := range []string{filepath.Join(dir, "no"), filepath.Join(dir, "no", "such")} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Errorf("folder %s: %v %v, want mode 0700", d, st, err)
		}
	}
	// a file in the way is an error that names the folder
	blocked := DBLocation{Path: filepath.Join(dir, "x.db", "sub", "y.db"), Source: DBFromEnv}
	if err := os.WriteFile(filepath.Join(dir, "x.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = OpenWriter(ctx, blocked, ledger.OpenOptions{})
	if exitCode(err) != ExitFatal || !strings.Contains(err.Error(), "cannot create its folder "+filepath.Join(dir, "x.db", "sub")+" (given by LINKLEDGER_DB)") {
		t.Errorf("writer with a file in the way: %v", err)
	}
	os.Remove(filepath.Join(dir, "x.db"))

	here := DBLocation{Path: filepath.Join(dir, "x.db"), Source: DBFromEnv}
	if _, err := OpenReader(ctx, here, ledger.OpenOptions{}); exitCode(err) != ExitFatal {
		t.Errorf("reader on a missing file: %v", err)
	}
	if _, err := os.Stat(here.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reader created the file: %v", err)
	}
	st, err := OpenWriter(ctx, here, ledger.OpenOptions{})
	if err != nil {
		t.Fatalf("writer: %v", err)
	}
	st.Close()
	st, err = OpenReader(ctx, here, ledger.OpenOptions{})
	if err != nil {
		t.Fatalf("reader on the new file: %v", err)
	}
	st.Close()

	def := DBLocation{Path: filepath.Join(dir, "data", "linkledger", "linkledger.db"), Source: DBFromDefault}
	st, err = OpenWriter(ctx, def, ledger.OpenOptions{})
	if err != nil {
		t.Fatalf("writer at the default location: %v", err)
	}
	st.Close()
}

// TestOpenWriterModes checks that a writer makes the folders it creates
// 0700 and the database (and its -wal and -shm) 0600 whatever the umask,
// and leaves the mode of a folder the user made alone.
func TestOpenWriterModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mode := func(p string) os.FileMode {
		t.Helper()
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	def := DBLocation{Path: filepath.Join(dir, "data", "linkledger", "linkledger.db"), Source: DBFromDefault}
	st, err := OpenWriter(ctx, def, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// the -wal and -shm files exist while a connection is open
	for _, p := range []string{def.Path, def.Path + "-wal", def.Path + "-shm"} {
		if m := mode(p); m != 0o600 {
			t.Errorf("%s: mode %o, want 600", p, m)
		}
	}
	st.Close()
	for _, p := range []string{filepath.Join(dir, "data"), filepath.Dir(def.Path)} {
		if m := mode(p); m != 0o700 {
			t.Errorf("created folder %s: mode %o, want 700", p, m)
		}
	}
	if m := mode(dir); m != 0o755 {
		t.Errorf("the user's folder %s: mode %o, want 755 (unchanged)", dir, m)
	}
	mine := DBLocation{Path: filepath.Join(dir, "x.db"), Source: DBFromFlag}
	st, err = OpenWriter(ctx, mine, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if m := mode(mine.Path); m != 0o600 {
		t.Errorf("%s: mode %o, want 600", mine.Path, m)
	}
}

// TestOpenNotLedger checks that a foreign SQLite file is refused with the
// file's path and a hint, not wrapped in a second copy of the path.
func TestOpenNotLedger(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "other.db")
	if err := os.WriteFile(p, []byte("not a database, just text that is long enough to hold a header of a hundred bytes......"), 0o600); err != nil {
		t.Fatal(err)
	}
	loc := DBLocation{Path: p, Source: DBFromFlag}
	for name, open := range map[string]func(context.Context, DBLocation, ledger.OpenOptions) (*ledger.Ledger, error){"reader": OpenReader, "writer": OpenWriter} {
		_, err := open(ctx, loc, ledger.OpenOptions{})
		if err == nil || err.Error() != p+" is not a SQLite database" {
			t.Errorf("%s: %v, want %q", name, err, p+" is not a SQLite database")
		}
		var h Hinter
		if !errors.As(err, &h) {
			t.Errorf("%s: no hint", name)
		}
	}
}
