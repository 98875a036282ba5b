package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Keys an export record adds to the show record (docs/import-export.md).
const (
	// ExportItemKey holds the item's row, every column but the internal
	// seq, as stored: what a restore writes back.
	ExportItemKey = record.ExportItemKey
	// ExportHistoryKey holds the item's events, oldest first.
	ExportHistoryKey = "history"
	// ExportTextKey is true when the export carries the item's chunks.
	ExportTextKey = "ledger_text"
	// ExportTagsRejectedKey holds the tags a person rejected on the item
	// (absent when none), so a restore keeps the decision.
	ExportTagsRejectedKey = "ledger_tags_rejected"
)

// HistoryEvent is one event of an item's history (record.HistoryEvent).
type HistoryEvent = record.HistoryEvent

// ExportIDs returns the ids of the items f passes, in the order they were
// created.
func (s *Store) ExportIDs(ctx context.Context, f Filter) ([]string, error) {
	cond, args := filterWhere(f, nil)
	var ids []string
	err := s.db.SelectContext(ctx, &ids, `SELECT it.id FROM items it WHERE `+cond+` ORDER BY it.seq`, args...)
	return ids, err
}

// Export returns everything stored about an item as one record: the show
// record (metadata, ingest status, tags, annotations with their ids,
// artifacts, with text its chunks) plus its history and its row as stored,
// from which Restore rebuilds it.
func (s *Store) Export(ctx context.Context, id string, text bool) (*record.Record, error) {
	rec, err := s.Show(ctx, id, ShowOptions{Text: text})
	if err != nil {
		return nil, err
	}
	row := map[string]any{}
	if err := s.db.QueryRowxContext(ctx, `SELECT * FROM items WHERE id = ?`, rec.ID).MapScan(row); err != nil {
		return nil, err
	}
	delete(row, "seq")
	for k, v := range row {
		if b, ok := v.([]byte); ok {
			row[k] = string(b)
		}
	}
	hist, err := s.History(ctx, rec.ID)
	if err != nil {
		return nil, err
	}
	if rec.Extra == nil {
		rec.Extra = map[string]json.RawMessage{}
	}
	exp := map[string]any{ExportItemKey: row, ExportHistoryKey: hist, ExportTextKey: text}
	var rejected []rejectedTag
	if err := s.db.SelectContext(ctx, &rejected, `SELECT tag, actor, created_at, rejected_by, rejected_at FROM tags_rejected WHERE item_id = ? ORDER BY tag`, rec.ID); err != nil {
		return nil, err
	}
	if len(rejected) > 0 {
		exp[ExportTagsRejectedKey] = rejected
	}
	for k, v := range exp {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		rec.Extra[k] = b
	}
	return rec, nil
}

// rejectedTag is a row of tags_rejected in an export.
type rejectedTag struct {
	Tag        string `db:"tag" json:"tag"`
	Actor      string `db:"actor" json:"actor"`
	CreatedAt  string `db:"created_at" json:"created_at"`
	RejectedBy string `db:"rejected_by" json:"rejected_by"`
	RejectedAt string `db:"rejected_at" json:"rejected_at"`
}

// History returns every event of the item with id, oldest first: its
// saves, annotations, tags, artifacts and state changes, with actor and
// time. Events outlive the item, so a deleted item still has its history;
// an id no event names has none (an empty list).
func (s *Store) History(ctx context.Context, id string) ([]HistoryEvent, error) {
	var evs []struct {
		Entity   string         `db:"entity"`
		EntityID sql.NullString `db:"entity_id"`
		Action   string         `db:"action"`
		Actor    string         `db:"actor"`
		At       string         `db:"at"`
		Detail   string         `db:"detail_json"`
	}
	if err := s.db.SelectContext(ctx, &evs, `SELECT entity, entity_id, action, actor, at, detail_json FROM events WHERE item_id = ? ORDER BY id`, id); err != nil {
		return nil, err
	}
	hist := make([]HistoryEvent, 0, len(evs))
	for _, e := range evs {
		h := HistoryEvent{Entity: e.Entity, Action: e.Action, Actor: e.Actor, At: e.At, Detail: json.RawMessage(e.Detail)}
		if e.EntityID.Valid {
			v := e.EntityID.String
			h.EntityID = &v
		}
		hist = append(hist, h)
	}
	return hist, nil
}

// IsExport reports whether rec is an export record (Restore takes it).
func IsExport(rec *record.Record) bool { return rec.IsExport() }

// Restore writes an export record back: the item's row as exported, its
// chunks, annotations (their ids kept when free), tags, artifacts and
// history, and its search rows, in one transaction. An item that exists
// (same id or canonical URL) is left as it is: created is false. An item
// exported without its text is restored as saved, for the worker to fetch
// again.
func (s *Store) Restore(ctx context.Context, rec *record.Record) (out *record.Record, created bool, err error) {
	e, err := decodeExport(rec)
	if err != nil {
		return nil, false, err
	}
	names, vals, err := s.itemColumns(ctx, e.row)
	if err != nil {
		return nil, false, err
	}
	err = s.tx(ctx, func(tx *sqlx.Tx) error {
		created = false
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT count(*) FROM items WHERE id = ? OR canonical_url = ?`, e.id, e.canonical); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if err := restoreItemRow(ctx, tx, e, names, vals); err != nil {
			return err
		}
		chunkIDs, err := restoreChunks(ctx, tx, e.id, rec.Chunks)
		if err != nil {
			return err
		}
		for _, step := range []func() error{
			func() error { return s.restoreAnnotations(ctx, tx, e.id, rec.Annotations, chunkIDs) },
			func() error { return restoreTags(ctx, tx, e.id, rec.Tagged, e.rejected) },
			func() error { return restoreArtifacts(ctx, tx, e.id, rec.Artifacts) },
			func() error { return restoreHistory(ctx, tx, e.id, e.hist) },
			func() error { return restoreReading(ctx, tx, e.id, rec.Reading) },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		var seq int64
		if err := tx.GetContext(ctx, &seq, `SELECT seq FROM items WHERE id = ?`, e.id); err != nil {
			return err
		}
		created = true
		return insertFTS(ctx, tx, seq, e.id)
	})
	if err != nil {
		if IsConstraint(err) {
			return nil, false, badInput("cannot restore item %s: %v", record.Echo(e.id), err)
		}
		return nil, false, err
	}
	it, err := s.Status(ctx, e.id)
	if errors.Is(err, ErrNotFound) {
		return nil, false, fmt.Errorf("item %s vanished after its restore", e.id)
	}
	return it, created, err
}

// exportParts are the parts of an export record Restore reads from its
// extra fields.
type exportParts struct {
	row           map[string]any // the item's row: column → value
	id, canonical string
	hist          []HistoryEvent
	rejected      []rejectedTag
	withText      bool // exported with its text (else restored as saved)
}

// decodeExport reads and checks an export record's extra fields (no
// database needed): the item's row, numbers as int64 where they are whole,
// its id matching its canonical URL, the history and rejected tags.
func decodeExport(rec *record.Record) (*exportParts, error) {
	e := &exportParts{row: map[string]any{}}
	dec := json.NewDecoder(bytes.NewReader(rec.Extra[ExportItemKey]))
	dec.UseNumber()
	if err := dec.Decode(&e.row); err != nil {
		return nil, badInput("%s: not an object: %v", ExportItemKey, err)
	}
	for k, v := range e.row {
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				e.row[k] = i
			} else if f, err := n.Float64(); err == nil {
				e.row[k] = f
			}
		}
	}
	e.id, _ = e.row["id"].(string)
	e.canonical, _ = e.row["canonical_url"].(string)
	if e.id == "" || e.canonical == "" || e.id != record.ItemID(e.canonical) {
		return nil, badInput("%s: id and canonical_url missing or not matching", ExportItemKey)
	}
	if raw, ok := rec.Extra[ExportHistoryKey]; ok {
		if err := json.Unmarshal(raw, &e.hist); err != nil {
			return nil, badInput("%s: %v", ExportHistoryKey, err)
		}
	}
	if raw, ok := rec.Extra[ExportTagsRejectedKey]; ok {
		if err := json.Unmarshal(raw, &e.rejected); err != nil {
			return nil, badInput("%s: %v", ExportTagsRejectedKey, err)
		}
	}
	if raw, ok := rec.Extra[ExportTextKey]; ok {
		json.Unmarshal(raw, &e.withText)
	}
	return e, nil
}

// itemColumns are the columns and values of an exported item's row, each
// checked to be a column of this database's items table (seq excepted:
// it is this database's own).
func (s *Store) itemColumns(ctx context.Context, row map[string]any) ([]string, []any, error) {
	var cols []struct {
		Name string `db:"name"`
	}
	if err := s.db.SelectContext(ctx, &cols, `SELECT name FROM pragma_table_info('items')`); err != nil {
		return nil, nil, err
	}
	known := map[string]bool{}
	for _, c := range cols {
		known[c.Name] = true
	}
	names := make([]string, 0, len(row))
	vals := make([]any, 0, len(row))
	for k, v := range row {
		if !known[k] || k == "seq" {
			return nil, nil, badInput("%s: column %s is not one of this database's (an export of a newer linkledger?)", ExportItemKey, record.Quote(k))
		}
		names = append(names, k)
		vals = append(vals, v)
	}
	return names, vals, nil
}

// restoreItemRow inserts the item's row; one exported without its text
// becomes saved, for the worker to fetch again.
func restoreItemRow(ctx context.Context, tx *sqlx.Tx, e *exportParts, names []string, vals []any) error {
	q := `INSERT INTO items(`
	ph := ``
	for i, c := range names {
		if i > 0 {
			q += ", "
			ph += ", "
		}
		q += `"` + c + `"`
		ph += "?"
	}
	if _, err := tx.ExecContext(ctx, q+`) VALUES (`+ph+`)`, vals...); err != nil {
		return err
	}
	if e.withText {
		return nil
	}
	_, err := tx.ExecContext(ctx, `UPDATE items SET ingest_status = 'saved', checksum = NULL, parsed_at = NULL, fetched_at = NULL,
				etag = NULL, last_modified = NULL, attempts = 0, next_retry_at = NULL WHERE id = ?`, e.id)
	return err
}

// restoreChunks inserts the item's chunks, their ids kept when free, and
// returns each exported chunk id's id here.
func restoreChunks(ctx context.Context, tx *sqlx.Tx, id string, chunks []record.Chunk) (map[int64]int64, error) {
	chunkIDs := map[int64]int64{}
	for _, c := range chunks {
		var cid any
		if c.ID > 0 && free(ctx, tx, "content_chunks", c.ID) {
			cid = c.ID
		}
		r, err := tx.ExecContext(ctx, `INSERT INTO content_chunks(id, item_id, chunk_index, text, tokens, start_s, page) VALUES (?,?,?,?,?,?,?)`,
			cid, id, c.Index, c.Text, c.Tokens, c.StartS, nullInt(c.Page))
		if err != nil {
			return nil, err
		}
		nid, _ := r.LastInsertId()
		chunkIDs[c.ID] = nid
		if storedKind(c.Kind) {
			if _, err := tx.ExecContext(ctx, `INSERT INTO chunk_kinds(chunk_id, kind) VALUES (?, ?)`, nid, c.Kind); err != nil {
				return nil, err
			}
		}
	}
	return chunkIDs, nil
}

// restoreAnnotations inserts the item's annotations, their ids kept when
// free, pointing at the restored chunks.
func (s *Store) restoreAnnotations(ctx context.Context, tx *sqlx.Tx, id string, anns []record.Annotation, chunkIDs map[int64]int64) error {
	for _, a := range anns {
		// its own id when free, else one never given (annotation_ids.go)
		aid := a.ID
		if aid <= 0 || !free(ctx, tx, "annotations", aid) {
			var err error
			if aid, err = s.nextAnnotationID(ctx, tx); err != nil {
				return err
			}
		} else if err := s.noteAnnotationID(ctx, tx, aid); err != nil {
			return err
		}
		var chunk any
		if a.ChunkID != nil {
			if nid, ok := chunkIDs[*a.ChunkID]; ok {
				chunk = nid
			}
		}
		var review any
		if a.Review == ReviewConfirmed || a.Review == ReviewRejected {
			review = a.Review
		}
		var orphaned any
		if a.OrphanedAt != "" {
			orphaned = a.OrphanedAt
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO annotations(id, item_id, chunk_id, chunk_index, type, text, actor, confidence, pinned, created_at, review, orphaned_at)
				VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`, aid, id, chunk, a.ChunkIndex, a.Type, a.Text, a.Actor, a.Confidence, a.Pinned, a.CreatedAt, review, orphaned); err != nil {
			return err
		}
	}
	return nil
}

// restoreTags inserts the item's tags and rejected tags.
func restoreTags(ctx context.Context, tx *sqlx.Tx, id string, tagged []record.Tag, rejected []rejectedTag) error {
	for _, t := range tagged {
		var review any
		if t.Review == ReviewConfirmed {
			review = t.Review
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags(item_id, tag, actor, created_at, review) VALUES (?,?,?,?,?) ON CONFLICT DO NOTHING`, id, t.Tag, t.Actor, t.CreatedAt, review); err != nil {
			return err
		}
	}
	for _, t := range rejected {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags_rejected(item_id, tag, actor, created_at, rejected_by, rejected_at) VALUES (?,?,?,?,?,?) ON CONFLICT DO NOTHING`,
			id, t.Tag, t.Actor, t.CreatedAt, t.RejectedBy, t.RejectedAt); err != nil {
			return err
		}
	}
	return nil
}

// restoreArtifacts inserts the item's artifacts.
func restoreArtifacts(ctx context.Context, tx *sqlx.Tx, id string, arts []record.Artifact) error {
	for _, a := range arts {
		claims := a.KeyClaims
		if claims == nil {
			claims = []string{}
		}
		cj, _ := json.Marshal(claims)
		dj, err := detailJSON(&a)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO artifacts(item_id, summary, key_claims_json, created_by, created_at, detail_json) VALUES (?,?,?,?,?,?)`,
			id, a.Summary, string(cj), a.CreatedBy, a.CreatedAt, dj); err != nil {
			return err
		}
	}
	return nil
}

// restoreHistory inserts the item's events; a file grant is kept inert,
// under another name.
func restoreHistory(ctx context.Context, tx *sqlx.Tx, id string, hist []HistoryEvent) error {
	for _, e := range hist {
		d := string(e.Detail)
		if d == "" || d == "null" {
			d = "{}"
		}
		action := e.Action
		if action == fileAllowedEventName {
			// a grant is the user's word on this machine, never a
			// record's: kept inert, under another name (grants.go)
			action, d = fileGrantDroppedEventName, droppedGrantDetail(e.Detail)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO events(item_id, entity, entity_id, action, actor, at, detail_json) VALUES (?,?,?,?,?,?,?)`,
			id, e.Entity, e.EntityID, action, e.Actor, e.At, d); err != nil {
			return err
		}
	}
	return nil
}

func free(ctx context.Context, tx *sqlx.Tx, table string, id int64) bool {
	var n int
	tx.GetContext(ctx, &n, `SELECT count(*) FROM `+table+` WHERE id = ?`, id)
	return n == 0
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}
