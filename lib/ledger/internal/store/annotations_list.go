package store

import (
	"context"
	"database/sql"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// StateCounts returns how many items are in each ingest state (saved,
// fetched, parsed, enriched, failed), under "archived" how many are
// archived, and under "copies" how many items are copies of the text of
// another (same checksum: each group beyond its first): the counts of the
// web app's home page.
func (s *Store) StateCounts(ctx context.Context) (map[string]int, error) {
	var rows []struct {
		State string `db:"ingest_status"`
		N     int    `db:"n"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT ingest_status, count(*) AS n FROM items GROUP BY ingest_status`); err != nil {
		return nil, err
	}
	out := map[string]int{"saved": 0, "fetched": 0, "parsed": 0, "enriched": 0, "failed": 0}
	for _, r := range rows {
		out[r.State] = r.N
	}
	var archived int
	if err := s.db.GetContext(ctx, &archived, `SELECT count(*) FROM items WHERE archived_at IS NOT NULL`); err != nil {
		return nil, err
	}
	out["archived"] = archived
	// copies of one text (the same page under two links, one with a
	// tracking parameter the canonical URL keeps): find shows each group
	// once, so the totals count it once (ledger.ItemsTotal); one pass
	// over the checksum index
	var copies int
	if err := s.db.GetContext(ctx, &copies, `SELECT count(checksum) - count(DISTINCT checksum) FROM items`); err != nil {
		return nil, err
	}
	out["copies"] = copies
	return out, nil
}

// ListAnnotations lists annotations across the ledger, newest first (id
// breaks ties, so paging is stable), as records: the item's id, url and
// title with annotations[0].
func (s *Store) ListAnnotations(ctx context.Context, f AnnotationFilter) ([]*record.Record, error) {
	types := f.Types
	if len(types) == 0 {
		types = []string{record.AnnHighlight}
	}
	var conds []string
	var args []any
	conds = append(conds, `a.type IN (?`+strings.Repeat(`,?`, len(types)-1)+`)`)
	for _, t := range types {
		args = append(args, t)
	}
	switch f.Actor {
	case "":
	case "agent":
		conds = append(conds, `a.actor LIKE 'agent:%'`)
	default:
		conds = append(conds, `a.actor = ?`)
		args = append(args, f.Actor)
	}
	if f.Tag != "" {
		conds = append(conds, `EXISTS (SELECT 1 FROM tags t WHERE t.item_id = a.item_id AND t.tag = ?)`)
		args = append(args, f.Tag)
	}
	if f.MinConfidence > 0 {
		conds = append(conds, `coalesce(a.confidence, 1) >= ?`)
		args = append(args, f.MinConfidence)
	}
	switch f.Review {
	case "confirmed", "rejected":
		conds = append(conds, `a.review = ?`)
		args = append(args, f.Review)
	case "unreviewed":
		conds = append(conds, `a.review IS NULL`)
	}
	if f.Text != "" {
		conds = append(conds, `instr(lower(a.text), lower(?)) > 0`)
		args = append(args, f.Text)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = -1
	}
	args = append(args, limit, max(f.Offset, 0))
	var rows []struct {
		annRow
		Review     sql.NullString `db:"review"`
		ChunkIndex sql.NullInt64  `db:"chunk_index"`
		URL        string         `db:"url"`
		Title      string         `db:"title"`
	}
	if err := s.db.SelectContext(ctx, &rows, `SELECT a.id, a.item_id, a.chunk_id, a.type, a.text, a.actor, a.confidence, a.pinned,
		a.created_at, a.orphaned_at, a.review, a.chunk_index, i.original_url AS url, i.title
		FROM annotations a JOIN items i ON i.id = a.item_id
		WHERE `+strings.Join(conds, ` AND `)+`
		ORDER BY a.created_at DESC, a.id DESC LIMIT ? OFFSET ?`, args...); err != nil {
		return nil, err
	}
	out := make([]*record.Record, len(rows))
	for i, r := range rows {
		a := r.annotation()
		a.Review = r.Review.String
		if r.ChunkIndex.Valid {
			ci := int(r.ChunkIndex.Int64)
			a.ChunkIndex = &ci
		}
		out[i] = &record.Record{ID: r.ItemID, URL: r.URL, Title: r.Title, Annotations: []record.Annotation{a}}
	}
	return out, nil
}
