package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"
)

// Backup writes a consistent copy of the database to dest with VACUUM
// INTO: one read transaction, so writers in other processes go on (WAL)
// and the copy is the database as of one moment, compact and without a
// -wal file. The copy is written next to dest and renamed over it, so dest
// is never half written; dest's folder must exist.
func (s *Store) Backup(ctx context.Context, dest string) error {
	dir := filepath.Dir(dest)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("folder %s does not exist", dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(dest)+".*.tmp")
	if err != nil {
		return err
	}
	name := tmp.Name()
	tmp.Close()
	os.Remove(name) // VACUUM INTO wants to create the file itself
	if _, err := s.db.ExecContext(ctx, `VACUUM INTO ?`, name); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, dest); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}

// Problem is one thing Check found wrong.
type Problem struct {
	Check   string `json:"check"`   // integrity, fts, orphans
	Message string `json:"message"` // what is wrong
	Count   int    `json:"count,omitempty"`
	Repair  string `json:"repair"` // how to repair it
}

// Check looks for what can go wrong in a database: SQLite's
// integrity_check, FTS5's own integrity-check of both full-text indexes,
// search rows that disagree with the tables (rows of items or chunks that
// are gone, items and chunks without their row, titles out of date), and
// rows whose item is gone. It returns the problems found (none when the
// database is sound).
func (s *Store) Check(ctx context.Context) ([]Problem, error) {
	var out []Problem
	var lines []string
	if err := s.db.SelectContext(ctx, &lines, "PRAGMA integrity_check(20)"); err != nil {
		return nil, err
	}
	for _, l := range lines {
		if l != "ok" {
			out = append(out, Problem{Check: "integrity", Message: l,
				Repair: "restore the last backup (linkledger backup), or: sqlite3 DB .recover | sqlite3 NEW.db"})
		}
	}
	if len(out) > 0 {
		return out, nil // the rest reads a damaged file
	}
	for _, t := range []string{"search", "search_cjk"} {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('integrity-check', 1)`); err != nil {
			if IsBusy(err) {
				return nil, err
			}
			out = append(out, Problem{Check: "fts", Message: "full-text index " + t + ": " + err.Error(), Repair: "linkledger check --repair (rebuilds the search index)"})
		}
	}
	counts := []struct {
		check, msg, repair, q string
	}{
		{"fts", "search rows of items that are gone", "linkledger check --repair (rebuilds the search index)",
			`SELECT count(*) FROM search WHERE rowid < 0 AND -rowid NOT IN (SELECT seq FROM items)`},
		{"fts", "search rows of chunks that are gone", "linkledger check --repair (rebuilds the search index)",
			`SELECT count(*) FROM search WHERE rowid > 0 AND rowid NOT IN (SELECT id FROM content_chunks)`},
		{"fts", "chunks missing from the search index", "linkledger check --repair (rebuilds the search index)",
			`SELECT count(*) FROM content_chunks c WHERE NOT EXISTS (SELECT 1 FROM search WHERE rowid = c.id)`},
		{"fts", "items with text, annotations or a title missing from the search index", "linkledger check --repair (rebuilds the search index)",
			`SELECT count(*) FROM items i WHERE NOT EXISTS (SELECT 1 FROM search WHERE rowid = -i.seq)
			   AND (i.title != '' OR EXISTS (SELECT 1 FROM annotations a WHERE a.item_id = i.id) OR EXISTS (SELECT 1 FROM content_chunks c WHERE c.item_id = i.id))`},
		{"fts", "items whose title in the search index is out of date", "linkledger check --repair (rebuilds the search index)",
			`SELECT count(*) FROM items i JOIN search s ON s.rowid = -i.seq WHERE s.title != i.title`},
	}
	for _, t := range []string{"annotations", "tags", "content_chunks", "artifacts"} {
		counts = append(counts, struct{ check, msg, repair, q string }{"orphans", t + " rows of items that are gone",
			"linkledger check --repair (deletes them: no item shows them)",
			`SELECT count(*) FROM ` + t + ` WHERE item_id NOT IN (SELECT id FROM items)`})
	}
	for _, c := range counts {
		var n int
		if err := s.db.GetContext(ctx, &n, c.q); err != nil {
			return nil, fmt.Errorf("%s: %w", c.msg, err)
		}
		if n > 0 {
			out = append(out, Problem{Check: c.check, Message: c.msg, Count: n, Repair: c.repair})
		}
	}
	return out, nil
}

// Repair deletes rows whose item is gone and rebuilds both full-text
// indexes from the tables, in one transaction. It returns how many orphan
// rows it deleted and how many items it indexed.
func (s *Store) Repair(ctx context.Context) (orphans, items int, err error) {
	err = s.tx(ctx, func(tx *sqlx.Tx) error {
		orphans, items = 0, 0
		for _, t := range []string{"annotations", "tags", "content_chunks", "artifacts"} {
			r, err := tx.ExecContext(ctx, `DELETE FROM `+t+` WHERE item_id NOT IN (SELECT id FROM items)`)
			if err != nil {
				return err
			}
			n, _ := r.RowsAffected()
			orphans += int(n)
		}
		for _, t := range []string{"search", "search_cjk"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+t); err != nil {
				return err
			}
		}
		var its []struct {
			Seq int64  `db:"seq"`
			ID  string `db:"id"`
		}
		if err := tx.SelectContext(ctx, &its, `SELECT seq, id FROM items ORDER BY seq`); err != nil {
			return err
		}
		for _, it := range its {
			if err := insertFTS(ctx, tx, it.Seq, it.ID); err != nil {
				return err
			}
			items++
		}
		for _, t := range []string{"search", "search_cjk"} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`) VALUES ('optimize')`); err != nil {
				return err
			}
		}
		return nil
	})
	return orphans, items, err
}
