package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"
)

// plainDB creates a SQLite file at path with sqls run on a connection
// that sets nothing (rollback journal, no linkledger schema).
func plainDB(t *testing.T, path string, sqls ...string) {
	t.Helper()
	db, err := sqlx.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range sqls {
		db.MustExec(q)
	}
}

// TestOpenIdentity checks which files Open adopts and which it refuses,
// for a writer and a reader, and that a refused file is left as it was.
func TestOpenIdentity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	type want int
	const (
		ok want = iota
		notSQLite
		notLedger
	)
	cases := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  want
	}{
		{"empty file", func(t *testing.T, p string) { os.WriteFile(p, nil, 0o600) }, ok},
		{"text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("hello, this is not a database\n"), 0o600) }, notSQLite},
		{"short text file", func(t *testing.T, p string) { os.WriteFile(p, []byte("x"), 0o600) }, notSQLite},
		{"other application's tables", func(t *testing.T, p string) {
			plainDB(t, p, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes (body) VALUES ('keep me')")
		}, notLedger},
		{"other application's id", func(t *testing.T, p string) {
			plainDB(t, p, "PRAGMA application_id = 42", "CREATE TABLE t (x)")
		}, notLedger},
		{"other application's id, no tables", func(t *testing.T, p string) {
			plainDB(t, p, "PRAGMA application_id = 42")
		}, notLedger},
		{"a table called items only", func(t *testing.T, p string) {
			plainDB(t, p, "CREATE TABLE items (id TEXT)", "PRAGMA user_version = 3")
		}, notLedger},
		{"linkledger tables but user_version 0", func(t *testing.T, p string) {
			plainDB(t, p, "CREATE TABLE items (x)", "CREATE TABLE content_chunks (x)", "CREATE TABLE annotations (x)", "CREATE TABLE tags (x)", "CREATE TABLE events (x)")
		}, notLedger},
		{"linkledger database from before application_id", func(t *testing.T, p string) {
			s, err := Open(ctx, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// as migration 0006 left it: no application_id, and none of
			// the tables of later migrations (0008: packs, citations;
			// 0009: annotation review columns; 0010: artifact detail and
			// enrich error columns; 0011: quote anchors; 0012: tag review,
			// settings)
			s.DB().MustExec("PRAGMA application_id = 0")
			s.DB().MustExec("DROP INDEX annotations_orphaned; ALTER TABLE annotations DROP COLUMN orphaned_at; ALTER TABLE annotations DROP COLUMN quote_suffix; ALTER TABLE annotations DROP COLUMN quote_prefix")
			s.DB().MustExec("DROP TABLE citations; DROP TABLE pack_versions; DROP TABLE packs")
			s.DB().MustExec("DROP INDEX annotations_review; ALTER TABLE annotations DROP COLUMN reviewed_by; ALTER TABLE annotations DROP COLUMN reviewed_at; ALTER TABLE annotations DROP COLUMN review")
			s.DB().MustExec("ALTER TABLE artifacts DROP COLUMN detail_json; ALTER TABLE items DROP COLUMN enrich_error_json")
			s.DB().MustExec("DROP INDEX tags_review; ALTER TABLE tags DROP COLUMN reviewed_by; ALTER TABLE tags DROP COLUMN reviewed_at; ALTER TABLE tags DROP COLUMN review; DROP TABLE tags_rejected; DROP TABLE settings")
			s.DB().MustExec("DROP TABLE vector_code_blocks; DROP TABLE item_vector_codes; DROP TABLE chunk_vectors; ALTER TABLE items DROP COLUMN embed_error_json")
			s.DB().MustExec("PRAGMA user_version = 6")
			s.Close()
		}, ok},
		{"current linkledger database", func(t *testing.T, p string) {
			s, err := Open(ctx, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
		}, ok},
	}
	for _, c := range cases {
		for _, reader := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reader=%v", c.name, reader), func(t *testing.T) {
				p := filepath.Join(t.TempDir(), "x.db")
				c.setup(t, p)
				before, _ := os.ReadFile(p)
				s, err := Open(ctx, p, Options{MustExist: reader})
				var nl *NotLedgerError
				switch c.want {
				case ok:
					if err != nil {
						t.Fatalf("Open: %v", err)
					}
					var id uint32
					s.DB().Get(&id, "PRAGMA application_id")
					s.Close()
					if id != ApplicationID {
						t.Errorf("application_id %#x after Open, want %#x", id, ApplicationID)
					}
					return
				case notSQLite:
					if !errors.As(err, &nl) || nl.SQLite || err.Error() != p+" is not a SQLite database" {
						t.Fatalf("Open: %v, want %s is not a SQLite database", err, p)
					}
				case notLedger:
					if !errors.As(err, &nl) || !nl.SQLite {
						t.Fatalf("Open: %v, want a NotLedgerError", err)
					}
					if want := p + " is a SQLite database but not a linkledger one"; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
						t.Errorf("message %q, want it to start with %q", err, want)
					}
				}
				if s != nil {
					s.Close()
				}
				after, _ := os.ReadFile(p)
				if string(before) != string(after) {
					t.Error("Open changed a file it refused")
				}
				for _, ext := range []string{"-wal", "-shm"} {
					if _, err := os.Stat(p + ext); err == nil {
						t.Errorf("Open left a %s file next to a file it refused", ext)
					}
				}
			})
		}
	}
}

// TestReadOnlyOpenWritesNoApplicationID checks that a ReadOnly open of a
// linkledger database from before application_id adopts it without
// writing (its schema is then one version behind: the usual message).
func TestReadOnlyOpenWritesNoApplicationID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), "x.db")
	s, err := Open(ctx, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.DB().MustExec("PRAGMA application_id = 0")
	s.DB().MustExec(fmt.Sprintf("PRAGMA user_version = %d", SchemaVersion()-1))
	s.Close()
	_, err = Open(ctx, p, Options{ReadOnly: true})
	var nl *NotLedgerError
	if err == nil || errors.As(err, &nl) {
		t.Fatalf("ReadOnly open of an old schema: %v, want the schema version error", err)
	}
	db := sqlx.MustOpen("sqlite3", "file:"+p+"?mode=ro")
	defer db.Close()
	var id uint32
	db.Get(&id, "PRAGMA application_id")
	if id != 0 {
		t.Errorf("a read-only open wrote application_id %#x", id)
	}
}
