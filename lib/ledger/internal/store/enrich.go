package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

const (
	artifactReplacedEventName   = "replaced"
	annotationReplacedEventName = "replaced"
)

// enriched reports whether rec carries an enrichment for ll-index: an
// artifact created by an agent (ll-enrich). Any other artifact on a
// record is ignored by ll-index, as it always was: a person's artifact
// goes through ll-save.
func enriched(rec *record.Record) bool {
	return rec.Artifact != nil && isAgent(rec.Artifact.CreatedBy)
}

// checkEnrichment refuses an enrichment ll-index cannot store: a bad
// agent name, an empty artifact, a suggestion without text or with a
// confidence outside 0..1.
func checkEnrichment(rec *record.Record) *record.Error {
	if !enriched(rec) {
		return nil
	}
	a := rec.Artifact
	bad := func(format string, args ...any) *record.Error {
		return &record.Error{Stage: record.StageIndex, Code: record.CodeBadInput, Message: fmt.Sprintf(format, args...)}
	}
	if !record.ValidActor(a.CreatedBy) {
		return bad("artifact: created_by %s: want agent:<name>", record.Quote(a.CreatedBy))
	}
	if strings.TrimSpace(a.Summary) == "" && len(a.KeyClaims) == 0 {
		return bad("artifact: empty summary and key_claims")
	}
	for i, s := range suggestions(rec) {
		if s.Confidence != nil {
			if err := record.CheckConfidence(*s.Confidence); err != nil {
				return bad("suggestion %d: %v", i+1, err)
			}
		}
		if strings.TrimSpace(s.Text) == "" || len(s.Text) > maxAnnotationTextBytes {
			return bad("suggestion %d: text empty or over %d bytes", i+1, maxAnnotationTextBytes)
		}
	}
	return nil
}

// suggestions are the record's highlights by the artifact's agent: the
// enricher's suggestions. Other annotations a record carries (ll-find
// output piped back) are not ll-index's to store.
func suggestions(rec *record.Record) []record.Annotation {
	var out []record.Annotation
	for _, a := range rec.Annotations {
		if a.Type == record.AnnHighlight && a.Actor == rec.Artifact.CreatedBy {
			out = append(out, a)
		}
	}
	return out
}

// storeEnrichment writes rec's artifact and suggestions in the index
// transaction: the agent's earlier artifacts and unpinned highlights on
// the item are replaced (a human's and pinned ones never are), the new
// suggestions are anchored to their chunks by index, the agent highlight
// cap is applied, and a parsed item becomes enriched. It returns the
// item's state after.
func (s *Store) storeEnrichment(ctx context.Context, tx *sqlx.Tx, itemID, state string, rec *record.Record, limit int) (string, error) {
	a := rec.Artifact
	by := a.CreatedBy
	now := s.nowString()
	var old []int64
	if err := tx.SelectContext(ctx, &old, `SELECT id FROM artifacts WHERE item_id = ? AND created_by = ? ORDER BY id`, itemID, by); err != nil {
		return "", err
	}
	for _, id := range old {
		if _, err := tx.ExecContext(ctx, `DELETE FROM artifacts WHERE id = ?`, id); err != nil {
			return "", err
		}
		if err := s.event(ctx, tx, itemID, "artifact", fmt.Sprint(id), artifactReplacedEventName, by, nil); err != nil {
			return "", err
		}
	}
	var oldAnns []int64
	if err := tx.SelectContext(ctx, &oldAnns, `SELECT id FROM annotations WHERE item_id = ? AND actor = ? AND type = 'highlight' AND pinned = 0 AND review IS NULL ORDER BY id`, itemID, by); err != nil {
		return "", err
	}
	for _, id := range oldAnns {
		if _, err := tx.ExecContext(ctx, `DELETE FROM annotations WHERE id = ?`, id); err != nil {
			return "", err
		}
		if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(id), annotationReplacedEventName, by, nil); err != nil {
			return "", err
		}
	}
	claims := a.SupportedClaims() // evidence only
	if claims == nil {
		claims = []string{}
	}
	cj, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	dj, err := detailJSON(a)
	if err != nil {
		return "", err
	}
	r, err := tx.ExecContext(ctx, `INSERT INTO artifacts(item_id, summary, key_claims_json, created_by, created_at, detail_json) VALUES (?,?,?,?,?,?)`,
		itemID, strings.TrimSpace(a.Summary), string(cj), by, now, dj)
	if err != nil {
		return "", err
	}
	id, err := r.LastInsertId()
	if err != nil {
		return "", err
	}
	detail := map[string]any{"method": a.Method}
	if len(a.Claims) > 0 {
		// where each claim came from, kept in the audit log too (the
		// artifact row keeps them in detail_json)
		detail["claims"] = a.Claims
	}
	if err := s.event(ctx, tx, itemID, "artifact", fmt.Sprint(id), artifactCreatedEventName, by, detail); err != nil {
		return "", err
	}
	for _, h := range suggestions(rec) {
		h.Text = strings.TrimSpace(h.Text)
		var kept int
		if err := tx.GetContext(ctx, &kept, `SELECT count(*) FROM annotations WHERE item_id = ? AND actor = ? AND type = 'highlight' AND text = ?`, itemID, by, h.Text); err != nil {
			return "", err
		}
		if kept > 0 {
			continue // the same suggestion, pinned: it stays, once
		}
		h.ChunkID = nil
		if h.ChunkIndex != nil {
			var cid int64
			if err := tx.GetContext(ctx, &cid, `SELECT id FROM content_chunks WHERE item_id = ? AND chunk_index = ?`, itemID, *h.ChunkIndex); err == nil {
				h.ChunkID = &cid
			}
		}
		h.Pinned = false
		if h.Confidence == nil {
			c := DefaultAgentConfidenceValue
			h.Confidence = &c
		}
		if _, err := s.insertAnnotation(ctx, tx, itemID, h, now, ""); err != nil {
			// a suggestion that does not quote the text is not evidence:
			// left out, and the history says so
			var re *record.Error
			if !errors.As(err, &re) || re.Code != record.CodeQuoteNotFound {
				return "", err
			}
			if err := s.event(ctx, tx, itemID, "annotation", "", annotationRefusedEventName, by,
				map[string]any{"type": h.Type, "text": h.Text, "code": re.Code}); err != nil {
				return "", err
			}
		}
	}
	if _, err := s.mergeNearDuplicates(ctx, tx, itemID, by); err != nil {
		return "", err
	}
	if _, err := s.enforceCap(ctx, tx, itemID, limit, by); err != nil {
		return "", err
	}
	if state == record.StateParsed {
		if err := s.setState(ctx, tx, itemID, state, record.StateEnriched, by); err != nil {
			return "", err
		}
		state = record.StateEnriched
	}
	return state, nil
}
