package store

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
)

// Annotation ids are never reused. The annotations table's id is a plain
// INTEGER PRIMARY KEY, for which SQLite picks one more than the largest
// id in the table: once the newest annotation was deleted (removed,
// merged into another, displaced, replaced, or gone with its item), the
// next one got its id, and a history or an agent holding the old id
// named a different annotation (issue 30, seen after a merge). Changing
// the column to AUTOINCREMENT needs the table rebuilt; instead the
// highest id ever given is kept in the settings table under
// settingAnnotationIDHigh and every new annotation gets one more than it
// (and than any id in the table).
const settingAnnotationIDHigh = "annotation_id_high"

// nextAnnotationID returns the id for a new annotation and records it as
// the highest given, in tx. A ledger from before this rule has no record:
// the highest id its history names (every annotation's created event, and
// the events of its removal or merge, name it) is the start.
func (s *Store) nextAnnotationID(ctx context.Context, tx dbtx) (int64, error) {
	high, err := s.annotationIDHigh(ctx, tx)
	if err != nil {
		return 0, err
	}
	var inTable int64
	if err := tx.GetContext(ctx, &inTable, `SELECT coalesce(max(id), 0) FROM annotations`); err != nil {
		return 0, err
	}
	id := max(high, inTable) + 1
	return id, s.noteAnnotationID(ctx, tx, id)
}

// annotationIDHigh is the highest annotation id ever given.
func (s *Store) annotationIDHigh(ctx context.Context, tx dbtx) (int64, error) {
	var v string
	err := tx.GetContext(ctx, &v, `SELECT value FROM settings WHERE key = ?`, settingAnnotationIDHigh)
	if err == nil {
		n, perr := strconv.ParseInt(v, 10, 64)
		if perr == nil && n >= 0 {
			return n, nil
		}
	} else if !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	// no record yet (or one that does not read): from the history, once
	var high int64
	err = tx.GetContext(ctx, &high, `SELECT coalesce(max(CAST(entity_id AS INTEGER)), 0) FROM events
		WHERE entity = 'annotation' AND entity_id GLOB '[0-9]*'`)
	return high, err
}

// noteAnnotationID records id as given: the highest given becomes id when
// it is higher.
func (s *Store) noteAnnotationID(ctx context.Context, tx dbtx, id int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO settings(key, value, updated_at, updated_by) VALUES (?,?,?,'linkledger')
		ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
		WHERE CAST(settings.value AS INTEGER) < CAST(excluded.value AS INTEGER)`,
		settingAnnotationIDHigh, strconv.FormatInt(id, 10), s.nowString())
	return err
}
