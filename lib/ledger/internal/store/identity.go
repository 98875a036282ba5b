package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"

	"github.com/jmoiron/sqlx"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/linkledger/linkledger/lib/localfile"
)

// ledgerTables are tables every linkledger schema has had since 0001: a
// file with application_id 0 that has them all (and a user_version) is a
// linkledger database from before ApplicationID, adopted by migration 0007.
var ledgerTables = []string{"items", "content_chunks", "annotations", "tags", "events"}

var sqliteMagic = []byte("SQLite format 3\x00")

// identify checks that path is empty, missing, or a linkledger database
// before any connection that could change it (the DSN's WAL switch,
// migrations) opens it. It reads the header first: linkledger's
// application_id there settles it without a query. Otherwise it asks
// SQLite through a read-only connection (the header may be stale while a
// WAL holds newer pages). readOnly and immutable choose that
// connection's DSN as for the store's own (see Open).
//
// A file this process already holds open (localfile.Held) was identified
// when it was first opened: it is not read again, for closing the
// descriptor of that read would drop the process's SQLite locks on it.
func identify(ctx context.Context, path string, opts Options) error {
	head := make([]byte, 100)
	var n int
	held, err := localfile.Unheld(path, func() (err error) {
		n, err = readHead(path, head)
		return err
	})
	if held {
		return nil
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Op == "open" {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	switch {
	case n == 0:
		return nil // an empty file is an empty database (or one being created)
	case n == len(head) && bytes.Equal(head[:16], sqliteMagic) && binary.BigEndian.Uint32(head[68:72]) == ApplicationID:
		return nil
	case !bytes.HasPrefix(head[:n], sqliteMagic[:min(n, 16)]):
		return &NotLedgerError{Path: path}
	}
	ro := opts
	ro.ReadOnly = true
	db, err := sqlx.Open("sqlite3", dsn(path, ro))
	if err != nil {
		return err
	}
	defer db.Close()
	var id struct {
		AppID   uint32 `db:"application_id"`
		Version int    `db:"user_version"`
		Tables  int    `db:"tables"`
		Ledger  int    `db:"ledger"`
	}
	q := `SELECT (SELECT application_id FROM pragma_application_id) AS application_id,
		(SELECT user_version FROM pragma_user_version) AS user_version,
		(SELECT count(*) FROM sqlite_master) AS tables,
		(SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN (?, ?, ?, ?, ?)) AS ledger`
	args := make([]any, len(ledgerTables))
	for i, t := range ledgerTables {
		args[i] = t
	}
	if err := db.GetContext(ctx, &id, q, args...); err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrNotADB {
			return &NotLedgerError{Path: path}
		}
		return err
	}
	switch {
	case id.AppID == ApplicationID:
		return nil
	case id.AppID != 0:
		return &NotLedgerError{Path: path, SQLite: true, AppID: id.AppID}
	case id.Tables == 0 && id.Version == 0:
		return nil // empty: a new database
	case id.Ledger == len(ledgerTables) && id.Version > 0:
		return nil // linkledger from before application_id: 0007 adopts it
	}
	return &NotLedgerError{Path: path, SQLite: true}
}
