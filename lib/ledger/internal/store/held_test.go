package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestReopenKeepsLocks checks that a process holding a store keeps its
// SQLite locks when it opens the same database again and closes that
// second store (the background worker of linkledger ui and mcp does so
// each pass; issue 27): another process that opens, reads and closes the
// database, as any SQLite client does,
// must then find the first store's locks and leave its -wal in place.
// Before the fix the second open read the file's header with a
// descriptor of its own; closing it dropped every fcntl lock of the
// process on the file, and the other process's close checkpointed and
// unlinked the live -wal.
//
// The other process is python3's sqlite3 module (skipped without
// python3): a client whose close checkpoints and deletes the WAL when it
// can take the exclusive lock.
func TestReopenKeepsLocks(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is the other SQLite client")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"writer", Options{}},
		{"reader", Options{MustExist: true}},
		{"read-only", Options{ReadOnly: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "ll.db")
			s, err := Open(ctx, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.DB().ExecContext(ctx, `CREATE TABLE t27(x); INSERT INTO t27 VALUES (1)`); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				s2, err := Open(ctx, p, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				var n int
				if err := s2.DB().GetContext(ctx, &n, `SELECT count(*) FROM t27`); err != nil || n != 1 {
					t.Fatalf("second store reads %d rows (%v), want 1", n, err)
				}
				s2.Close()
			}
			wal := p + "-wal"
			before, err := os.Stat(wal)
			if err != nil {
				t.Fatalf("no -wal while the store is open: %v", err)
			}
			cmd := exec.Command(python, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM t27').fetchone(); c.close()", p)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("the other process: %v: %s", err, out)
			}
			after, err := os.Stat(wal)
			if err != nil {
				t.Fatalf("the other process's close removed the live -wal: %v", err)
			}
			if !os.SameFile(before, after) {
				t.Fatal("the other process's close replaced the live -wal")
			}
			if _, err := s.DB().ExecContext(ctx, `INSERT INTO t27 VALUES (2)`); err != nil {
				t.Fatalf("write after the other process: %v", err)
			}
			s.Close()
			// every write is in the file once the last store is closed
			s3, err := Open(ctx, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s3.Close()
			var n int
			if err := s3.DB().GetContext(ctx, &n, `SELECT count(*) FROM t27`); err != nil || n != 2 {
				t.Fatalf("%d rows after reopening (%v), want 2", n, err)
			}
		})
	}
}

// TestBackupRefusesHeldFiles checks that a backup is never renamed over
// the live database's -wal (by its name or a link to it): that would
// replace the file the store writes into.
func TestBackupRefusesHeldFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "ll.db")
	s, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE t27(x); INSERT INTO t27 VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "innocent.db")
	if err := os.Symlink(p+"-wal", link); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(p + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{p + "-wal", p + "-shm", link} {
		if _, err := s.Backup(ctx, dest); err == nil {
			t.Errorf("backup to %s succeeded", filepath.Base(dest))
		}
	}
	after, err := os.Stat(p + "-wal")
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("the -wal was replaced (%v)", err)
	}
	if _, err := s.Backup(ctx, filepath.Join(dir, "copy.db")); err != nil {
		t.Fatalf("backup to another file: %v", err)
	}
}
