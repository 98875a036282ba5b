package store

import (
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jmoiron/sqlx"
	sqlite3 "github.com/mattn/go-sqlite3"
)

// TestIsRetryableDiskFull: a write that finds the database full (here its
// page limit, as a full disk gives the same SQLITE_FULL) may succeed later,
// so the failed record says retryable; a constraint failure does not.
func TestIsRetryableDiskFull(t *testing.T) {
	t.Parallel()
	db := sqlx.MustOpen("sqlite3", "file:"+filepath.Join(t.TempDir(), "full.db"))
	defer db.Close()
	db.SetMaxOpenConns(1) // max_page_count is a setting of the connection
	db.MustExec("CREATE TABLE t (v BLOB NOT NULL UNIQUE)")
	db.MustExec("INSERT INTO t VALUES (x'00')")
	var pages int
	if err := db.Get(&pages, "PRAGMA page_count"); err != nil {
		t.Fatal(err)
	}
	db.MustExec("PRAGMA max_page_count = " + strconv.Itoa(pages))
	_, err := db.Exec("INSERT INTO t VALUES (zeroblob(1000000))")
	var se sqlite3.Error
	if !errors.As(err, &se) || se.Code != sqlite3.ErrFull {
		t.Fatalf("insert past the page limit: %v, want SQLITE_FULL", err)
	}
	if !IsRetryable(err) {
		t.Errorf("IsRetryable(%v) = false, want true", err)
	}
	_, err = db.Exec("INSERT INTO t VALUES (x'00')")
	if err == nil || IsRetryable(err) {
		t.Errorf("IsRetryable(constraint failure %v) = true, want false", err)
	}
	if IsRetryable(errors.New("plain")) {
		t.Error("IsRetryable of a non-driver error = true")
	}
}
