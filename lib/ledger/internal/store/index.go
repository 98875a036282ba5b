package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

func indexDefaults(o IndexOptions) IndexOptions {
	if o.RetryBase == 0 {
		o.RetryBase = time.Minute
	}
	if o.RetryMax == 0 {
		o.RetryMax = 24 * time.Hour
	}
	if o.AgentHighlightCap == 0 {
		o.AgentHighlightCap = DefaultAgentHighlightCap
	}
	return o
}

// ErrNothingToIndex is returned for a record with neither text, chunks,
// an error nor a not-modified fetch.
var ErrNothingToIndex = errors.New("nothing to index: record has no text, chunks or error (run it through ll-parse)")

// Index writes one ingested record in one transaction: the item's
// metadata, its chunks (replaced atomically), the FTS rows, checksum and
// ingest state. A record with an error marks the item failed with the
// reason, attempt count and next retry time. A not-modified fetch or an
// unchanged checksum keeps the content and refreshes fetched_at. Content
// indexed without a fetch (rec.Fetch nil: text or chunks given in the
// record) marks the item content_from_record, which keeps it out of the
// stale and pending queues; a fetched ingest clears the mark. A record
// with an artifact by an agent (ll-enrich) also stores the artifact and
// that agent's highlight suggestions, replacing its earlier ones, and
// marks the item enriched (storeEnrichment); an enrichment failure
// (enrich.error) is kept on the item (noteEnrichment). A record that
// carries the item's stored chunks (ll-find --with-chunks) stores only its
// enrichment, never content (indexStored). The item is
// created when it was never saved. rec must carry id and canonical_url.
func (s *Store) Index(ctx context.Context, rec *record.Record, opts IndexOptions) (*record.IndexResult, error) {
	opts = indexDefaults(opts)
	if err := checkIndex(rec, opts); err != nil {
		return nil, err
	}
	var res *record.IndexResult
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		it, created, err := s.ensureItem(ctx, tx, rec, eventActorIndex, "", "")
		if err == nil && created {
			err = refuseDeleted(ctx, tx, rec)
		}
		if err == nil {
			err = releaseClaim(ctx, tx, it.ID)
		}
		if err != nil {
			return err
		}
		switch {
		case rec.Error != nil:
			res, err = s.indexFailure(ctx, tx, it, rec, opts)
		case rec.Fetch != nil && rec.Fetch.NotModified:
			res, err = s.indexUnchanged(ctx, tx, it, rec)
		case FromStore(rec):
			// the item's own stored chunks (ll-find --with-chunks): only
			// the enrichment is stored, never the content (enrichstored.go)
			res, err = s.indexStored(ctx, tx, it, rec, opts)
		case rec.Text != nil || len(rec.Chunks) > 0:
			res, err = s.indexContent(ctx, tx, it, rec)
			if err == nil && enriched(rec) {
				// enrichment (ll-enrich) goes in with the content it was made from
				if res.Status, err = s.storeEnrichment(ctx, tx, it.ID, res.Status, rec, opts.AgentHighlightCap); err == nil {
					err = refreshFTS(ctx, tx, it.Seq, it.ID)
				}
			}
			if err == nil {
				err = s.noteEnrichment(ctx, tx, it.ID, rec)
			}
			if err == nil {
				// vectors (ll-embed) go in with the chunks they were made of
				err = s.noteEmbedding(ctx, tx, it.ID, rec)
			}
		default:
			err = ErrNothingToIndex
		}
		return err
	})
	return res, err
}

// CheckID checks that a record carrying a canonical URL carries that URL's
// item id (record.ItemID). Without it a record could create an item under
// another URL's id, or write its content into another item, and the real
// URL could then never be saved (its id taken). It returns a bad_input
// error of stage index (Save reuses the message).
func CheckID(rec *record.Record) *record.Error {
	if rec.CanonicalURL == "" {
		return nil
	}
	if want := record.ItemID(rec.CanonicalURL); rec.ID != want {
		return &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput,
			Message: fmt.Sprintf("id %s is not the id of canonical_url %s (that is %s)", rec.ID, rec.CanonicalURL, want)}
	}
	return nil
}

// checkSourceType refuses a source_type the schema does not know, before
// it reaches the items table's CHECK constraint.
func checkSourceType(rec *record.Record, stage string) *record.Error {
	if rec.SourceType == "" || validSourceType(rec.SourceType) {
		return nil
	}
	return &record.Error{Stage: stage, Code: record.CodeBadInput,
		Message: fmt.Sprintf("source_type %q: want article, x, youtube, pdf or text", rec.SourceType)}
}

func fetchedAt(rec *record.Record, now string) string {
	if rec.Fetch != nil && rec.Fetch.FetchedAt != "" {
		return rec.Fetch.FetchedAt
	}
	return now
}

func (s *Store) indexFailure(ctx context.Context, tx *sqlx.Tx, it *itemRow, rec *record.Record, opts IndexOptions) (*record.IndexResult, error) {
	attempts := it.Attempts + 1
	var next any
	if rec.Error.Retryable {
		wait := opts.RetryBase
		for i := 1; i < attempts && wait < opts.RetryMax; i++ {
			wait *= 2
		}
		if wait > opts.RetryMax {
			wait = opts.RetryMax
		}
		at := s.Now().Add(wait)
		// A server that said when to come back (Retry-After, carried in
		// error.retry_after) is not asked again before then.
		if t, err := time.Parse(record.TimeFormat, rec.Error.RetryAfter); err == nil && t.After(at) {
			at = t
		}
		next = record.FormatTime(at)
	}
	ej, err := json.Marshal(rec.Error)
	if err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET error_json = ?, attempts = ?, next_retry_at = ?, updated_at = ? WHERE id = ?`,
		string(ej), attempts, next, s.nowString(), it.ID); err != nil {
		return nil, err
	}
	if err := s.setState(ctx, tx, it.ID, it.IngestStatus, record.StateFailed, eventActorIndex); err != nil {
		return nil, err
	}
	if err := s.event(ctx, tx, it.ID, "ingest", "", "error", eventActorIndex, rec.Error); err != nil {
		return nil, err
	}
	var chunks int
	if err := tx.GetContext(ctx, &chunks, `SELECT count(*) FROM content_chunks WHERE item_id = ?`, it.ID); err != nil {
		return nil, err
	}
	return &record.IndexResult{Status: record.StateFailed, Chunks: chunks}, nil
}

// successState is the state of an item whose ingest succeeded: parsed, or
// enriched when it has artifacts.
func successState(ctx context.Context, tx dbtx, itemID string) (string, error) {
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM artifacts WHERE item_id = ?`, itemID); err != nil {
		return "", err
	}
	if n > 0 {
		return record.StateEnriched, nil
	}
	return record.StateParsed, nil
}

func (s *Store) indexUnchanged(ctx context.Context, tx *sqlx.Tx, it *itemRow, rec *record.Record) (*record.IndexResult, error) {
	now := s.nowString()
	if _, err := tx.ExecContext(ctx, `UPDATE items SET fetched_at = ?, updated_at = ?, attempts = 0, error_json = NULL,
		next_retry_at = NULL, revalidate_due = 0, content_from_record = 0 WHERE id = ?`, fetchedAt(rec, now), now, it.ID); err != nil {
		return nil, err
	}
	state := it.IngestStatus
	var chunks int
	if err := tx.GetContext(ctx, &chunks, `SELECT count(*) FROM content_chunks WHERE item_id = ?`, it.ID); err != nil {
		return nil, err
	}
	if state == record.StateFailed || state == record.StateSaved {
		// A 304 for an item without content is not a success we can use;
		// one with content returns to its success state.
		if chunks > 0 {
			st, err := successState(ctx, tx, it.ID)
			if err != nil {
				return nil, err
			}
			if err := s.setState(ctx, tx, it.ID, state, st, eventActorIndex); err != nil {
				return nil, err
			}
			state = st
		}
	}
	if err := s.event(ctx, tx, it.ID, "ingest", "", "not_modified", eventActorIndex, nil); err != nil {
		return nil, err
	}
	return &record.IndexResult{Status: state, Chunks: chunks, Unchanged: true}, nil
}

// itemMeta is the JSON kept in items.meta_json.
type itemMeta struct {
	Parse     *record.ParseInfo `json:"parse,omitempty"`
	DurationS float64           `json:"duration_s,omitempty"`
	Source    string            `json:"fetch_source,omitempty"`
	Status    int               `json:"http_status,omitempty"`
	FinalURL  string            `json:"final_url,omitempty"`
	Bytes     int64             `json:"bytes,omitempty"`
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func validSourceType(t string) bool {
	switch t {
	case record.SourceArticle, record.SourceX, record.SourceYouTube, record.SourcePDF, record.SourceText:
		return true
	}
	return false
}

func (s *Store) indexContent(ctx context.Context, tx dbtx, it *itemRow, rec *record.Record) (*record.IndexResult, error) {
	now := s.nowString()
	meta := itemMeta{Parse: rec.Parse, DurationS: rec.DurationS}
	var etag, lastMod string
	if f := rec.Fetch; f != nil {
		meta.Source, meta.Status, meta.FinalURL, meta.Bytes = f.Source, f.Status, f.FinalURL, f.Bytes
		etag, lastMod = f.ETag, f.LastModified
	}
	mj, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	st := it.SourceType
	if validSourceType(rec.SourceType) {
		st = rec.SourceType
	}
	title := rec.Title
	if title == "" {
		title = it.Title
	}
	var dup sql.NullString
	if rec.Checksum != "" && rec.TextValue() != "" {
		err := tx.GetContext(ctx, &dup, `SELECT id FROM items WHERE checksum = ? AND id != ? ORDER BY seq LIMIT 1`, rec.Checksum, it.ID)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
	}
	var nChunks int
	if err := tx.GetContext(ctx, &nChunks, `SELECT count(*) FROM content_chunks WHERE item_id = ?`, it.ID); err != nil {
		return nil, err
	}
	unchanged := rec.Checksum != "" && it.Checksum.Valid && it.Checksum.String == rec.Checksum && nChunks > 0
	if _, err := tx.ExecContext(ctx, `UPDATE items SET source_type = ?, title = ?, author = ?, published_at = ?, site_name = ?, lang = ?,
		excerpt = ?, description = ?, meta_json = ?, updated_at = ?, fetched_at = ?, parsed_at = ?, checksum = ?, duplicate_of = ?,
		etag = ?, last_modified = ?, error_json = NULL, attempts = 0, next_retry_at = NULL, revalidate_due = 0,
		content_from_record = ? WHERE id = ?`,
		st, title, rec.Author, nullIfEmpty(rec.PublishedAt), rec.SiteName, rec.Lang, rec.Excerpt, rec.Description, string(mj),
		now, fetchedAt(rec, now), now, nullIfEmpty(rec.Checksum), dup, nullIfEmpty(etag), nullIfEmpty(lastMod),
		rec.Fetch == nil, it.ID); err != nil {
		return nil, err
	}
	if unchanged {
		// the chunks stay; their kinds follow this parse (an item stored
		// before the kinds gains them when re-ingested)
		if err := syncChunkKinds(ctx, tx, it.ID, rec.Chunks); err != nil {
			return nil, err
		}
	}
	switch {
	case unchanged && title == it.Title:
		// same text, same title: the FTS rows are current
	case unchanged:
		if err := refreshFTS(ctx, tx, it.Seq, it.ID); err != nil {
			return nil, err
		}
	default:
		if err := s.replaceChunks(ctx, tx, it, rec.Chunks); err != nil {
			return nil, err
		}
		nChunks = len(rec.Chunks)
	}
	if err := storeMarkdown(ctx, tx, it.ID, rec.Markdown); err != nil {
		return nil, err
	}
	if err := storeImages(ctx, tx, it.ID, rec.Markdown, rec.Images); err != nil {
		return nil, err
	}
	state, err := successState(ctx, tx, it.ID)
	if err != nil {
		return nil, err
	}
	if from := it.IngestStatus; from != state {
		if (from == record.StateSaved || from == record.StateFailed) && state != record.StateFetched {
			// record the lifecycle step through fetched in the audit log;
			// the next step then goes from fetched (the history read
			// "saved to fetched", then "saved to parsed")
			if err := s.event(ctx, tx, it.ID, "ingest", "", ingestStateChangedEventPrefix+record.StateFetched, eventActorIndex,
				map[string]string{"from": from, "to": record.StateFetched}); err != nil {
				return nil, err
			}
			from = record.StateFetched
		}
		if err := s.setState(ctx, tx, it.ID, from, state, eventActorIndex); err != nil {
			return nil, err
		}
	}
	res := &record.IndexResult{Status: state, Chunks: nChunks, Unchanged: unchanged}
	if dup.Valid {
		res.DuplicateOf = dup.String
	}
	return res, nil
}

func (s *Store) replaceChunks(ctx context.Context, tx dbtx, it *itemRow, chunks []record.Chunk) error {
	// the text before, where the highlights' and lowlights' quotes were
	// (read only when the item has some)
	var quotes int
	if err := tx.GetContext(ctx, &quotes, `SELECT count(*) FROM annotations WHERE item_id = ? AND type IN ('highlight', 'lowlight')`, it.ID); err != nil {
		return err
	}
	var old *itemChunks
	if quotes > 0 {
		var err error
		if old, err = loadItemChunks(ctx, tx, it.ID); err != nil {
			return err
		}
	}
	// in an index batch the search rows are written at its end, unless
	// the quotes' work below needs them now
	fts := deferredFTS(tx)
	if quotes > 0 {
		fts = nil
	}
	if fts != nil {
		if err := fts.addDelete(ctx, tx, it.Seq, it.ID); err != nil {
			return err
		}
	} else if err := deleteFTS(ctx, tx, it.Seq, it.ID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM content_chunks WHERE item_id = ?`, it.ID); err != nil {
		return err
	}
	if err := insertChunks(ctx, tx, it.ID, chunks); err != nil {
		return err
	}
	// annotations anchored to a chunk follow its index into the new rows
	if _, err := tx.ExecContext(ctx, `UPDATE annotations SET chunk_id = (SELECT id FROM content_chunks c
		WHERE c.item_id = annotations.item_id AND c.chunk_index = annotations.chunk_index)
		WHERE item_id = ? AND chunk_index IS NOT NULL`, it.ID); err != nil {
		return err
	}
	// highlights and lowlights follow their quotes instead, or are
	// orphaned; then those that now quote the same text merge
	if quotes > 0 {
		if err := s.reanchor(ctx, tx, it.ID, old); err != nil {
			return err
		}
		if _, err := s.mergeNearDuplicates(ctx, tx, it.ID, eventActorIndex); err != nil {
			return err
		}
	}
	if fts != nil {
		return fts.addItem(ctx, tx, it.Seq, it.ID)
	}
	return insertFTS(ctx, tx, it.Seq, it.ID)
}

// Retry makes a failed item due for retry now (linkledger retry ID).
func (s *Store) Retry(ctx context.Context, id, actor string) (*record.Record, error) {
	var out *record.Record
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		it, err := getItem(ctx, tx, id)
		if err != nil {
			return err
		}
		if it == nil {
			return &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: "no item with id " + id}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET next_retry_at = ?, attempts = 0, updated_at = ? WHERE id = ?`, s.nowString(), s.nowString(), id); err != nil {
			return err
		}
		if err := s.event(ctx, tx, id, "ingest", "", "retry", actor, nil); err != nil {
			return err
		}
		out = &record.Record{ID: it.ID, URL: it.OriginalURL, CanonicalURL: it.CanonicalURL, SourceType: it.SourceType, Status: it.IngestStatus}
		return nil
	})
	return out, err
}

// refuseDeleted returns a CodeDeleted error (nothing is written: the
// transaction that has just created rec's item rolls back) when the item
// was deleted before: a record of a deleted item (its fetch was in
// flight when it was deleted, or a saved stream indexed late) must not
// bring it back with its text. Only a new save does (ll-save, the web
// app, MCP save create the item, which ll-index then finds). The history
// tells: a deletion leaves an item "deleted" event (events_item index).
func refuseDeleted(ctx context.Context, tx dbtx, rec *record.Record) error {
	var at sql.NullString
	if err := tx.GetContext(ctx, &at, `SELECT max(at) FROM events WHERE item_id = ? AND entity = 'item' AND action = ?`, rec.ID, itemDeletedEventName); err != nil {
		return err
	}
	if !at.Valid {
		return nil
	}
	return &record.Error{Stage: record.StageIndex, Code: record.CodeDeleted,
		Message: fmt.Sprintf("item deleted at %s: a record of it does not bring it back (save the URL again to keep it)", at.String)}
}

// storeMarkdown keeps the item's structured document (migration 0016):
// the new content's, or none when its parse had no structure (the
// reader then shows the text as paragraphs). It is written even when
// the text is unchanged, so re-ingesting an item stored before gains
// its structure.
func storeMarkdown(ctx context.Context, tx dbtx, itemID, md string) error {
	if md == "" {
		_, err := tx.ExecContext(ctx, `DELETE FROM item_markdown WHERE item_id = ?`, itemID)
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO item_markdown(item_id, markdown) VALUES (?, ?)
		ON CONFLICT(item_id) DO UPDATE SET markdown = excluded.markdown`, itemID, md)
	return err
}
