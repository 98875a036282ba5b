package store

// Versions of what a person reviews, so a decision made on a stale page
// is refused instead of applied, undo of a decision, and a batch of
// decisions in one transaction (the web app's review queue; docs/ui.md
// "Review you can trust").

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

const annotationUndoneEventName = "review_undone"

// annotationVersion is a digest of everything about an annotation that a
// decision depends on: which annotation it is (id, item, creation time,
// so an id used again is another version), its type, text and actor,
// confidence, pin and review. Any change by anyone gives another
// version; a change taken back (a confirm undone) gives the old one
// again, which is right: the page shows what is.
func annotationVersion(a annRow, review string) string {
	h := sha256.New()
	conf := "-"
	if a.Confidence.Valid {
		conf = strconv.FormatFloat(a.Confidence.Float64, 'g', -1, 64)
	}
	fmt.Fprintf(h, "ann\x00%d\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%t\x00%s", a.ID, a.ItemID, a.CreatedAt, a.Type, a.Text, a.Actor, conf, a.Pinned, review)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// tagVersion is the version of an agent's tag on an item: who added it
// when, and its review (rejected when it was taken off).
func tagVersion(itemID string, t tagRow) string {
	h := sha256.New()
	fmt.Fprintf(h, "tag\x00%s\x00%s\x00%s\x00%s\x00%s", itemID, t.Tag, t.Actor, t.CreatedAt, t.Review.String)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// reviewState says in words what an annotation's review state is now.
func reviewState(review, reviewedBy string) string {
	if review == "" {
		return "undecided"
	}
	if reviewedBy != "" {
		return review + " by " + reviewedBy
	}
	return review
}

// ReviewAll applies decisions by actor in one transaction, in order: all
// of them, or, when one fails (stale, unknown, refused), none, and the
// error names the one that failed (its index in ds is in the
// *BatchError). The records are as Review's.
func (s *Store) ReviewAll(ctx context.Context, ds []ReviewDecision, actor string) ([]*record.Record, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	for i := range ds {
		if ds[i].Tag != "" {
			tags, err := cleanTags([]string{ds[i].Tag})
			if err != nil {
				return nil, &BatchError{Index: i, Err: err}
			}
			if len(tags) == 1 {
				ds[i].Tag = tags[0]
			}
		}
		if err := checkDecision(ds[i]); err != nil {
			return nil, &BatchError{Index: i, Err: err}
		}
	}
	out := make([]*record.Record, 0, len(ds))
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		for i, d := range ds {
			rec, err := s.review(ctx, tx, d, actor)
			if err != nil {
				return &BatchError{Index: i, Err: err}
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// AnnotationVersions are the versions of an item's annotations by id
// (what a page carries into a decision's IfVersion).
func (s *Store) AnnotationVersions(ctx context.Context, itemID string) (map[int64]string, error) {
	var rows []struct {
		annRow
		Review sql.NullString `db:"review"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at, review FROM annotations WHERE item_id = ?`, itemID); err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ID] = annotationVersion(r.annRow, r.Review.String)
	}
	return out, nil
}

// undoTag takes a person's decision on a tag back: a confirmed tag is
// undecided again, a rejected one is put back on the item undecided.
func (s *Store) undoTag(ctx context.Context, tx dbtx, itemID string, on, off *tagRow, actor string, detail map[string]any) error {
	tag := off
	if on != nil {
		tag = on
	}
	switch {
	case on != nil && on.Review.Valid:
		if _, err := tx.ExecContext(ctx, `UPDATE tags SET review = NULL, reviewed_at = NULL, reviewed_by = NULL WHERE item_id = ? AND tag = ?`, itemID, on.Tag); err != nil {
			return err
		}
	case off != nil:
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags(item_id, tag, actor, created_at) VALUES (?,?,?,?)`, itemID, off.Tag, off.Actor, off.CreatedAt); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tags_rejected WHERE item_id = ? AND tag = ?`, itemID, off.Tag); err != nil {
			return err
		}
	default:
		return badInput("tag %s is undecided: there is no decision to undo", record.Quote(tag.Tag))
	}
	return s.event(ctx, tx, itemID, "tag", tag.Tag, annotationUndoneEventName, actor, detail)
}

// ChunkTexts are the texts of the chunks ids (at most 500), by id: the
// passages annotations are anchored to, for a review card's context.
// Unknown ids are left out.
func (s *Store) ChunkTexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	if len(ids) > 500 {
		ids = ids[:500]
	}
	q, args, err := sqlx.In(`SELECT id, text FROM content_chunks WHERE id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		ID   int64  `db:"id"`
		Text string `db:"text"`
	}
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r.Text
	}
	return out, nil
}
