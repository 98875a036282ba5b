package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// Queue views list items by ingest state, as records ready for the next
// stage: `ll-find --pending | ll-fetch | ll-parse | ll-index` ingests what
// is waiting, `ll-find --stale | ll-fetch | ll-index` revalidates with a
// conditional GET (the records carry fetch.etag and fetch.last_modified).

// DefaultStaleAfter is the commands' default QueueOptions.OlderThan for
// the stale queue (ll-find --stale-after, linkledger stale --older-than).
const DefaultStaleAfter = 30 * 24 * time.Hour

type queueRow struct {
	hitRow
	UpdatedAt     string         `db:"updated_at"`
	ParsedAt      sql.NullString `db:"parsed_at"`
	ErrorJSON     sql.NullString `db:"error_json"`
	Attempts      int            `db:"attempts"`
	NextRetryAt   sql.NullString `db:"next_retry_at"`
	RevalidateDue bool           `db:"revalidate_due"`
	DuplicateOf   sql.NullString `db:"duplicate_of"`
	ArchivedAt    sql.NullString `db:"archived_at"`
	EnrichError   sql.NullString `db:"enrich_error_json"`
	EmbedError    sql.NullString `db:"embed_error_json"`
}

const queueCols = hitCols + `, updated_at, parsed_at, error_json, attempts, next_retry_at, revalidate_due, duplicate_of, archived_at, enrich_error_json, embed_error_json`

func (q queueRow) record() *record.Record {
	rec := q.hitRow.record()
	rec.URL = q.OriginalURL
	rec.ArchivedAt = q.ArchivedAt.String
	if q.ETag.Valid || q.LastModified.Valid {
		rec.Fetch = &record.FetchInfo{ETag: q.ETag.String, LastModified: q.LastModified.String, FetchedAt: q.FetchedAt.String}
	}
	info := IngestInfo{
		Status: q.IngestStatus, Attempts: q.Attempts, NextRetryAt: q.NextRetryAt.String,
		SavedAt: q.SavedAt, UpdatedAt: q.UpdatedAt, FetchedAt: q.FetchedAt.String, ParsedAt: q.ParsedAt.String,
		RevalidateDue: q.RevalidateDue, DuplicateOf: q.DuplicateOf.String, FromRecord: q.FromRecord,
	}
	if q.ErrorJSON.Valid && q.ErrorJSON.String != "" {
		var e record.Error
		if json.Unmarshal([]byte(q.ErrorJSON.String), &e) == nil {
			info.LastError = &e
		}
	}
	if q.EnrichError.Valid && q.EnrichError.String != "" {
		var e record.Error
		if json.Unmarshal([]byte(q.EnrichError.String), &e) == nil {
			info.LastEnrichError = &e
		}
	}
	if q.EmbedError.Valid && q.EmbedError.String != "" {
		var e record.Error
		if json.Unmarshal([]byte(q.EmbedError.String), &e) == nil {
			info.LastEmbedError = &e
		}
	}
	setIngest(rec, info)
	return rec
}

func setIngest(rec *record.Record, info IngestInfo) {
	b, err := json.Marshal(info)
	if err != nil {
		return
	}
	if rec.Extra == nil {
		rec.Extra = map[string]json.RawMessage{}
	}
	rec.Extra["ingest"] = b
}

// Queue lists the items of a queue view, oldest first. It only reads:
// claims (ClaimPending) neither hide items nor are taken.
func (s *Store) Queue(ctx context.Context, opts QueueOptions) ([]*record.Record, error) {
	return s.queue(ctx, s.db, opts, "")
}

// queue is Queue on q, with the items also meeting extra (a condition on
// items aliased it, whose arguments are extraArgs).
func (s *Store) queue(ctx context.Context, q dbtx, opts QueueOptions, extra string, extraArgs ...any) ([]*record.Record, error) {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	now := s.Now()
	fcond, args := filterWhere(opts.Filter, nil)
	var cond, order string
	switch opts.Queue {
	case QueuePending:
		cond = pendingCond // one table: its columns need no prefix
		args = append([]any{opts.MaxAttempts, record.FormatTime(now)}, args...)
		order = `it.saved_at, it.seq`
	case QueueFailed:
		cond = `it.ingest_status = 'failed'`
		order = `it.updated_at, it.seq`
	case QueueStale:
		cond = `it.fetched_at IS NOT NULL AND it.fetched_at <= ? AND it.content_from_record = 0`
		args = append([]any{record.FormatTime(now.Add(-opts.OlderThan))}, args...)
		order = `it.fetched_at, it.seq`
	default:
		return nil, fmt.Errorf("unknown queue %q", opts.Queue)
	}
	limit := -1
	if opts.Limit > 0 {
		limit = opts.Limit
	}
	if extra != "" {
		fcond += ` AND ` + extra
		args = append(args, extraArgs...)
	}
	args = append(args, limit, max(opts.Offset, 0))
	var rows []queueRow
	if err := q.SelectContext(ctx, &rows, `SELECT `+prefixed("it.", queueCols)+` FROM items it WHERE `+cond+` AND `+fcond+
		` ORDER BY `+order+` LIMIT ? OFFSET ?`, args...); err != nil {
		return nil, err
	}
	out := make([]*record.Record, len(rows))
	for i, r := range rows {
		out[i] = r.record()
		if opts.Queue != QueueFailed {
			// pending and stale records feed ll-fetch: keep them lean, so
			// no stale status travels down the pipeline
			delete(out[i].Extra, "ingest")
		}
	}
	return out, nil
}

// Status returns one item's full status: ingest state, attempts, last
// error, timestamps, and counts of chunks, annotations and tags.
func (s *Store) Status(ctx context.Context, id string) (*record.Record, error) {
	var r queueRow
	err := s.db.GetContext(ctx, &r, `SELECT `+queueCols+` FROM items WHERE id = ? OR canonical_url = ?`, id, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	rec := r.record()
	var info IngestInfo
	_ = json.Unmarshal(rec.Extra["ingest"], &info)
	var counts struct {
		Chunks      int `db:"chunks"`
		Annotations int `db:"annotations"`
		Tags        int `db:"tags"`
	}
	if err := s.db.GetContext(ctx, &counts, `SELECT (SELECT count(*) FROM content_chunks WHERE item_id = ?) AS chunks,
		(SELECT count(*) FROM annotations WHERE item_id = ?) AS annotations, (SELECT count(*) FROM tags WHERE item_id = ?) AS tags`,
		r.ID, r.ID, r.ID); err != nil {
		return nil, err
	}
	info.Chunks, info.Annotations, info.Tags = &counts.Chunks, &counts.Annotations, &counts.Tags
	setIngest(rec, info)
	if rec.Reading, err = s.Reading(ctx, r.ID); err != nil {
		return nil, err
	}
	tags, err := s.db.QueryxContext(ctx, `SELECT tag FROM tags WHERE item_id = ? ORDER BY tag`, r.ID)
	if err != nil {
		return nil, err
	}
	defer tags.Close()
	for tags.Next() {
		var t string
		if err := tags.Scan(&t); err != nil {
			return nil, err
		}
		rec.Tags = append(rec.Tags, t)
	}
	return rec, tags.Err()
}

// prefixed puts p before every column of a comma-separated list.
func prefixed(p, cols string) string {
	var out []byte
	start := true
	for i := 0; i < len(cols); i++ {
		c := cols[i]
		if start && c != ' ' && c != '\n' && c != '\t' {
			out = append(out, p...)
			start = false
		}
		if c == ',' {
			start = true
		}
		out = append(out, c)
	}
	return string(out)
}
