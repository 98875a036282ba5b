package store

// Highlights and lowlights follow their quotes: anchored when stored,
// re-anchored or orphaned when ll-index replaces an item's text, merged
// when two say the same thing. See docs/store.md "Quote anchors".

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/linkledger/linkledger/lib/record"
)

// Event actions of anchors and merges (entity annotation).
const (
	annotationReanchoredEventName = "reanchored"
	annotationOrphanedEventName   = "orphaned"
	annotationMergedEventName     = "merged"   // on the annotation merged away: detail.into
	annotationAbsorbedEventName   = "absorbed" // on the one it was merged into: detail.from
	// annotationRefusedEventName: an enricher's highlight that does not
	// quote the text, left out (detail: type, text, code)
	annotationRefusedEventName = "refused"
	// annotationAnchoredEventName: a quote saved while its item had no
	// text, found the first time text came (detail: type, text, chunk_index,
	// method; given and edits when an agent's quote was found other than
	// as written and now holds the source's words)
	annotationAnchoredEventName = "anchored"
)

// quoted reports whether annotations of type typ are anchored by their
// quote: highlights and lowlights are; a note is the reader's own words.
func quoted(typ string) bool { return typ == record.AnnHighlight || typ == record.AnnLowlight }

// itemChunks are an item's chunks in order, ready for matching.
type itemChunks struct {
	ids   []int64
	index []int
	text  *anchorText
}

func loadItemChunks(ctx context.Context, tx dbtx, itemID string) (*itemChunks, error) {
	var rows []struct {
		ID    int64  `db:"id"`
		Index int    `db:"chunk_index"`
		Text  string `db:"text"`
	}
	if err := tx.SelectContext(ctx, &rows, `SELECT id, chunk_index, text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, itemID); err != nil {
		return nil, err
	}
	c := &itemChunks{}
	texts := make([]string, len(rows))
	for i, r := range rows {
		c.ids = append(c.ids, r.ID)
		c.index = append(c.index, r.Index)
		texts[i] = r.Text
	}
	c.text = newAnchorText(texts)
	return c, nil
}

// pos is the position in c.ids of the chunk with index idx, or -1.
func (c *itemChunks) pos(idx sql.NullInt64) int {
	if !idx.Valid {
		return -1
	}
	for i, x := range c.index {
		if int64(x) == idx.Int64 {
			return i
		}
	}
	return -1
}

// newAnchor is where anchorNew found a new annotation's quote.
type newAnchor struct {
	chunkID        int64
	idx            int
	prefix, suffix string
	// state: anchorFound, anchorPending (the item has no text yet) or
	// anchorMissing (its text does not hold the quote; closest is the
	// passage nearest to it, for the hint).
	state   int
	closest string
	// matched is the text as the item spells it, when it was found other
	// than as written (folded or fuzzily)
	matched string
}

// States of a newAnchor.
const (
	anchorFound = iota
	anchorPending
	anchorMissing
)

// anchorNew finds the quote of a highlight or lowlight about to be
// stored in its item's chunks (the chunk it names first). A note, or an
// item without text yet, is anchorPending: the annotation is stored as it
// came (with its chunk, if it named one) and a highlight's quote is looked
// for when the item is indexed (reanchor).
func anchorNew(ctx context.Context, tx dbtx, itemID string, a record.Annotation, chunkIndex sql.NullInt64) (newAnchor, error) {
	if !quoted(a.Type) {
		return newAnchor{state: anchorPending}, nil
	}
	c, err := loadItemChunks(ctx, tx, itemID)
	if err != nil || len(c.ids) == 0 {
		return newAnchor{state: anchorPending}, err
	}
	m, found := c.text.find(quoteAnchor{Quote: a.Text, Hint: c.pos(chunkIndex)})
	if !found {
		return newAnchor{state: anchorMissing, closest: c.text.closest(a.Text)}, nil
	}
	prefix, suffix := c.text.context(m)
	an := newAnchor{chunkID: c.ids[m.Chunk], idx: c.index[m.Chunk], prefix: prefix, suffix: suffix}
	if m.Method != anchorExact {
		an.matched = c.text.raw[m.Chunk][m.Start:m.End]
	}
	return an, nil
}

// anchorRow is an annotation as re-anchoring and merging read it.
type anchorRow struct {
	ID         int64           `db:"id"`
	Type       string          `db:"type"`
	Text       string          `db:"text"`
	Actor      string          `db:"actor"`
	Confidence sql.NullFloat64 `db:"confidence"`
	Pinned     bool            `db:"pinned"`
	Review     sql.NullString  `db:"review"`
	CreatedAt  string          `db:"created_at"`
	ChunkIndex sql.NullInt64   `db:"chunk_index"`
	Prefix     sql.NullString  `db:"quote_prefix"`
	Suffix     sql.NullString  `db:"quote_suffix"`
	OrphanedAt sql.NullString  `db:"orphaned_at"`
}

const anchorCols = `id, type, text, actor, confidence, pinned, review, created_at, chunk_index, quote_prefix, quote_suffix, orphaned_at`

func (a anchorRow) anchor(hint int) quoteAnchor {
	return quoteAnchor{Quote: a.Text, Prefix: a.Prefix.String, Suffix: a.Suffix.String, HasContext: a.Prefix.Valid, Hint: hint}
}

// reanchor moves the item's highlights and lowlights to the new chunks
// after ll-index replaced its text (old: the chunks before). One anchored
// to its quote (context stored, orphaned, or found in the old text) is
// looked for in the new text: found, it takes the chunk that holds it, its
// context is refreshed and an orphan is found again (event reanchored when
// its chunk changed, it was orphaned, or only a fuzzy match found it in
// new surroundings); not found, it is orphaned (orphaned_at, no chunk;
// event orphaned) and keeps its text. One never found in any text (saved
// while the item had none) is anchored when the new text holds its quote,
// and otherwise orphaned too: an unanchored annotation is never served as
// a quote of the source.
func (s *Store) reanchor(ctx context.Context, tx dbtx, itemID string, old *itemChunks) error {
	nw, err := loadItemChunks(ctx, tx, itemID)
	if err != nil {
		return err
	}
	var rows []anchorRow
	if err := tx.SelectContext(ctx, &rows, `SELECT `+anchorCols+` FROM annotations
		WHERE item_id = ? AND type IN ('highlight', 'lowlight') ORDER BY id`, itemID); err != nil {
		return err
	}
	now := s.nowString()
	for _, a := range rows {
		q := a.anchor(-1)
		wasAnchored := everAnchored(a)
		if !wasAnchored && !a.OrphanedAt.Valid && old != nil && len(old.ids) > 0 {
			// stored before anchors existed: its place in the old text
			// gives the context to look for (found as written or folded:
			// one found only with edits is checked as never anchored)
			if m, ok := old.text.find(a.anchor(old.pos(a.ChunkIndex))); ok && m.Method != anchorFuzzy {
				wasAnchored = true
				q.Prefix, q.Suffix = old.text.context(m)
				q.HasContext = true
			}
		}
		q.Hint = nw.pos(a.ChunkIndex)
		m, found := nw.text.find(q)
		switch {
		case found && !wasAnchored:
			if err := s.anchorFirst(ctx, tx, itemID, a, nw, m); err != nil {
				return err
			}
		case found:
			prefix, suffix := nw.text.context(m)
			if _, err := tx.ExecContext(ctx, `UPDATE annotations SET chunk_id = ?, chunk_index = ?, quote_prefix = ?, quote_suffix = ?, orphaned_at = NULL WHERE id = ?`,
				nw.ids[m.Chunk], nw.index[m.Chunk], prefix, suffix, a.ID); err != nil {
				return err
			}
			// an event when the quote moved, was lost before, or was
			// found only with edits in new surroundings; not when its
			// chunk merely was rewritten in place
			moved := !a.ChunkIndex.Valid || a.ChunkIndex.Int64 != int64(nw.index[m.Chunk])
			edited := m.Method == anchorFuzzy && (prefix != a.Prefix.String || suffix != a.Suffix.String)
			if !(moved || a.OrphanedAt.Valid || edited) {
				continue
			}
			detail := map[string]any{"type": a.Type, "text": a.Text, "chunk_index": nw.index[m.Chunk], "method": m.Method}
			if a.ChunkIndex.Valid {
				detail["from_chunk_index"] = a.ChunkIndex.Int64
			}
			if a.OrphanedAt.Valid {
				detail["was_orphaned_at"] = a.OrphanedAt.String
			}
			if m.Method != anchorExact {
				detail["matched"] = nw.text.raw[m.Chunk][m.Start:m.End]
			}
			if m.Method == anchorFuzzy {
				detail["edits"] = m.Edits
			}
			if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(a.ID), annotationReanchoredEventName, eventActorIndex, detail); err != nil {
				return err
			}
		case !a.OrphanedAt.Valid:
			// lost by a changed text, or never in it (saved before the
			// item had text): unanchored, not a quote of the source. One
			// never anchored keeps no context (everAnchored)
			var prefix, suffix any
			if wasAnchored {
				prefix, suffix = q.Prefix, q.Suffix
			}
			if _, err := tx.ExecContext(ctx, `UPDATE annotations SET chunk_id = NULL, chunk_index = NULL, quote_prefix = ?, quote_suffix = ?, orphaned_at = ? WHERE id = ?`,
				prefix, suffix, now, a.ID); err != nil {
				return err
			}
			detail := map[string]any{"type": a.Type, "text": a.Text}
			if a.ChunkIndex.Valid {
				detail["from_chunk_index"] = a.ChunkIndex.Int64
			}
			if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(a.ID), annotationOrphanedEventName, eventActorIndex, detail); err != nil {
				return err
			}
		}
	}
	return nil
}

// everAnchored reports whether a highlight or lowlight was ever found in
// its item's text, from its row alone: an anchored one has its context
// (quote_prefix, quote_suffix; empty strings at a chunk's edges), and an
// orphan keeps the context it was last found in. A quote never found
// (pending, or orphaned without having been found: a person's words not
// in the text, or a pending quote the first text did not hold) has none.
// Rows orphaned before this rule kept an empty context when never found:
// an orphan with both sides empty is taken as never anchored (at worst a
// quote that was a whole chunk is checked again by the stricter rule).
func everAnchored(a anchorRow) bool {
	if !a.Prefix.Valid {
		return false
	}
	return !a.OrphanedAt.Valid || a.Prefix.String != "" || a.Suffix.String != ""
}

// anchorFirst anchors a quote that was never anchored (saved while its
// item had no text) where the new text holds it (m), by the rule of a
// quote stored against text (save.go insertAnnotation): an agent's quote
// found other than as written (folded, or fuzzily with a few edits) takes
// the text's own words, since it is served as evidence, and the words it
// was given are kept in the event (detail given). A person's found folded
// keeps its text; found only fuzzily it takes the text's words too: no
// one is there to see the check, and a highlight from the bookmarklet's
// capture window is "human" but was prefilled by the page it was opened
// on. Without this a quote with an invented word ("never") would be
// served as the source's. Event annotation:anchored.
func (s *Store) anchorFirst(ctx context.Context, tx dbtx, itemID string, a anchorRow, nw *itemChunks, m anchorMatch) error {
	prefix, suffix := nw.text.context(m)
	text := a.Text
	matched := nw.text.raw[m.Chunk][m.Start:m.End]
	if m.Method == anchorFuzzy || m.Method != anchorExact && isAgent(a.Actor) {
		text = matched
	}
	if _, err := tx.ExecContext(ctx, `UPDATE annotations SET text = ?, chunk_id = ?, chunk_index = ?, quote_prefix = ?, quote_suffix = ?, orphaned_at = NULL WHERE id = ?`,
		text, nw.ids[m.Chunk], nw.index[m.Chunk], prefix, suffix, a.ID); err != nil {
		return err
	}
	detail := map[string]any{"type": a.Type, "text": text, "chunk_index": nw.index[m.Chunk], "method": m.Method}
	if text != a.Text {
		detail["given"] = a.Text
	} else if m.Method != anchorExact {
		detail["matched"] = matched
	}
	if m.Method == anchorFuzzy {
		detail["edits"] = m.Edits
	}
	return s.event(ctx, tx, itemID, "annotation", fmt.Sprint(a.ID), annotationAnchoredEventName, eventActorIndex, detail)
}

// stronger reports whether a's provenance beats b's when the two merge: a
// person's over an agent's, pinned over unpinned, confirmed over not,
// higher confidence (none counts as 1), then the earlier, then the lower id.
func stronger(a, b anchorRow) bool {
	if ah, bh := !isAgent(a.Actor), !isAgent(b.Actor); ah != bh {
		return ah
	}
	if a.Pinned != b.Pinned {
		return a.Pinned
	}
	if ac, bc := a.Review.String == ReviewConfirmed, b.Review.String == ReviewConfirmed; ac != bc {
		return ac
	}
	conf := func(r anchorRow) float64 {
		if r.Confidence.Valid {
			return r.Confidence.Float64
		}
		return 1
	}
	if conf(a) != conf(b) {
		return conf(a) > conf(b)
	}
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt < b.CreatedAt
	}
	return a.ID < b.ID
}

// samePlace reports whether the near-duplicate quotes of a and b (the
// text test passed) can be the same place of the text, and the quote the
// merge keeps when the text shows it. Two quotes anchored in chunks more
// than one apart are not (chunks overlap only with their neighbours);
// anchored in the same or neighbouring chunks, they are when b's best
// occurrence in a's chunk overlaps a's, and the merge keeps the text the
// two cover together, as the chunk spells it (a's own text when that is
// a's quote). Otherwise the text test alone decides (union).
func samePlace(c *itemChunks, a, b anchorRow, union string) (string, bool) {
	if c == nil {
		return union, true
	}
	pa, pb := c.pos(a.ChunkIndex), c.pos(b.ChunkIndex)
	if pa < 0 || pb < 0 || !a.Prefix.Valid || !b.Prefix.Valid {
		return union, true
	}
	if pa-pb > 1 || pb-pa > 1 {
		return "", false
	}
	one := newAnchorText([]string{c.text.raw[pa]})
	ma, oka := one.find(a.anchor(0))
	if !oka {
		return union, true
	}
	mb, okb := one.find(b.anchor(0))
	if !okb || mb.Start >= ma.End || ma.Start >= mb.End {
		return "", false
	}
	span := one.raw[0][min(ma.Start, mb.Start):max(ma.End, mb.End)]
	if normQuote(span) == normQuote(a.Text) {
		return a.Text, true // the same words: the stronger one's spelling
	}
	return span, true // the text's own
}

// mergeMaxQuotes bounds the highlights and lowlights of one item that
// mergeNearDuplicates compares (the strongest first): about half a million
// pairs at most.
const mergeMaxQuotes = 1000

// mergeNearDuplicates merges the item's highlights that quote the same
// text, and its lowlights likewise (quoteOverlap, samePlace): the
// strongest (stronger) stays, with the quote both cover and pinned if
// either was, and the other is deleted with an annotation:merged event
// (detail: into, and what it was), the one kept getting
// annotation:absorbed (detail: from, its text before and after). Rejected
// and orphaned annotations and notes never merge. It returns the ids
// merged away.
func (s *Store) mergeNearDuplicates(ctx context.Context, tx dbtx, itemID, actor string) ([]int64, error) {
	var rows []anchorRow
	if err := tx.SelectContext(ctx, &rows, `SELECT `+anchorCols+` FROM annotations
		WHERE item_id = ? AND type IN ('highlight', 'lowlight') AND review IS NOT 'rejected' AND orphaned_at IS NULL ORDER BY id`, itemID); err != nil {
		return nil, err
	}
	if len(rows) < 2 {
		return nil, nil
	}
	sort.SliceStable(rows, func(i, j int) bool { return stronger(rows[i], rows[j]) })
	// pairs grow with the square of the quotes: an item with very many
	// (an import of a hostile record) is merged among its strongest only
	if len(rows) > mergeMaxQuotes {
		rows = rows[:mergeMaxQuotes]
	}
	norms := make([]quoteNorm, len(rows))
	for i := range rows {
		norms[i] = newQuoteNorm(rows[i].Text)
	}
	var chunks *itemChunks
	var merged []int64
	gone := make([]bool, len(rows))
	for changed := true; changed; {
		changed = false
		for i := range rows {
			if gone[i] {
				continue
			}
			for j := i + 1; j < len(rows); j++ {
				a, b := &rows[i], rows[j]
				if gone[j] || a.Type != b.Type {
					continue
				}
				union, ok := overlapOf(norms[i], norms[j])
				if !ok {
					continue
				}
				if chunks == nil {
					var err error
					if chunks, err = loadItemChunks(ctx, tx, itemID); err != nil {
						return nil, err
					}
				}
				if union, ok = samePlace(chunks, *a, b, union); !ok {
					continue
				}
				if err := s.mergeInto(ctx, tx, itemID, actor, chunks, a, b, union); err != nil {
					return nil, err
				}
				norms[i] = newQuoteNorm(a.Text) // a may hold the union now
				gone[j], changed = true, true
				merged = append(merged, b.ID)
			}
		}
	}
	return merged, nil
}

// mergeInto merges annotation b into a (a keeps union as its quote).
func (s *Store) mergeInto(ctx context.Context, tx dbtx, itemID, actor string, c *itemChunks, a *anchorRow, b anchorRow, union string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM annotations WHERE id = ?`, b.ID); err != nil {
		return err
	}
	detail := map[string]any{"into": a.ID, "type": b.Type, "text": b.Text, "by_actor": b.Actor, "created_at": b.CreatedAt}
	if b.Confidence.Valid {
		detail["confidence"] = b.Confidence.Float64
	}
	if b.Pinned {
		detail["pinned"] = true
	}
	if b.Review.Valid {
		detail["review"] = b.Review.String
	}
	if err := s.event(ctx, tx, itemID, "annotation", fmt.Sprint(b.ID), annotationMergedEventName, actor, detail); err != nil {
		return err
	}
	absorbed := map[string]any{"from": b.ID}
	if union != a.Text {
		absorbed["was"], absorbed["text"] = a.Text, union
		a.Text = union
		var chunkID, chunkIndex any
		var prefix, suffix any
		if m, ok := c.text.find(a.anchor(c.pos(a.ChunkIndex))); ok {
			chunkID, chunkIndex = c.ids[m.Chunk], c.index[m.Chunk]
			p, s := c.text.context(m)
			prefix, suffix = p, s
			a.ChunkIndex = sql.NullInt64{Int64: int64(c.index[m.Chunk]), Valid: true}
			a.Prefix, a.Suffix = sql.NullString{String: p, Valid: true}, sql.NullString{String: s, Valid: true}
		} else if a.ChunkIndex.Valid {
			chunkIndex = a.ChunkIndex.Int64
			if p := c.pos(a.ChunkIndex); p >= 0 {
				chunkID = c.ids[p]
			}
			a.Prefix, a.Suffix = sql.NullString{}, sql.NullString{}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE annotations SET text = ?, chunk_id = ?, chunk_index = ?, quote_prefix = ?, quote_suffix = ? WHERE id = ?`,
			union, chunkID, chunkIndex, prefix, suffix, a.ID); err != nil {
			return err
		}
	}
	if b.Pinned && !a.Pinned {
		if _, err := tx.ExecContext(ctx, `UPDATE annotations SET pinned = 1 WHERE id = ?`, a.ID); err != nil {
			return err
		}
		a.Pinned = true
		absorbed["pinned"] = true
	}
	return s.event(ctx, tx, itemID, "annotation", fmt.Sprint(a.ID), annotationAbsorbedEventName, actor, absorbed)
}

// Orphans lists the highlights and lowlights whose quote the last
// re-index of their item's text did not find, newest orphan first, at
// most limit (0: all). Each record is the annotation's item (id, url,
// title) with that one annotation, orphaned_at set. Archived items' too.
func (s *Store) Orphans(ctx context.Context, limit int) ([]*record.Record, error) {
	q := `SELECT a.id, a.item_id, a.chunk_id, a.type, a.text, a.actor, a.confidence, a.pinned, a.created_at,
			coalesce(a.review, '') AS review, a.orphaned_at, i.canonical_url AS url, i.title AS title
		FROM annotations a JOIN items i ON i.id = a.item_id
		WHERE a.orphaned_at IS NOT NULL
		ORDER BY a.orphaned_at DESC, a.id DESC`
	var args []any
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	var rows []struct {
		annRow
		Review string `db:"review"`
		URL    string `db:"url"`
		Title  string `db:"title"`
	}
	if err := s.db.SelectContext(ctx, &rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]*record.Record, 0, len(rows))
	for _, r := range rows {
		a := r.annotation()
		a.Review = r.Review
		out = append(out, &record.Record{ID: r.ItemID, URL: r.URL, Title: r.Title, Annotations: []record.Annotation{a}})
	}
	return out, nil
}
