package store

// The review queue: a person confirms or rejects agent annotations, or
// sets their confidence (linkledger review). See docs/store.md.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Review decisions (annotations.review).
const (
	ReviewConfirmed = "confirmed"
	ReviewRejected  = "rejected"
)

const (
	annotationConfirmedEventName  = "confirmed"
	annotationRejectedEventName   = "rejected"
	annotationConfidenceEventName = "confidence_set"
)

// ReviewQueue lists agent annotations no person has reviewed yet, best
// first (confidence descending, then newest), at most limit (0: all).
// Each record is the annotation's item (id, url, title) with that one
// annotation. Deleted items' annotations are gone with them.
func (s *Store) ReviewQueue(ctx context.Context, limit int) ([]*record.Record, error) {
	q := `SELECT a.id, a.item_id, a.chunk_id, a.type, a.text, a.actor, a.confidence, a.pinned, a.created_at,
			i.canonical_url AS url, i.title AS title
		FROM annotations a JOIN items i ON i.id = a.item_id
		WHERE a.review IS NULL AND a.actor LIKE 'agent:%'
		ORDER BY coalesce(a.confidence, 0) DESC, a.created_at DESC, a.id DESC`
	var args []any
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var rows []struct {
		annRow
		URL   string `db:"url"`
		Title string `db:"title"`
	}
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]*record.Record, 0, len(rows))
	for _, r := range rows {
		out = append(out, &record.Record{ID: r.ItemID, URL: r.URL, Title: r.Title, Annotations: []record.Annotation{r.annotation()}})
	}
	return out, nil
}

// ReviewDecision is one decision on one annotation: Decision is
// confirmed, rejected or empty (only the confidence changes); Confidence,
// when set, replaces the annotation's confidence.
type ReviewDecision struct {
	AnnotationID int64
	Decision     string
	Confidence   *float64
}

// Review applies a person's (or an agent's, as actor says) decision to an
// annotation and writes an event. Rejecting takes the annotation out of
// the item's search row, find's highlights and scoring and briefs, and
// keeps it in the table (confirming it again restores it). It returns the
// annotation's item with the annotation as it now is, or ErrNoAnnotation
// (wrapped in a *NoAnnotationError) for an unknown id.
func (s *Store) Review(ctx context.Context, d ReviewDecision, actor string) (*record.Record, error) {
	if !ValidActor(actor) {
		return nil, fmt.Errorf("actor %q: want human or agent:<name>", actor)
	}
	if d.Decision != "" && d.Decision != ReviewConfirmed && d.Decision != ReviewRejected {
		return nil, badInput("review %q: want confirmed or rejected", d.Decision)
	}
	if d.Confidence != nil && !(*d.Confidence >= 0 && *d.Confidence <= 1) {
		return nil, badInput("confidence %v: want a number from 0 to 1", *d.Confidence)
	}
	var rec *record.Record
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var a struct {
			annRow
			Review     sql.NullString `db:"review"`
			ReviewedBy sql.NullString `db:"reviewed_by"`
		}
		err := tx.GetContext(ctx, &a, `SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at, review, reviewed_by FROM annotations WHERE id = ?`, d.AnnotationID)
		if errors.Is(err, sql.ErrNoRows) {
			return &NoAnnotationError{IDs: []int64{d.AnnotationID}}
		}
		if err != nil {
			return err
		}
		if a.ReviewedBy.String == ActorHuman && actor != ActorHuman {
			// a human decision is never overridden by an agent
			return badInput("annotation %d was %s by a person: %s cannot change it", a.ID, a.Review.String, actor)
		}
		it, err := getItem(ctx, tx, a.ItemID)
		if err != nil {
			return err
		}
		if it == nil {
			return ErrNotFound
		}
		now := s.nowString()
		ftsDirty := false
		if d.Confidence != nil {
			if _, err := tx.ExecContext(ctx, `UPDATE annotations SET confidence = ? WHERE id = ?`, *d.Confidence, a.ID); err != nil {
				return err
			}
			detail := map[string]any{"confidence": *d.Confidence}
			if a.Confidence.Valid {
				detail["was"] = a.Confidence.Float64
			}
			if err := s.event(ctx, tx, a.ItemID, "annotation", fmt.Sprint(a.ID), annotationConfidenceEventName, actor, detail); err != nil {
				return err
			}
			a.Confidence = sql.NullFloat64{Float64: *d.Confidence, Valid: true}
		}
		review := a.Review.String
		if d.Decision != "" {
			if _, err := tx.ExecContext(ctx, `UPDATE annotations SET review = ?, reviewed_at = ?, reviewed_by = ? WHERE id = ?`, d.Decision, now, actor, a.ID); err != nil {
				return err
			}
			action := annotationConfirmedEventName
			if d.Decision == ReviewRejected {
				action = annotationRejectedEventName
			}
			detail := map[string]any{"type": a.Type, "text": a.Text, "by_actor": a.Actor}
			if a.Review.Valid {
				detail["was"] = a.Review.String
			}
			if err := s.event(ctx, tx, a.ItemID, "annotation", fmt.Sprint(a.ID), action, actor, detail); err != nil {
				return err
			}
			ftsDirty = (review == ReviewRejected) != (d.Decision == ReviewRejected)
			review = d.Decision
		}
		if ftsDirty {
			if err := refreshFTS(ctx, tx, it.Seq, it.ID); err != nil {
				return err
			}
		}
		ann := a.annotation()
		ann.Review = review
		rec = &record.Record{ID: it.ID, URL: it.CanonicalURL, Title: it.Title, Annotations: []record.Annotation{ann}}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// ValidReviewDecision says whether s names a decision (confirm, confirmed,
// reject, rejected) and returns its stored form.
func ValidReviewDecision(s string) (string, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "confirm", ReviewConfirmed:
		return ReviewConfirmed, true
	case "reject", ReviewRejected:
		return ReviewRejected, true
	}
	return "", false
}
