package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/localfile"
)

// Backup writes a consistent copy of the database to dest with VACUUM
// INTO: one read transaction, so writers in other processes go on (WAL)
// and the copy is the database as of one moment, compact and without a
// -wal file. The copy is written to a hidden temporary file next to dest
// (.DEST.N.tmp, with the database file's permissions, locked while it is
// written) and renamed over dest, so dest is never half written; dest's
// folder must exist. The temporary files of earlier backups to dest that
// were killed are removed first (see removeStaleBackups).
func (s *Store) Backup(ctx context.Context, dest string) (*BackupResult, error) {
	dir := filepath.Dir(dest)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("folder %s does not exist", dir)
	}
	// the copy is renamed over dest: never over the live database, its
	// -wal or -shm (by any name: a link too)
	if localfile.Held(dest) {
		return nil, fmt.Errorf("%s %v: name another file", dest, localfile.ErrHeld)
	}
	res := &BackupResult{}
	if err := removeStaleBackups(dest, res); err != nil {
		return nil, err
	}
	perm := fs.FileMode(0o600)
	if fi, err := os.Stat(s.path); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := createLockedTemp(dir, "."+filepath.Base(dest)+".*.tmp", perm)
	if err != nil {
		return nil, err
	}
	name := tmp.Name()
	defer tmp.Close() // the lock lasts until the copy is renamed
	// VACUUM INTO writes into the empty file we hold
	_, err = s.db.ExecContext(ctx, `VACUUM INTO ?`, name)
	if err == nil {
		err = os.Rename(name, dest)
	}
	if err != nil {
		os.Remove(name)
		return nil, err
	}
	return res, nil
}

// freshBackup is how long an empty temporary file is taken for a backup
// that is starting: between creating its file and locking it, a running
// backup's file is empty and unlocked.
const freshBackup = time.Minute

// errBackupLocked says another process holds a backup's temporary file.
var errBackupLocked = errors.New("held by another backup")

// createLockedTemp creates a new empty file in dir (os.CreateTemp's
// pattern) with permissions perm and locks it. Another backup's cleanup
// may take a file between its creation and its lock: then it is left to
// that cleanup and another name is tried.
func createLockedTemp(dir, pattern string, perm fs.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		if err := f.Chmod(perm); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		err = lockBackup(f)
		if err == nil {
			fi, err1 := f.Stat()
			li, err2 := os.Lstat(f.Name())
			if err1 == nil && err2 == nil && os.SameFile(fi, li) {
				return f, nil
			}
		}
		f.Close()
		if try == 5 {
			return nil, fmt.Errorf("cannot lock a temporary file in %s: %v", dir, err)
		}
	}
}

// removeStaleBackups removes the temporary files killed backups to dest
// left beside it: only names of Backup's own pattern (.DEST.DIGITS.tmp,
// and the rollback journal SQLite keeps beside it, .DEST.DIGITS.tmp-journal),
// only regular files (never a link or a folder), and only when no running
// backup holds the file's lock (it is taken, and the name checked to be
// still that file, before the file is removed) and it is not an empty
// file of the last minute (a backup starting). A journal goes when its
// temporary file is gone.
func removeStaleBackups(dest string, res *BackupResult) error {
	dir, base := filepath.Dir(dest), filepath.Base(dest)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	prefix := "." + base + "."
	var journals []string
	for _, e := range ents {
		name := e.Name()
		mid, ok := strings.CutPrefix(name, prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		digits, journal := strings.CutSuffix(mid, ".tmp-journal")
		if !journal {
			if digits, ok = strings.CutSuffix(mid, ".tmp"); !ok {
				continue
			}
		}
		if digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		path := filepath.Join(dir, name)
		if journal {
			journals = append(journals, path)
			continue
		}
		if err := removeIfStale(path, res, true); err != nil {
			return fmt.Errorf("removing %s, left by a killed backup: %w", name, err)
		}
	}
	for _, path := range journals {
		if _, err := os.Lstat(strings.TrimSuffix(path, "-journal")); !errors.Is(err, fs.ErrNotExist) {
			continue // its backup may be running
		}
		if err := removeIfStale(path, res, false); err != nil {
			return fmt.Errorf("removing %s, left by a killed backup: %w", filepath.Base(path), err)
		}
	}
	return nil
}

// removeIfStale removes the regular file at path, when lock is set only
// if no backup holds it, and adds it to res.
func removeIfStale(path string, res *BackupResult, lock bool) error {
	li, err := os.Lstat(path)
	if err != nil || !li.Mode().IsRegular() {
		return nil // gone, or not a file of ours
	}
	if lock && li.Size() == 0 && time.Since(li.ModTime()) < freshBackup {
		// a backup that has just created its file and not yet locked it
		return nil
	}
	if localfile.Held(path) {
		return nil // a database of this process's, named like a backup's file
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil
	}
	defer localfile.CloseUnlessHeld(f)
	if fi, err := f.Stat(); err != nil || !os.SameFile(li, fi) {
		return nil // replaced since the Lstat
	}
	if lock && !staleBackup(f) {
		return nil // a running backup's
	}
	// the name must still be the file we hold
	if li2, err := os.Lstat(path); err != nil || !os.SameFile(li, li2) {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	res.Removed = append(res.Removed, path)
	res.RemovedBytes += li.Size()
	return nil
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
	sizes, err := s.VectorSizes(ctx)
	if err != nil {
		return nil, fmt.Errorf("vector sizes: %w", err)
	}
	models := make([]string, 0, len(sizes))
	for m := range sizes {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		// a model's vectors of several sizes: a search ranks only those of
		// its query's size (stored before sizes were checked, or while
		// embed --resize is under way)
		dims := make([]int, 0, len(sizes[m]))
		n := 0
		for d, k := range sizes[m] {
			dims = append(dims, d)
			n += k
		}
		sort.Ints(dims)
		parts := make([]string, len(dims))
		for i, d := range dims {
			parts[i] = fmt.Sprintf("%d chunks of %d", sizes[m][d], d)
		}
		out = append(out, Problem{Check: "vectors", Count: n,
			Message: fmt.Sprintf("model %s has vectors of %d sizes (%s dimensions): a search ranks only those of its query's size", m, len(dims), strings.Join(parts, ", ")),
			Repair:  fmt.Sprintf("linkledger embed --all --resize with the endpoint of model %s configured (embeds again every chunk whose vector is not of the size the endpoint answers now)", m)})
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
