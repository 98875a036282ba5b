package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Whole-item reads and housekeeping writes: show, the tags listing,
// removing annotations, archiving and deleting. Every write is one
// transaction that also writes its event (the history), and keeps both
// full-text indexes in step.

// Event actions of the housekeeping writes.
const (
	itemArchivedEventName          = "archived"
	itemUnarchivedEventName        = "unarchived"
	itemDeletedEventName           = "deleted"
	itemDuplicateClearedEventName  = "duplicate_cleared"
	annotationRemovedEventName     = "removed"
	changeArchive, changeUnarchive = "archive", "unarchive"
	changeDelete, changeUnannotate = "delete", "unannotate"
)

// ShowOptions are the settings of Show.
type ShowOptions struct {
	// Text adds the item's chunks, in order, as the record's chunks.
	Text bool
	// Markdown adds the item's structured document (record.Markdown),
	// when its last parse kept one.
	Markdown bool
}

// Show returns everything stored about one item: the status record
// (metadata, ingest state and times, last error, counts, tags) plus
// archived_at, every annotation (oldest first, with chunk id and index),
// its tags with who added them, every artifact, and with opts.Text its
// chunks. It returns ErrNotFound for an unknown id.
func (s *Store) Show(ctx context.Context, id string, opts ShowOptions) (*record.Record, error) {
	rec, err := s.Status(ctx, id)
	if err != nil {
		return nil, err
	}
	id = rec.ID
	var ingest IngestInfo
	if err := json.Unmarshal(rec.Extra["ingest"], &ingest); err == nil {
		rec.Status = ingest.Status
	}
	var anns []struct {
		annRow
		ChunkIndex sql.NullInt64 `db:"chunk_index"`
		Review     string        `db:"review"`
	}
	if err := s.db.SelectContext(ctx, &anns, `SELECT id, item_id, chunk_id, chunk_index, type, text, actor, confidence, pinned, created_at,
		coalesce(review, '') AS review, orphaned_at, `+pendingCol+`
		FROM annotations WHERE item_id = ? ORDER BY id`, id); err != nil {
		return nil, err
	}
	for _, a := range anns {
		ann := a.annotation()
		ann.Review = a.Review
		if a.ChunkIndex.Valid {
			ci := int(a.ChunkIndex.Int64)
			ann.ChunkIndex = &ci
		}
		rec.Annotations = append(rec.Annotations, ann)
	}
	var tags []struct {
		Tag       string `db:"tag"`
		Actor     string `db:"actor"`
		CreatedAt string `db:"created_at"`
		Review    string `db:"review"`
	}
	if err := s.db.SelectContext(ctx, &tags, `SELECT tag, actor, created_at, coalesce(review, '') AS review FROM tags WHERE item_id = ? ORDER BY tag`, id); err != nil {
		return nil, err
	}
	for _, t := range tags {
		rec.Tagged = append(rec.Tagged, record.Tag{Tag: t.Tag, Actor: t.Actor, CreatedAt: t.CreatedAt, Review: t.Review})
	}
	var arts []struct {
		Summary   string         `db:"summary"`
		Claims    string         `db:"key_claims_json"`
		CreatedBy string         `db:"created_by"`
		CreatedAt string         `db:"created_at"`
		Detail    sql.NullString `db:"detail_json"`
	}
	if err := s.db.SelectContext(ctx, &arts, `SELECT summary, key_claims_json, created_by, created_at, detail_json FROM artifacts WHERE item_id = ? ORDER BY created_at, id`, id); err != nil {
		return nil, err
	}
	for _, a := range arts {
		art := record.Artifact{Summary: a.Summary, CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt}
		if err := json.Unmarshal([]byte(a.Claims), &art.KeyClaims); err != nil {
			return nil, fmt.Errorf("item %s: artifact key claims: %w", id, err)
		}
		applyDetail(&art, a.Detail)
		art.KeyClaims = art.SupportedClaims() // claims still lists the unsupported ones, marked
		rec.Artifacts = append(rec.Artifacts, art)
	}
	if opts.Text {
		var chunks []chunkRow
		if err := s.db.SelectContext(ctx, &chunks, `SELECT id, chunk_index, text, tokens, start_s, page, `+chunkKindCol+` FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, id); err != nil {
			return nil, err
		}
		for _, c := range chunks {
			ch := record.Chunk{ID: c.ID, Index: c.Index, Text: c.Text, Tokens: c.Tokens, Page: int(c.Page.Int64), Kind: c.Kind}
			if c.StartS.Valid {
				v := c.StartS.Float64
				ch.StartS = &v
			}
			rec.Chunks = append(rec.Chunks, ch)
		}
	}
	if opts.Markdown {
		err := s.db.GetContext(ctx, &rec.Markdown, `SELECT markdown FROM item_markdown WHERE item_id = ?`, id)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if rec.Images, err = s.itemImages(ctx, id); err != nil {
			return nil, err
		}
	}
	return rec, nil
}

// TagCounts lists every tag with the number of items it is on, in all and
// by the actor who added it, most used first (then by name). Archived
// items count too.
func (s *Store) TagCounts(ctx context.Context) ([]record.TagCount, error) {
	var rows []struct {
		Tag   string `db:"tag"`
		Actor string `db:"actor"`
		N     int    `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT tag, actor, count(*) AS n FROM tags GROUP BY tag, actor`); err != nil {
		return nil, err
	}
	byTag := map[string]*record.TagCount{}
	var out []*record.TagCount
	for _, r := range rows {
		tc := byTag[r.Tag]
		if tc == nil {
			tc = &record.TagCount{Tag: r.Tag, ByActor: map[string]int{}}
			byTag[r.Tag] = tc
			out = append(out, tc)
		}
		tc.Items += r.N
		tc.ByActor[r.Actor] += r.N
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Items != out[j].Items {
			return out[i].Items > out[j].Items
		}
		return out[i].Tag < out[j].Tag
	})
	res := make([]record.TagCount, len(out))
	for i, tc := range out {
		res[i] = *tc
	}
	return res, nil
}

// itemWrite is the prologue of a change to one item by actor: the actor
// is checked, then fn runs in one transaction with the item's row
// (ErrNotFound when there is none).
func (s *Store) itemWrite(ctx context.Context, itemID, actor string, fn func(tx *sqlx.Tx, it *itemRow) error) error {
	if err := record.CheckActor(actor); err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sqlx.Tx) error {
		it, err := getItem(ctx, tx, itemID)
		if err != nil {
			return err
		}
		if it == nil {
			return ErrNotFound
		}
		return fn(tx, it)
	})
}

// RemoveAnnotations deletes annotations of one item, all or none: when an
// id is not one of the item's annotations nothing is removed and a
// *NoAnnotationError is returned. The item's full-text rows are rebuilt and
// an event per annotation (its type, text and actor) is written, in the
// same transaction.
func (s *Store) RemoveAnnotations(ctx context.Context, itemID string, ids []int64, actor string) (*record.Change, error) {
	ch := &record.Change{Action: changeUnannotate}
	err := s.itemWrite(ctx, itemID, actor, func(tx *sqlx.Tx, it *itemRow) error {
		*ch = record.Change{Action: changeUnannotate, At: s.nowString()}
		type ann struct {
			ID         int64           `db:"id"`
			Type       string          `db:"type"`
			Text       string          `db:"text"`
			Actor      string          `db:"actor"`
			Confidence sql.NullFloat64 `db:"confidence"`
			Pinned     bool            `db:"pinned"`
		}
		var found []ann
		var missing []int64
		seen := map[int64]bool{}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			var a ann
			err := tx.GetContext(ctx, &a, `SELECT id, type, text, actor, confidence, pinned FROM annotations WHERE id = ? AND item_id = ?`, id, itemID)
			if errors.Is(err, sql.ErrNoRows) {
				missing = append(missing, id)
				continue
			}
			if err != nil {
				return err
			}
			found = append(found, a)
		}
		if len(missing) > 0 {
			return &NoAnnotationError{ItemID: itemID, IDs: missing}
		}
		for _, a := range found {
			if _, err := tx.ExecContext(ctx, `DELETE FROM annotations WHERE id = ?`, a.ID); err != nil {
				return err
			}
			detail := map[string]any{"type": a.Type, "text": a.Text, "by_actor": a.Actor}
			if a.Confidence.Valid {
				detail["confidence"] = a.Confidence.Float64
			}
			if a.Pinned {
				detail["pinned"] = true
			}
			if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(a.ID), annotationRemovedEventName, actor, detail); err != nil {
				return err
			}
			ch.AnnotationsRemoved = append(ch.AnnotationsRemoved, a.ID)
		}
		ch.Changed = len(found) > 0
		if ch.Changed {
			return refreshFTS(ctx, tx, it.Seq, it.ID)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// SetArchived archives (archived true) or unarchives an item and writes an
// event when that changed anything. Archiving an archived item keeps its
// first archived_at. It returns ErrNotFound for an unknown id.
func (s *Store) SetArchived(ctx context.Context, itemID string, archived bool, actor string) (*record.Change, error) {
	if err := record.CheckActor(actor); err != nil {
		return nil, err
	}
	ch := &record.Change{Action: changeUnarchive}
	if archived {
		ch.Action = changeArchive
	}
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		ch.Changed, ch.At = false, ""
		var cur sql.NullString
		err := tx.GetContext(ctx, &cur, `SELECT archived_at FROM items WHERE id = ?`, itemID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if cur.Valid == archived {
			ch.At = cur.String
			return nil
		}
		now := s.nowString()
		var val any
		action := itemUnarchivedEventName
		if archived {
			val, action, ch.At = now, itemArchivedEventName, now
		}
		if _, err := tx.ExecContext(ctx, `UPDATE items SET archived_at = ?, updated_at = ? WHERE id = ?`, val, now, itemID); err != nil {
			return err
		}
		if archived {
			// archived means read (issue 30): it stays read once unarchived
			if err := markReadOnArchive(ctx, tx, itemID, now); err != nil {
				return err
			}
		}
		ch.Changed = true
		return s.event(ctx, tx, itemID, "item", itemID, action, actor, nil)
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// Delete removes an item for good, in one transaction: its rows in both
// full-text indexes, then the item with its chunks, annotations, tags and
// artifacts (foreign keys cascade). Items marked duplicates of it are
// unmarked (each gets an event). The history stays: events have no
// foreign key, and a "deleted" event with the item's URL, title and what
// went with it is added. Saving the same URL again creates a new item
// (with the same id, since the id is derived from the canonical URL).
// It returns ErrNotFound for an unknown id.
func (s *Store) Delete(ctx context.Context, itemID, actor string) (*record.Change, error) {
	ch := &record.Change{Action: changeDelete}
	err := s.itemWrite(ctx, itemID, actor, func(tx *sqlx.Tx, it *itemRow) error {
		*ch = record.Change{Action: changeDelete, At: s.nowString()}
		var n record.Removed
		if err := tx.GetContext(ctx, &n.Chunks, `SELECT count(*) FROM content_chunks WHERE item_id = ?`, itemID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &n.Annotations, `SELECT count(*) FROM annotations WHERE item_id = ?`, itemID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &n.Tags, `SELECT count(*) FROM tags WHERE item_id = ?`, itemID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &n.Artifacts, `SELECT count(*) FROM artifacts WHERE item_id = ?`, itemID); err != nil {
			return err
		}
		var dups []string
		if err := tx.SelectContext(ctx, &dups, `SELECT id FROM items WHERE duplicate_of = ? ORDER BY id`, itemID); err != nil {
			return err
		}
		// FTS rows first: deleteFTS finds the chunk rows through
		// content_chunks, which the delete below cascades away.
		if err := deleteFTS(ctx, tx, it.Seq, itemID); err != nil {
			return err
		}
		now := ch.At
		if len(dups) > 0 {
			// (the foreign key would set NULL too; done here to stamp
			// updated_at and write the events)
			if _, err := tx.ExecContext(ctx, `UPDATE items SET duplicate_of = NULL, updated_at = ? WHERE duplicate_of = ?`, now, itemID); err != nil {
				return err
			}
			for _, d := range dups {
				if err := s.event(ctx, tx, d, "item", d, itemDuplicateClearedEventName, actor, map[string]string{"duplicate_of": itemID}); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM items WHERE id = ?`, itemID); err != nil {
			return err
		}
		ch.Changed = true
		ch.Removed = &n
		ch.DuplicatesCleared = dups
		return s.event(ctx, tx, itemID, "item", itemID, itemDeletedEventName, actor, map[string]any{
			"url": it.OriginalURL, "canonical_url": it.CanonicalURL, "title": it.Title, "removed": n, "duplicates_cleared": dups,
		})
	})
	if err != nil {
		return nil, err
	}
	return ch, nil
}
