package store

// Hits: the records of a page of ranked items: item metadata, tags,
// artifacts, annotations (highlights, lowlights, notes), and the chunk rows
// a hit shows, highlighted by FTS5.

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// hitRow is the item data a hit record carries.
type hitRow struct {
	Seq          int64          `db:"seq"`
	ID           string         `db:"id"`
	CanonicalURL string         `db:"canonical_url"`
	OriginalURL  string         `db:"original_url"`
	SourceType   string         `db:"source_type"`
	Title        string         `db:"title"`
	Author       string         `db:"author"`
	PublishedAt  sql.NullString `db:"published_at"`
	SiteName     string         `db:"site_name"`
	Lang         string         `db:"lang"`
	Excerpt      string         `db:"excerpt"`
	Description  string         `db:"description"`
	SavedAt      string         `db:"saved_at"`
	FetchedAt    sql.NullString `db:"fetched_at"`
	IngestStatus string         `db:"ingest_status"`
	ETag         sql.NullString `db:"etag"`
	LastModified sql.NullString `db:"last_modified"`
	FromRecord   bool           `db:"content_from_record"` // content came in the record: never due for revalidation
}

const hitCols = `seq, id, canonical_url, original_url, source_type, title, author, published_at, site_name, lang, excerpt, description,
	saved_at, fetched_at, ingest_status, etag, last_modified, content_from_record`

type annRow struct {
	ID         int64           `db:"id"`
	ItemID     string          `db:"item_id"`
	ChunkID    sql.NullInt64   `db:"chunk_id"`
	Type       string          `db:"type"`
	Text       string          `db:"text"`
	Actor      string          `db:"actor"`
	Confidence sql.NullFloat64 `db:"confidence"`
	Pinned     bool            `db:"pinned"`
	CreatedAt  string          `db:"created_at"`
	OrphanedAt sql.NullString  `db:"orphaned_at"` // read by the queries that select it
	// Pending: a highlight or lowlight not yet looked for in a text (the
	// item had none when it was saved); read by the queries that select
	// pendingCol.
	Pending bool `db:"pending"`
}

// pendingCol selects annRow.Pending (on annotations unaliased or a).
// Anchored ones (restored ones too, which carry no context) have a chunk.
const pendingCol = `(type IN ('highlight', 'lowlight') AND chunk_id IS NULL AND orphaned_at IS NULL) AS pending`

func (a annRow) annotation() record.Annotation {
	out := record.Annotation{ID: a.ID, Type: a.Type, Text: a.Text, Actor: a.Actor, Pinned: a.Pinned, CreatedAt: a.CreatedAt, OrphanedAt: a.OrphanedAt.String}
	switch {
	case a.OrphanedAt.Valid:
		out.Anchor = record.AnchorUnanchored
	case a.Pending:
		out.Anchor = record.AnchorPending
	}
	if a.Confidence.Valid {
		c := a.Confidence.Float64
		out.Confidence = &c
	}
	if a.ChunkID.Valid {
		c := a.ChunkID.Int64
		out.ChunkID = &c
	}
	return out
}

type chunkRow struct {
	ID     int64           `db:"id"`
	Index  int             `db:"chunk_index"`
	Text   string          `db:"text"`
	Tokens int             `db:"tokens"`
	StartS sql.NullFloat64 `db:"start_s"`
	Page   sql.NullInt64   `db:"page"`
	Kind   string          `db:"kind"`
}

// chunkKindCol selects a content_chunks row's kind (chunk_kinds,
// migration 0021) as kind: "" for the body.
const chunkKindCol = `coalesce((SELECT k.kind FROM chunk_kinds k WHERE k.chunk_id = content_chunks.id), '') AS kind`

// itemRecord turns an item row into a record with identity and metadata.
func (h hitRow) record() *record.Record {
	r := &record.Record{
		ID: h.ID, URL: h.CanonicalURL, CanonicalURL: h.CanonicalURL, SourceType: h.SourceType, Title: h.Title,
		Author: h.Author, PublishedAt: h.PublishedAt.String, SiteName: h.SiteName, Lang: h.Lang,
		Excerpt: h.Excerpt, Description: h.Description,
	}
	if h.OriginalURL != h.CanonicalURL {
		r.OriginalURL = h.OriginalURL
	}
	return r
}

// hitRecords loads what each ranked item shows: metadata, tags,
// annotations, artifact, snippets, matched fields and terms.
func (s *Store) hitRecords(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, q query.Query, opts searchOpts) ([]*record.Record, []string, error) {
	if len(items) == 0 {
		return nil, nil, nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	// a group's hit shows its copies' evidence too
	evIDs := ids
	for _, it := range items {
		if it.merge && len(it.copies) > 0 {
			if len(evIDs) == len(ids) {
				evIDs = append([]string{}, ids...)
			}
			for _, c := range it.copies {
				evIDs = append(evIDs, c.ID)
			}
		}
	}
	meta := map[string]hitRow{}
	{
		qs, args, err := sqlx.In(`SELECT `+hitCols+` FROM items WHERE id IN (?)`, ids)
		if err != nil {
			return nil, nil, err
		}
		err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
			var h hitRow
			if err := scan(&h.Seq, &h.ID, &h.CanonicalURL, &h.OriginalURL, &h.SourceType, &h.Title, &h.Author, &h.PublishedAt,
				&h.SiteName, &h.Lang, &h.Excerpt, &h.Description, &h.SavedAt, &h.FetchedAt, &h.IngestStatus, &h.ETag,
				&h.LastModified, &h.FromRecord); err != nil {
				return err
			}
			meta[h.ID] = h
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	tags, err := loadTags(ctx, conn, evIDs)
	if err != nil {
		return nil, nil, err
	}
	reading, err := loadReading(ctx, conn, ids)
	if err != nil {
		return nil, nil, err
	}
	anns := map[string][]annRow{}
	{
		dq, dargs := weightsDecayed(opts.Weights, s.Now())
		qs, args, err := sqlx.In(`SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at, orphaned_at, `+pendingCol+` FROM annotations a
			WHERE item_id IN (?) AND review IS NOT 'rejected' AND NOT `+dq+` ORDER BY pinned DESC, actor = 'human' DESC, coalesce(confidence, 1) DESC, id`, append([]any{evIDs}, dargs...)...)
		if err != nil {
			return nil, nil, err
		}
		err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
			var a annRow
			if err := scan(&a.ID, &a.ItemID, &a.ChunkID, &a.Type, &a.Text, &a.Actor, &a.Confidence, &a.Pinned, &a.CreatedAt, &a.OrphanedAt, &a.Pending); err != nil {
				return err
			}
			anns[a.ItemID] = append(anns[a.ItemID], a)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	arts, err := loadArtifacts(ctx, conn, evIDs)
	if err != nil {
		return nil, nil, err
	}
	// only the detailed hits are highlighted and get snippets
	detailed := items
	if opts.Detailed > 0 && opts.Detailed < len(items) {
		detailed = items[:opts.Detailed]
	}
	var chunkIDs []int64
	for _, it := range detailed {
		for _, c := range chunkRowsFor(it, opts) {
			chunkIDs = append(chunkIDs, c.rowid)
		}
	}
	if err := highlightRows(ctx, conn, detailed, q, opts); err != nil {
		return nil, nil, err
	}
	chunks, err := loadChunks(ctx, conn, chunkIDs)
	if err != nil {
		return nil, nil, err
	}
	now := s.Now()
	var stale []string
	var recs []*record.Record
	for i, it := range items {
		h, ok := meta[it.id]
		if !ok {
			continue
		}
		rec := h.record()
		rec.Tags = tags[it.id]
		if r, ok := reading[it.id]; ok {
			rec.ArchivedAt, rec.Reading = r.ArchivedAt.String, r.reading()
		}
		why := it.why
		hit := &record.Hit{Score: why.RankingScore, WhyRanked: &why, SavedAt: h.SavedAt, FetchedAt: h.FetchedAt.String, IngestState: h.IngestStatus, Related: it.related}
		itemAnns, art := anns[it.id], arts[it.id]
		rec.Copies = it.copies
		if it.merge && len(it.copies) > 0 {
			tagLists := [][]string{rec.Tags}
			itemAnns = append([]annRow{}, itemAnns...)
			for _, c := range it.copies {
				tagLists = append(tagLists, tags[c.ID])
				itemAnns = append(itemAnns, anns[c.ID]...)
				if a := arts[c.ID]; a != nil && arts[it.id] == nil && (art == nil || a.CreatedAt > art.CreatedAt) {
					art = a // the representative has none: the copies' newest
				}
			}
			rec.Tags = mergeTags(tagLists...)
			itemAnns = mergeAnnotations(itemAnns)
		}
		for _, a := range itemAnns {
			switch a.Type {
			case record.AnnHighlight:
				hit.Highlights = append(hit.Highlights, a.annotation())
			case record.AnnLowlight:
				hit.Lowlights = append(hit.Lowlights, a.annotation())
			case record.AnnNote:
				hit.Notes = append(hit.Notes, a.annotation())
			}
		}
		hit.Artifact = art
		if hit.WhyRanked != nil && i < len(detailed) {
			explain(it, hit, h, chunks, q, opts)
		}
		rec.Hit = hit
		if opts.StaleAfter > 0 && h.FetchedAt.Valid && !h.FromRecord {
			if t, err := time.Parse(time.RFC3339, h.FetchedAt.String); err == nil && now.Sub(t) > opts.StaleAfter {
				rec.Revalidate = &record.Revalidation{Due: true, FetchedAt: h.FetchedAt.String}
				stale = append(stale, it.id)
			}
		}
		recs = append(recs, rec)
	}
	return recs, stale, nil
}

func loadTags(ctx context.Context, conn *sqlx.Conn, ids []string) (map[string][]string, error) {
	out := map[string][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	qs, args, err := sqlx.In(`SELECT item_id, tag FROM tags WHERE item_id IN (?) ORDER BY item_id, tag`, ids)
	if err != nil {
		return nil, err
	}
	err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
		var id, tag string
		if err := scan(&id, &tag); err != nil {
			return err
		}
		out[id] = append(out[id], tag)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func loadArtifacts(ctx context.Context, conn *sqlx.Conn, ids []string) (map[string]*record.Artifact, error) {
	out := map[string]*record.Artifact{}
	qs, args, err := sqlx.In(`SELECT item_id, summary, key_claims_json, created_by, created_at, detail_json FROM artifacts
		WHERE item_id IN (?) ORDER BY item_id, created_at DESC, id DESC`, ids)
	if err != nil {
		return nil, err
	}
	err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
		var itemID, claims string
		var detail sql.NullString
		art := &record.Artifact{}
		if err := scan(&itemID, &art.Summary, &claims, &art.CreatedBy, &art.CreatedAt, &detail); err != nil {
			return err
		}
		if out[itemID] != nil {
			return nil // newest only
		}
		_ = json.Unmarshal([]byte(claims), &art.KeyClaims) // a malformed list shows as none
		// only supported claims are evidence: an artifact stored before
		// unsupported claims were kept out of key_claims still has them
		var d artifactDetail
		if detail.Valid && json.Unmarshal([]byte(detail.String), &d) == nil {
			art.Claims = d.Claims
			art.KeyClaims = art.SupportedClaims()
			art.Claims = nil // a hit carries the texts only, as before
		}
		out[itemID] = art
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// chunkRowsFor lists the chunk rows whose snippets or text a hit shows.
func chunkRowsFor(it *scoredItem, opts searchOpts) []*candidate {
	var out []*candidate
	for _, c := range it.rows {
		if c.rowid <= 0 {
			continue
		}
		if len(out) >= max(opts.Snippets, 1) && !opts.ExpandChunks {
			break
		}
		out = append(out, c)
	}
	return out
}

// explainRows is how many of an item's best rows explain its hit
// (matched fields and terms) besides the rows its snippets come from.
const explainRows = 3

// highlightRows fills the highlighted columns of the rows the hits show:
// one query per index with rowid IN (...), which FTS5 answers by seeking.
func highlightRows(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, q query.Query, opts searchOpts) error {
	byTable := map[string]map[int64]*candidate{}
	for _, it := range items {
		rows := chunkRowsFor(it, opts)
		rows = append(rows, it.rows[:min(len(it.rows), explainRows)]...)
		for _, c := range rows {
			t := "search"
			if !c.porter {
				t = "search_cjk"
			}
			if byTable[t] == nil {
				byTable[t] = map[int64]*candidate{}
			}
			byTable[t][c.rowid] = c
		}
	}
	for t, rows := range byTable {
		match := q.Match()
		if t == "search_cjk" {
			match = q.TrigramMatch()
		}
		if match == "" || len(rows) == 0 {
			continue // LIKE matches: no highlights
		}
		ids := make([]int64, 0, len(rows))
		for id := range rows {
			ids = append(ids, id)
		}
		// an item row's body is the whole text: its chunk rows explain it
		qs, args, err := sqlx.In(`SELECT rowid, highlight(`+t+`, 0, char(2), char(3)),
			CASE WHEN rowid < 0 THEN '' ELSE highlight(`+t+`, 1, char(2), char(3)) END, highlight(`+t+`, 2, char(2), char(3))
			FROM `+t+` WHERE `+t+` MATCH ? AND rowid IN (?)`, match, ids)
		if err != nil {
			return err
		}
		r, err := conn.QueryxContext(ctx, qs, args...)
		if err != nil {
			return err
		}
		for r.Next() {
			var id int64
			var hl [3]string
			if err := r.Scan(&id, &hl[0], &hl[1], &hl[2]); err != nil {
				r.Close()
				return err
			}
			if c := rows[id]; c != nil {
				c.hl = hl
			}
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
	}
	return nil
}

// loadChunks reads chunk rows by id.
func loadChunks(ctx context.Context, conn *sqlx.Conn, ids []int64) (map[int64]chunkRow, error) {
	out := map[int64]chunkRow{}
	if len(ids) == 0 {
		return out, nil
	}
	qs, args, err := sqlx.In(`SELECT id, chunk_index, text, tokens, start_s, page, `+chunkKindCol+` FROM content_chunks WHERE id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
		var r chunkRow
		if err := scan(&r.ID, &r.Index, &r.Text, &r.Tokens, &r.StartS, &r.Page, &r.Kind); err != nil {
			return err
		}
		out[r.ID] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
