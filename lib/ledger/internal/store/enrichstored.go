package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Enriching items already stored (docs/enrich.md):
//
//	ll-find --status parsed --with-chunks | ll-enrich | ll-index
//
// ll-find puts an item's stored chunks on its record with a "stored" mark
// (AttachStoredChunks); ll-index, seeing the mark, stores the enrichment
// (or the enrichment failure) without touching the content (indexStored).
// Both also record the outcome of an enrichment on the item
// (noteEnrichment): the last failure, shown by linkledger show, until an
// enrichment is stored.

// enrichFailedEventName is the history event of an enrichment failure.
const enrichFailedEventName = "enrich_failed"

// maxEnrichErrorMessage bounds the message of an enrichment failure kept
// on the item (the record is untrusted).
const maxEnrichErrorMessage = 1000

// AttachStoredChunks puts the item's stored chunks on rec, in order, as
// many whole chunks as fit in maxBytes of chunk text (maxBytes <= 0: all),
// and marks rec as carrying stored content (rec.Stored: the item's
// checksum, its number of chunks and how many were left out). rec.ID names
// the item; an unknown item gets no chunks and no mark.
func (s *Store) AttachStoredChunks(ctx context.Context, rec *record.Record, maxBytes int) error {
	var sum sql.NullString
	err := s.db.GetContext(ctx, &sum, `SELECT checksum FROM items WHERE id = ?`, rec.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return err
	}
	var rows []chunkRow
	if err := s.db.SelectContext(ctx, &rows, `SELECT id, chunk_index, text, tokens, start_s, page, `+chunkKindCol+` FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, rec.ID); err != nil {
		return err
	}
	var kept []record.Chunk
	n := 0
	for _, c := range rows {
		if maxBytes > 0 && n+len(c.Text) > maxBytes {
			break // whole chunks only, and in order: a prefix of the item
		}
		n += len(c.Text)
		ch := record.Chunk{Index: c.Index, Text: c.Text, Tokens: c.Tokens, Page: int(c.Page.Int64), Kind: c.Kind}
		if c.StartS.Valid {
			v := c.StartS.Float64
			ch.StartS = &v
		}
		kept = append(kept, ch)
	}
	rec.Chunks = kept
	rec.Stored = &record.Stored{Checksum: sum.String, Chunks: len(rows), ChunksOmitted: len(rows) - len(kept)}
	return nil
}

// FromStore reports whether rec carries an item's stored content back
// (ll-find --with-chunks) rather than new content: marked stored, with no
// text or body of its own (a record that went through ll-fetch and
// ll-parse again has them, and is indexed as new content).
func FromStore(rec *record.Record) bool {
	return rec.Stored != nil && rec.Text == nil && rec.Body == nil && rec.BodyBase64 == nil
}

// indexStored handles a record that carries the item's stored content:
// the content, the FTS rows of the content and the item's metadata are
// left as they are; an enrichment on the record is stored (replacing the
// agent's earlier one, as with new content) and the item becomes enriched.
// The record's chunks must still be the item's (same checksum, each chunk
// equal to the stored chunk of its index): content that changed since
// ll-find read it is refused, so suggestions are never anchored to text
// they were not made from.
func (s *Store) indexStored(ctx context.Context, tx *sqlx.Tx, it *itemRow, rec *record.Record, opts IndexOptions) (*record.IndexResult, error) {
	var rows []struct {
		Index int    `db:"chunk_index"`
		Text  string `db:"text"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT chunk_index, text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, it.ID); err != nil {
		return nil, err
	}
	same := rec.Stored.Checksum == it.Checksum.String && len(rows) > 0 && len(rec.Chunks) <= len(rows)
	for i := 0; same && i < len(rec.Chunks); i++ {
		same = rec.Chunks[i].Index == rows[i].Index && rec.Chunks[i].Text == rows[i].Text
	}
	if !same {
		return nil, &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput,
			Message: "stored content changed since ll-find read it (or the record's chunks are not the item's): nothing stored; run ll-find --with-chunks again"}
	}
	state := it.IngestStatus
	if enriched(rec) {
		var err error
		if state, err = s.storeEnrichment(ctx, tx, it.ID, state, rec, opts.AgentHighlightCap); err != nil {
			return nil, err
		}
		if err := refreshFTS(ctx, tx, it.Seq, it.ID); err != nil {
			return nil, err
		}
	}
	if err := s.noteEnrichment(ctx, tx, it.ID, rec); err != nil {
		return nil, err
	}
	return &record.IndexResult{Status: state, Chunks: len(rows), Unchanged: true}, nil
}

// noteEnrichment records the outcome of ll-enrich on the item: a stored
// enrichment clears the last failure; a failure (enrich.error on a record
// without an agent artifact) is kept as the item's last enrichment error
// and written to the history as an enrich_failed event. The item's state
// is not changed by a failure: it stays parsed.
func (s *Store) noteEnrichment(ctx context.Context, tx *sqlx.Tx, itemID string, rec *record.Record) error {
	if enriched(rec) {
		_, err := tx.ExecContext(ctx, `UPDATE items SET enrich_error_json = NULL WHERE id = ? AND enrich_error_json IS NOT NULL`, itemID)
		return err
	}
	if rec.Enrich == nil || rec.Enrich.Error == nil {
		return nil
	}
	e := *rec.Enrich.Error
	if e.Stage == "" {
		e.Stage = record.StageEnrich
	}
	e.Message = cutMessage(e.Message, maxEnrichErrorMessage)
	ej, err := json.Marshal(&e)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET enrich_error_json = ? WHERE id = ?`, string(ej), itemID); err != nil {
		return err
	}
	return s.event(ctx, tx, itemID, "ingest", "", enrichFailedEventName, eventActorIndex, &e)
}

// cutMessage keeps at most n bytes of s, on a rune boundary.
func cutMessage(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// artifactDetail is what artifacts.detail_json keeps of an artifact beyond
// its summary and key claims' texts.
type artifactDetail struct {
	Claims       []record.Claim     `json:"claims,omitempty"`
	Method       string             `json:"method,omitempty"`
	Model        string             `json:"model,omitempty"`
	EndpointHost string             `json:"endpoint_host,omitempty"`
	Tokens       *record.TokenUsage `json:"tokens,omitempty"`
	SummaryBy    string             `json:"summary_by,omitempty"`
	Tags         []string           `json:"tags,omitempty"`
}

// detailJSON is the detail_json of a: nil (NULL) when a has none.
func detailJSON(a *record.Artifact) (any, error) {
	d := artifactDetail{Claims: a.Claims, Method: a.Method, Model: a.Model, EndpointHost: a.EndpointHost,
		Tokens: a.Tokens, SummaryBy: a.SummaryBy, Tags: a.Tags}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	if string(b) == "{}" {
		return nil, nil
	}
	return string(b), nil
}

// applyDetail fills a's claims and provenance from its detail_json; a
// NULL or malformed detail leaves a as it is.
func applyDetail(a *record.Artifact, detail sql.NullString) {
	if !detail.Valid {
		return
	}
	var d artifactDetail
	if json.Unmarshal([]byte(detail.String), &d) != nil {
		return
	}
	a.Claims, a.Method, a.Model, a.EndpointHost = d.Claims, d.Method, d.Model, d.EndpointHost
	a.Tokens, a.SummaryBy, a.Tags = d.Tokens, d.SummaryBy, d.Tags
}
