package store

// The review queue: a person confirms or rejects agent annotations and
// tags, sets annotations' confidence and pins or unpins highlights
// (linkledger review, and "review" in an ll-save record). A person's
// decision is never changed by an agent. See docs/store.md.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

const (
	annotationConfirmedEventName  = "confirmed"
	annotationRejectedEventName   = "rejected"
	annotationConfidenceEventName = "confidence_set"
	tagConfirmedEventName         = "confirmed"
	tagRejectedEventName          = "rejected"
)

// ReviewQueueOptions are the settings of ReviewQueue.
type ReviewQueueOptions struct {
	// Limit is the most records (0: all).
	Limit int
	// Decay is the decay policy: annotations it decays carry decayed:
	// true.
	Decay DecayPolicy
	// Decayed lists only the annotations Decay decays (tags never decay).
	Decayed bool
}

// ReviewQueue lists agent annotations and agent tags no person has
// reviewed yet, best first: confidence descending (a tag has none, so
// it counts as 0), then newest. Each record is the item (id, url, title)
// with one annotation (annotations[0]) or one tag (tagged[0]). Deleted
// items' annotations and tags are gone with them.
func (s *Store) ReviewQueue(ctx context.Context, opt ReviewQueueOptions) ([]*record.Record, error) {
	dq, dargs := decayCond(opt.Decay, s.Now())
	q := `SELECT 'annotation' AS kind, a.id, a.item_id, a.chunk_id, a.type, a.text, a.actor, a.confidence, a.pinned, a.created_at,
			` + dq + ` AS decayed, i.canonical_url AS url, i.title AS title
		FROM annotations a JOIN items i ON i.id = a.item_id
		WHERE a.review IS NULL AND a.actor LIKE 'agent:%'`
	args := append([]any{}, dargs...)
	if opt.Decayed {
		q += ` AND ` + dq
		args = append(args, dargs...)
	} else {
		q += `
		UNION ALL
		SELECT 'tag', 0, t.item_id, NULL, '', t.tag, t.actor, NULL, 0, t.created_at, 0, i.canonical_url, i.title
		FROM tags t JOIN items i ON i.id = t.item_id
		WHERE t.review IS NULL AND t.actor LIKE 'agent:%'`
	}
	q = `SELECT * FROM (` + q + `)
		ORDER BY coalesce(confidence, 0) DESC, created_at DESC, kind, id DESC, text`
	if opt.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, opt.Limit)
	}
	var rows []struct {
		annRow
		Kind    string `db:"kind"`
		Decayed bool   `db:"decayed"`
		URL     string `db:"url"`
		Title   string `db:"title"`
	}
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]*record.Record, 0, len(rows))
	for _, r := range rows {
		rec := &record.Record{ID: r.ItemID, URL: r.URL, Title: r.Title}
		if r.Kind == "tag" {
			rec.Tagged = []record.Tag{{Tag: r.Text, Actor: r.Actor, CreatedAt: r.CreatedAt,
				Version: tagVersion(r.ItemID, tagRow{Tag: r.Text, Actor: r.Actor, CreatedAt: r.CreatedAt})}}
		} else {
			ann := r.annotation()
			ann.Decayed = r.Decayed
			ann.Version = annotationVersion(r.annRow, "")
			rec.Annotations = []record.Annotation{ann}
		}
		out = append(out, rec)
	}
	return out, nil
}

// check validates the decision's shape (not the rows it names).
func checkDecision(d ReviewDecision) error {
	var confErr error
	if d.Confidence != nil {
		confErr = record.CheckConfidence(*d.Confidence)
	}
	switch {
	case d.AnnotationID > 0 && d.Tag != "":
		return badInput("review: annotation_id %d and tag %s: give one", d.AnnotationID, record.Quote(d.Tag))
	case d.AnnotationID <= 0 && d.Tag == "":
		return badInput("review: want an annotation_id or a tag")
	case d.Decision != "" && d.Decision != ReviewConfirmed && d.Decision != ReviewRejected && d.Decision != ReviewUndo:
		return badInput("review %s: want confirm or reject", record.Quote(d.Decision))
	case d.Decision == ReviewUndo && (d.Confidence != nil || d.Pinned != nil):
		return badInput("annotation %d: an undo takes a decision back and does nothing else", d.AnnotationID)
	case confErr != nil:
		return badInput("%v", confErr)
	case d.Tag != "" && (d.Confidence != nil || d.Pinned != nil):
		return badInput("tag %s: a tag has no confidence and is not pinned", record.Quote(d.Tag))
	case d.Tag != "" && d.Decision == "":
		return badInput("tag %s: want a decision, confirm or reject", record.Quote(d.Tag))
	case d.Decision == "" && d.Confidence == nil && d.Pinned == nil:
		return badInput("annotation %d: nothing to do (want a decision, a confidence or pinned)", d.AnnotationID)
	}
	return nil
}

// agentMayDecide refuses a confirm or reject by an agent: a review
// decision is a person's.
func agentMayDecide(d ReviewDecision, actor string) error {
	if isAgent(actor) && d.Decision != "" {
		what := fmt.Sprintf("annotation %d", d.AnnotationID)
		if d.Tag != "" {
			what = "tag " + record.Quote(d.Tag)
		}
		verb := map[string]string{ReviewConfirmed: "confirm", ReviewRejected: "reject", ReviewUndo: "undo a decision on"}[d.Decision]
		return badInput("%s cannot %s %s: only a person confirms or rejects (actor human)", actor, verb, what)
	}
	return nil
}

// Review applies one decision by actor and writes an event for each
// change. Rejecting an annotation takes it out of the item's search row,
// find's highlights and scoring and briefs, and keeps it in the table
// (confirming it again restores it); rejecting a tag takes it off the
// item and keeps it in tags_rejected (confirming it again puts it back).
// Only a person confirms or rejects, and an agent never changes what a
// person decided (a bad_input *record.Error). It returns the item (id,
// url, title) with the annotation (annotations[0]) or the tag
// (tagged[0]) as it now is, or a *NoAnnotationError / not_found
// *record.Error for an unknown annotation or tag.
func (s *Store) Review(ctx context.Context, d ReviewDecision, actor string) (*record.Record, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	if d.Tag != "" {
		tags, err := cleanTags([]string{d.Tag})
		if err != nil {
			return nil, err
		}
		if len(tags) == 1 {
			d.Tag = tags[0]
		}
	}
	if err := checkDecision(d); err != nil {
		return nil, err
	}
	var rec *record.Record
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		rec, err = s.review(ctx, tx, d, actor)
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// review is Review's work inside the transaction tx, for Review and for
// the review decisions of a saved record. d has passed check.
func (s *Store) review(ctx context.Context, tx dbtx, d ReviewDecision, actor string) (*record.Record, error) {
	if d.Tag != "" {
		if err := agentMayDecide(d, actor); err != nil {
			return nil, err
		}
		return s.reviewTag(ctx, tx, d, actor)
	}
	var a struct {
		annRow
		Review     sql.NullString `db:"review"`
		ReviewedBy sql.NullString `db:"reviewed_by"`
	}
	err := tx.GetContext(ctx, &a, `SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at, review, reviewed_by FROM annotations WHERE id = ?`, d.AnnotationID)
	if errors.Is(err, sql.ErrNoRows) || err == nil && d.ItemID != "" && a.ItemID != d.ItemID {
		if d.ItemID != "" {
			// a saved record's decision: an error record, as for pin
			return nil, &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: fmt.Sprintf("no annotation %d on item %s", d.AnnotationID, record.Echo(d.ItemID))}
		}
		return nil, &NoAnnotationError{IDs: []int64{d.AnnotationID}}
	}
	if err != nil {
		return nil, err
	}
	if d.IfVersion != "" && annotationVersion(a.annRow, a.Review.String) != d.IfVersion {
		return nil, &StaleError{ItemID: a.ItemID, AnnotationID: a.ID, Now: reviewState(a.Review.String, a.ReviewedBy.String)}
	}
	if d.Decision == ReviewUndo && !a.Review.Valid {
		return nil, badInput("annotation %d is undecided: there is no decision to undo", a.ID)
	}
	if a.ReviewedBy.String == ActorHuman && actor != ActorHuman {
		// a human decision is never overridden by an agent
		return nil, badInput("annotation %d was %s by a person: %s cannot change it", a.ID, a.Review.String, actor)
	}
	if err := agentMayDecide(d, actor); err != nil {
		return nil, err
	}
	if isAgent(actor) && d.Confidence != nil {
		byPerson, err := humanEvent(ctx, tx, a.ItemID, a.ID, annotationConfidenceEventName)
		if err != nil {
			return nil, err
		}
		if byPerson {
			return nil, badInput("annotation %d's confidence was set by a person: %s cannot change it", a.ID, actor)
		}
	}
	it, err := getItem(ctx, tx, a.ItemID)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, ErrNotFound
	}
	now := s.nowString()
	ftsDirty := false
	if d.Confidence != nil {
		if _, err := tx.ExecContext(ctx, `UPDATE annotations SET confidence = ? WHERE id = ?`, *d.Confidence, a.ID); err != nil {
			return nil, err
		}
		detail := map[string]any{"confidence": *d.Confidence}
		if a.Confidence.Valid {
			detail["was"] = a.Confidence.Float64
		}
		if err := s.event(ctx, tx, a.ItemID, "annotation", fmt.Sprint(a.ID), annotationConfidenceEventName, actor, detail); err != nil {
			return nil, err
		}
		a.Confidence = sql.NullFloat64{Float64: *d.Confidence, Valid: true}
	}
	if d.Pinned != nil {
		if err := s.setPinned(ctx, tx, a.ItemID, a.ID, *d.Pinned, actor); err != nil {
			return nil, err
		}
		a.Pinned = *d.Pinned
	}
	review := a.Review.String
	if d.Decision == ReviewUndo {
		if _, err := tx.ExecContext(ctx, `UPDATE annotations SET review = NULL, reviewed_at = NULL, reviewed_by = NULL WHERE id = ?`, a.ID); err != nil {
			return nil, err
		}
		detail := map[string]any{"type": a.Type, "text": a.Text, "by_actor": a.Actor, "was": a.Review.String}
		if err := s.event(ctx, tx, a.ItemID, "annotation", fmt.Sprint(a.ID), annotationUndoneEventName, actor, detail); err != nil {
			return nil, err
		}
		ftsDirty = review == ReviewRejected
		review = ""
	} else if d.Decision != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE annotations SET review = ?, reviewed_at = ?, reviewed_by = ? WHERE id = ?`, d.Decision, now, actor, a.ID); err != nil {
			return nil, err
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
			return nil, err
		}
		ftsDirty = (review == ReviewRejected) != (d.Decision == ReviewRejected)
		review = d.Decision
	}
	if ftsDirty {
		if err := refreshFTS(ctx, tx, it.Seq, it.ID); err != nil {
			return nil, err
		}
	}
	ann := a.annotation()
	ann.Review = review
	ann.Version = annotationVersion(a.annRow, review)
	return &record.Record{ID: it.ID, URL: it.CanonicalURL, Title: it.Title, Annotations: []record.Annotation{ann}}, nil
}

// humanEvent reports whether a person did action to annotation annID.
func humanEvent(ctx context.Context, tx dbtx, itemID string, annID int64, actions ...string) (bool, error) {
	q, args, err := sqlx.In(`SELECT EXISTS (SELECT 1 FROM events WHERE item_id = ? AND entity = 'annotation' AND entity_id = ?
		AND actor = ? AND action IN (?))`, itemID, fmt.Sprint(annID), ActorHuman, actions)
	if err != nil {
		return false, err
	}
	var n int
	if err := tx.GetContext(ctx, &n, q, args...); err != nil {
		return false, err
	}
	return n > 0, nil
}

// tagRow is a row of tags (review state included) or of tags_rejected.
type tagRow struct {
	Tag        string         `db:"tag"`
	Actor      string         `db:"actor"`
	CreatedAt  string         `db:"created_at"`
	Review     sql.NullString `db:"review"`
	ReviewedBy sql.NullString `db:"reviewed_by"`
}

// reviewTag confirms or rejects tag d.Tag of item d.ItemID (see Review).
func (s *Store) reviewTag(ctx context.Context, tx dbtx, d ReviewDecision, actor string) (*record.Record, error) {
	it, err := getItem(ctx, tx, d.ItemID)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: fmt.Sprintf("no item with id %s", record.Echo(d.ItemID))}
	}
	var on, off *tagRow
	var t tagRow
	err = tx.GetContext(ctx, &t, `SELECT tag, actor, created_at, review, reviewed_by FROM tags WHERE item_id = ? AND tag = ?`, it.ID, d.Tag)
	switch {
	case err == nil:
		on = &t
	case !errors.Is(err, sql.ErrNoRows):
		return nil, err
	default:
		var r tagRow
		err = tx.GetContext(ctx, &r, `SELECT tag, actor, created_at, 'rejected' AS review, rejected_by AS reviewed_by FROM tags_rejected WHERE item_id = ? AND tag = ?`, it.ID, d.Tag)
		switch {
		case err == nil:
			off = &r
		case errors.Is(err, sql.ErrNoRows):
			return nil, &record.Error{Stage: record.StageSave, Code: record.CodeNotFound, Message: fmt.Sprintf("no tag %s on item %s", record.Quote(d.Tag), it.ID)}
		default:
			return nil, err
		}
	}
	now := s.nowString()
	cur := on
	if cur == nil {
		cur = off
	}
	if d.IfVersion != "" && tagVersion(it.ID, *cur) != d.IfVersion {
		return nil, &StaleError{ItemID: it.ID, Tag: cur.Tag, Now: reviewState(cur.Review.String, cur.ReviewedBy.String)}
	}
	out := record.Tag{Tag: cur.Tag, Actor: cur.Actor, CreatedAt: cur.CreatedAt, Review: cur.Review.String}
	detail := map[string]any{"by_actor": cur.Actor}
	if cur.Review.Valid {
		detail["was"] = cur.Review.String
	}
	if d.Decision == ReviewUndo {
		if err := s.undoTag(ctx, tx, it.ID, on, off, actor, detail); err != nil {
			return nil, err
		}
		out.Review = ""
		out.Version = tagVersion(it.ID, tagRow{Tag: out.Tag, Actor: out.Actor, CreatedAt: out.CreatedAt})
		return &record.Record{ID: it.ID, URL: it.CanonicalURL, Title: it.Title, Tagged: []record.Tag{out}}, nil
	}
	switch {
	case d.Decision == ReviewConfirmed && on != nil:
		if on.Review.String == ReviewConfirmed {
			break // nothing to do
		}
		if _, err := tx.ExecContext(ctx, `UPDATE tags SET review = ?, reviewed_at = ?, reviewed_by = ? WHERE item_id = ? AND tag = ?`, ReviewConfirmed, now, actor, it.ID, d.Tag); err != nil {
			return nil, err
		}
		if err := s.event(ctx, tx, it.ID, "tag", d.Tag, tagConfirmedEventName, actor, detail); err != nil {
			return nil, err
		}
	case d.Decision == ReviewConfirmed:
		// confirming a rejected tag puts it back on the item
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags(item_id, tag, actor, created_at, review, reviewed_at, reviewed_by) VALUES (?,?,?,?,?,?,?)`,
			it.ID, d.Tag, off.Actor, off.CreatedAt, ReviewConfirmed, now, actor); err != nil {
			return nil, err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tags_rejected WHERE item_id = ? AND tag = ?`, it.ID, d.Tag); err != nil {
			return nil, err
		}
		if err := s.event(ctx, tx, it.ID, "tag", d.Tag, tagConfirmedEventName, actor, detail); err != nil {
			return nil, err
		}
	case on != nil:
		if err := s.rejectTag(ctx, tx, it.ID, *on, actor, now); err != nil {
			return nil, err
		}
		if err := s.event(ctx, tx, it.ID, "tag", d.Tag, tagRejectedEventName, actor, detail); err != nil {
			return nil, err
		}
	}
	out.Review = d.Decision
	out.Version = tagVersion(it.ID, tagRow{Tag: out.Tag, Actor: out.Actor, CreatedAt: out.CreatedAt, Review: sql.NullString{String: d.Decision, Valid: true}})
	return &record.Record{ID: it.ID, URL: it.CanonicalURL, Title: it.Title, Tagged: []record.Tag{out}}, nil
}

// rejectTag takes tag t off item itemID and remembers the rejection.
func (s *Store) rejectTag(ctx context.Context, tx dbtx, itemID string, t tagRow, actor, now string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM tags WHERE item_id = ? AND tag = ?`, itemID, t.Tag); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO tags_rejected(item_id, tag, actor, created_at, rejected_by, rejected_at) VALUES (?,?,?,?,?,?)
		ON CONFLICT(item_id, tag) DO UPDATE SET actor = excluded.actor, created_at = excluded.created_at, rejected_by = excluded.rejected_by, rejected_at = excluded.rejected_at`,
		itemID, t.Tag, t.Actor, t.CreatedAt, actor, now)
	return err
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
