package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// A person's reading state of an item (table item_reading, migration
// 0019; docs/ui.md "The library"): starred, read, and how far it was
// read. Starring and marking read or unread are journalled like tags (an
// event each, when something changed); reading progress is not (it moves
// with every scroll).

// Event actions and change actions of the reading writes.
const (
	itemStarredEventName     = "starred"
	itemUnstarredEventName   = "unstarred"
	itemReadEventName        = "read"
	itemUnreadEventName      = "unread"
	changeStar, changeUnstar = "star", "unstar"
	changeRead, changeUnread = "read", "unread"
)

// WordsPerMinute and WordsPerToken make an item's reading time from its
// chunks' tokens: about 0.75 words a token (cl100k_base on English
// prose), read at 230 words a minute. The chunker repeats up to
// chunkOverlapTokens of a chunk at the start of the next; they are taken
// off once per chunk after the first.
const (
	WordsPerMinute     = 230
	WordsPerToken      = 0.75
	chunkOverlapTokens = 40
)

// ReadingMinutes is about how many minutes a text of tokens tokens in
// chunks chunks takes to read: 0 for no text, at least 1 otherwise.
func ReadingMinutes(tokens, chunks int) int {
	if tokens <= 0 || chunks <= 0 {
		return 0
	}
	t := tokens - chunkOverlapTokens*(chunks-1)
	if t < tokens/2 {
		t = tokens / 2 // chunks shorter than the overlap: do not count below half
	}
	return max(1, int(math.Round(float64(t)*WordsPerToken/WordsPerMinute)))
}

// readingCond is the SQL condition on items "it" of a reading filter:
// starred, read (read_at set, or archived: an archived item counts as
// read) or unread (neither).
func readingCond(starred, read, unread bool) []string {
	var conds []string
	if starred {
		conds = append(conds, "it.id IN (SELECT item_id FROM item_reading WHERE starred_at IS NOT NULL)")
	}
	if read {
		conds = append(conds, "(it.archived_at IS NOT NULL OR it.id IN (SELECT item_id FROM item_reading WHERE read_at IS NOT NULL))")
	}
	if unread {
		conds = append(conds, "(it.archived_at IS NULL AND it.id NOT IN (SELECT item_id FROM item_reading WHERE read_at IS NOT NULL))")
	}
	return conds
}

// readingRow is one item's reading state as stored, with its text's size.
type readingRow struct {
	ID         string          `db:"id"`
	ArchivedAt sql.NullString  `db:"archived_at"`
	StarredAt  sql.NullString  `db:"starred_at"`
	ReadAt     sql.NullString  `db:"read_at"`
	Progress   sql.NullFloat64 `db:"progress"`
	Part       sql.NullInt64   `db:"part"`
	Tokens     int             `db:"tokens"`
	Chunks     int             `db:"chunks"`
}

const readingSelect = `SELECT it.id, it.archived_at, r.starred_at, r.read_at, r.progress, r.part,
	coalesce((SELECT sum(tokens) FROM content_chunks c WHERE c.item_id = it.id), 0) AS tokens,
	(SELECT count(*) FROM content_chunks c WHERE c.item_id = it.id) AS chunks
	FROM items it LEFT JOIN item_reading r ON r.item_id = it.id`

// reading is the record form of the row; nil when there is nothing to
// say (no text, never starred or read).
func (r readingRow) reading() *record.Reading {
	out := record.Reading{StarredAt: r.StarredAt.String, ReadAt: r.ReadAt.String, Progress: r.Progress.Float64,
		Part: int(r.Part.Int64), Minutes: ReadingMinutes(r.Tokens, r.Chunks)}
	if out == (record.Reading{}) {
		return nil
	}
	return &out
}

// loadReading reads the archived time and reading state of items.
func loadReading(ctx context.Context, q sqlx.QueryerContext, ids []string) (map[string]readingRow, error) {
	out := make(map[string]readingRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	qs, args, err := sqlx.In(readingSelect+` WHERE it.id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []readingRow
	if err := sqlx.SelectContext(ctx, q, &rows, qs, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// Reading returns the reading state of one item (nil when there is
// nothing to say). It returns ErrNotFound for an unknown id.
func (s *Store) Reading(ctx context.Context, itemID string) (*record.Reading, error) {
	m, err := loadReading(ctx, s.db, []string{itemID})
	if err != nil {
		return nil, err
	}
	r, ok := m[itemID]
	if !ok {
		return nil, ErrNotFound
	}
	return r.reading(), nil
}

// SetStarred stars (starred true) or unstars an item and writes an event
// when that changed anything. Starring a starred item keeps its first
// starred_at. It returns ErrNotFound for an unknown id.
func (s *Store) SetStarred(ctx context.Context, itemID string, starred bool, actor string) (*record.Change, error) {
	action, event := changeUnstar, itemUnstarredEventName
	if starred {
		action, event = changeStar, itemStarredEventName
	}
	return s.setReadingMark(ctx, itemID, "starred_at", starred, actor, action, event)
}

// SetRead marks an item read (read true) or unread and writes an event
// when that changed anything. Marking a read item read keeps its first
// read_at. Marking it unread also clears its progress (it is read again
// from the top). An archived item counts as read whatever read_at says
// (readingCond): marking it unread clears read_at, and it counts as
// unread once unarchived. It returns ErrNotFound for an unknown id.
func (s *Store) SetRead(ctx context.Context, itemID string, read bool, actor string) (*record.Change, error) {
	action, event := changeUnread, itemUnreadEventName
	if read {
		action, event = changeRead, itemReadEventName
	}
	return s.setReadingMark(ctx, itemID, "read_at", read, actor, action, event)
}

// setReadingMark sets or clears one time column of item_reading (col is
// one of our two names, never user input) in one transaction with its
// event.
func (s *Store) setReadingMark(ctx context.Context, itemID, col string, on bool, actor, action, event string) (*record.Change, error) {
	if col != "starred_at" && col != "read_at" {
		return nil, fmt.Errorf("reading mark %q", col)
	}
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	ch := &record.Change{Action: action}
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		ch.Changed, ch.At = false, ""
		var cur sql.NullString
		err := tx.GetContext(ctx, &cur, `SELECT r.`+col+` FROM items it LEFT JOIN item_reading r ON r.item_id = it.id WHERE it.id = ?`, itemID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if cur.Valid == on {
			ch.At = cur.String
			return nil
		}
		now := s.nowString()
		if err := markReading(ctx, tx, itemID, col, on, now, actor); err != nil {
			return err
		}
		if on {
			ch.At = now
		}
		ch.Changed = true
		return s.event(ctx, tx, itemID, "item", itemID, event, actor, nil)
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// markReading writes one mark of item_reading (col: starred_at or
// read_at) without checking or journalling: on sets it to now, off
// clears it (and clearing read_at clears the progress too).
func markReading(ctx context.Context, tx *sqlx.Tx, itemID, col string, on bool, now, actor string) error {
	var err error
	switch {
	case col == "starred_at" && on:
		_, err = tx.ExecContext(ctx, `INSERT INTO item_reading(item_id, starred_at, starred_by) VALUES (?, ?, ?)
			ON CONFLICT(item_id) DO UPDATE SET starred_at = excluded.starred_at, starred_by = excluded.starred_by`, itemID, now, actor)
	case col == "starred_at":
		_, err = tx.ExecContext(ctx, `UPDATE item_reading SET starred_at = NULL, starred_by = NULL WHERE item_id = ?`, itemID)
	case on:
		_, err = tx.ExecContext(ctx, `INSERT INTO item_reading(item_id, read_at) VALUES (?, ?)
			ON CONFLICT(item_id) DO UPDATE SET read_at = excluded.read_at`, itemID, now)
	default:
		_, err = tx.ExecContext(ctx, `UPDATE item_reading SET read_at = NULL, progress = 0, part = 0, progress_at = NULL WHERE item_id = ?`, itemID)
	}
	return err
}

// SetProgress keeps how far down an item was read: progress is the share
// of the reader's part part (0..1; values outside are clamped, NaN
// refused) that was scrolled past. It does not journal (progress moves
// with every scroll), and it marks the item read when it was not (the
// reader reports progress once the item is open; the read event is
// written then, once). It returns ErrNotFound for an unknown id, and
// reports whether the item became read.
func (s *Store) SetProgress(ctx context.Context, itemID string, part int, progress float64, actor string) (bool, error) {
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		return false, fmt.Errorf("progress %v: want a number from 0 to 1", progress)
	}
	if err := record.CheckActor(actor); err != nil {
		return false, err
	}
	progress = min(1, max(0, progress))
	part = max(0, part)
	became := false
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		became = false
		var cur struct {
			ReadAt     sql.NullString `db:"read_at"`
			ArchivedAt sql.NullString `db:"archived_at"`
		}
		err := tx.GetContext(ctx, &cur, `SELECT r.read_at, it.archived_at FROM items it LEFT JOIN item_reading r ON r.item_id = it.id WHERE it.id = ?`, itemID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		now := s.nowString()
		if _, err := tx.ExecContext(ctx, `INSERT INTO item_reading(item_id, progress, part, progress_at) VALUES (?, ?, ?, ?)
			ON CONFLICT(item_id) DO UPDATE SET progress = excluded.progress, part = excluded.part, progress_at = excluded.progress_at`,
			itemID, progress, part, now); err != nil {
			return err
		}
		if cur.ReadAt.Valid {
			return nil
		}
		if err := markReading(ctx, tx, itemID, "read_at", true, now, actor); err != nil {
			return err
		}
		became = true
		return s.event(ctx, tx, itemID, "item", itemID, itemReadEventName, actor, nil)
	})
	return became, err
}

// markReadOnArchive marks an archived item read in the archive's
// transaction (archived means read: it stays read once unarchived), with
// no event of its own (the archived event says it).
func markReadOnArchive(ctx context.Context, tx *sqlx.Tx, itemID, now string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO item_reading(item_id, read_at) VALUES (?, ?)
		ON CONFLICT(item_id) DO UPDATE SET read_at = coalesce(item_reading.read_at, excluded.read_at)`, itemID, now)
	return err
}

// restoreReading writes an exported item's reading state (record
// reading: starred, read, progress) back, in its restore's transaction;
// the reading time is computed, not stored. Values an export cannot hold
// (progress outside 0..1) are clamped.
func restoreReading(ctx context.Context, tx *sqlx.Tx, itemID string, r *record.Reading) error {
	if r == nil || (r.StarredAt == "" && r.ReadAt == "" && r.Progress == 0 && r.Part == 0) {
		return nil
	}
	null := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	p := r.Progress
	if math.IsNaN(p) {
		p = 0
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO item_reading(item_id, starred_at, read_at, progress, part) VALUES (?, ?, ?, ?, ?)`,
		itemID, null(r.StarredAt), null(r.ReadAt), min(1, max(0, p)), max(0, r.Part))
	return err
}
