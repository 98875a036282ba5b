package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// Ranking: each matching FTS row (a chunk row or an item's title+annotations
// row) gets relevance = -bm25(search, title, body, annotations weights).
// Rows are grouped by item: an item's relevance is its best row plus
// SumBonus times the sum of its other matching rows among the candidates.
// Then
//
//	ranking_score = relevance + pinned_boost - low_confidence_penalty
//
// pinned_boost is Weights.PinnedBoost when the item has a pinned highlight;
// low_confidence_penalty is Weights.LowConfidencePenalty times the share of
// the item's annotations that are agent annotations with a confidence below
// Weights.LowConfidenceBelow, applied only when the annotation text matched.

// Weights are the ranking weights (see docs/retrieval.md).
type Weights struct {
	Title                float64
	Body                 float64
	Annotations          float64
	PinnedBoost          float64
	LowConfidencePenalty float64
	LowConfidenceBelow   float64
	// SumBonus is the share of an item's other matching rows added to its
	// best row.
	SumBonus float64
}

// DefaultWeights are the documented defaults.
var DefaultWeights = Weights{
	Title:                2,
	Body:                 1,
	Annotations:          2,
	PinnedBoost:          2,
	LowConfidencePenalty: 2,
	LowConfidenceBelow:   0.5,
	SumBonus:             0,
}

// Filter restricts search results and queue views.
type Filter struct {
	Tags   []string  // all of these tags
	Type   string    // source type
	Since  time.Time // saved_at >= Since
	Until  time.Time // saved_at < Until
	Actor  string    // items with an annotation by this actor
	Status string    // ingest status
}

func (f Filter) empty() bool {
	return len(f.Tags) == 0 && f.Type == "" && f.Since.IsZero() && f.Until.IsZero() && f.Actor == "" && f.Status == ""
}

// where returns an SQL condition on the items table aliased "it" and its
// arguments.
func (f Filter) where() (string, []any) {
	var conds []string
	var args []any
	if f.Type != "" {
		conds = append(conds, "it.source_type = ?")
		args = append(args, f.Type)
	}
	if f.Status != "" {
		conds = append(conds, "it.ingest_status = ?")
		args = append(args, f.Status)
	}
	if !f.Since.IsZero() {
		conds = append(conds, "it.saved_at >= ?")
		args = append(args, record.FormatTime(f.Since))
	}
	if !f.Until.IsZero() {
		conds = append(conds, "it.saved_at < ?")
		args = append(args, record.FormatTime(f.Until))
	}
	if len(f.Tags) > 0 {
		conds = append(conds, "it.id IN (SELECT item_id FROM tags WHERE tag IN (?"+strings.Repeat(",?", len(f.Tags)-1)+") GROUP BY item_id HAVING count(*) = ?)")
		seen := map[string]bool{}
		for _, t := range f.Tags {
			args = append(args, t)
			seen[t] = true
		}
		args = append(args, len(seen))
	}
	if f.Actor != "" {
		conds = append(conds, "EXISTS (SELECT 1 FROM annotations a WHERE a.item_id = it.id AND a.actor = ?)")
		args = append(args, f.Actor)
	}
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// SearchOptions are the settings of Search.
type SearchOptions struct {
	Text    string
	Query   query.Options
	Weights Weights
	Filter  Filter
	Limit   int // default 10
	Offset  int
	// Candidates is the number of FTS rows ranked per index before grouping
	// by item (default 8 × (limit+offset), at least 64). Cost is bounded by
	// it, not by the number of matches.
	Candidates int
	// Snippets is the number of snippets per hit (default 2).
	Snippets int
	// ExpandChunks adds the full matching chunks to each hit.
	ExpandChunks bool
	// StaleAfter marks hits fetched longer ago than this as due for
	// revalidation (0: never).
	StaleAfter time.Duration
	// CommonShare drops a term from a query of several terms when it
	// matches more than this share of the indexed rows (0: default 0.25;
	// negative: never). Such terms carry almost no bm25 weight but make
	// a query cost grow with the size of the library.
	CommonShare float64
}

func (o SearchOptions) withDefaults() SearchOptions {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if o.Offset < 0 {
		o.Offset = 0
	}
	if o.Candidates <= 0 {
		o.Candidates = max(64, 8*(o.Limit+o.Offset))
	}
	if o.Snippets == 0 {
		o.Snippets = 2
	}
	if o.Weights == (Weights{}) {
		o.Weights = DefaultWeights
	}
	if o.CommonShare == 0 {
		o.CommonShare = 0.25
	}
	return o
}

// SearchResult is what Search found.
type SearchResult struct {
	Hits []*record.Record
	// Terms are the terms searched for; Dropped the ones left out
	// (stopwords, terms too common to rank).
	Terms   []string
	Dropped []string
	// StaleIDs are the hits due for revalidation (see MarkRevalidate).
	StaleIDs []string
}

// candidate is one matching FTS row.
type candidate struct {
	rowid  int64
	rel    float64
	cjk    bool // matched in search_cjk (or by LIKE)
	porter bool
	annHit bool // the annotations column matched (item rows)
}

// scoredItem is an item with its matching rows.
type scoredItem struct {
	id      string
	rows    []*candidate // best first
	rel     float64      // relevance: best row plus the sum bonus
	score   float64      // ranking score, unrounded (why.RankingScore is rounded)
	why     record.WhyRanked
	related *record.RelatedWhy
}

// Search runs a full-text query and returns items, best first. Any text is
// a valid query.
func (s *Store) Search(ctx context.Context, opts SearchOptions) (*SearchResult, error) {
	opts = opts.withDefaults()
	q := query.Parse(opts.Text, opts.Query)
	res := &SearchResult{Dropped: q.Dropped}
	if q.Empty() {
		return res, nil
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	terms, common, err := s.pruneCommon(ctx, conn, q.Terms, opts.CommonShare)
	if err != nil {
		return nil, err
	}
	q.Terms = terms
	res.Terms = append(append([]string{}, q.Terms...), q.CJK...)
	res.Dropped = append(res.Dropped, common...)
	items, err := s.rank(ctx, conn, q, opts, "")
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, conn, res, items, q, opts)
}

// finish pages the ranked items and builds their records.
func (s *Store) finish(ctx context.Context, conn *sqlx.Conn, res *SearchResult, items []*scoredItem, q query.Query, opts SearchOptions) (*SearchResult, error) {
	if opts.Offset >= len(items) {
		return res, nil
	}
	items = items[opts.Offset:]
	if len(items) > opts.Limit {
		items = items[:opts.Limit]
	}
	recs, stale, err := s.hitRecords(ctx, conn, items, q, opts)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		r.Hit.Rank = opts.Offset + i + 1
	}
	res.Hits = recs
	res.StaleIDs = stale
	return res, nil
}

// pruneCommon drops terms that match more than share of the rows, as long
// as one term is left. The probe reads at most the threshold number of
// rows per term.
func (s *Store) pruneCommon(ctx context.Context, conn *sqlx.Conn, terms []string, share float64) ([]string, []string, error) {
	if share < 0 || len(terms) < 2 {
		return terms, nil, nil
	}
	var total int64
	if err := conn.GetContext(ctx, &total, `SELECT coalesce(max(id), 0) FROM content_chunks`); err != nil {
		return nil, nil, err
	}
	limit := int64(float64(total) * share)
	if limit < 1000 {
		return terms, nil, nil // small library: every term is cheap
	}
	var keep, drop []string
	for _, t := range terms {
		var n int64
		err := conn.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)`, query.Quote(t), limit)
		if err != nil {
			return nil, nil, err
		}
		if n >= limit {
			drop = append(drop, t)
		} else {
			keep = append(keep, t)
		}
	}
	if len(keep) == 0 {
		// Every term is common: keep the first one only.
		return terms[:1], terms[1:], nil
	}
	return keep, drop, nil
}

func rankExpr(w Weights) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return "bm25(" + f(w.Title) + ", " + f(w.Body) + ", " + f(w.Annotations) + ")"
}

// rank collects candidate rows from the indexes and groups them by item.
// exclude is an item id left out (for related items).
func (s *Store) rank(ctx context.Context, conn *sqlx.Conn, q query.Query, opts SearchOptions, exclude string) ([]*scoredItem, error) {
	rows := map[int64]*candidate{}
	add := func(c candidate, porter bool) {
		r := rows[c.rowid]
		if r == nil {
			r = &candidate{rowid: c.rowid}
			rows[c.rowid] = r
		}
		r.rel += c.rel
		r.annHit = r.annHit || c.annHit
		if porter {
			r.porter = true
		} else {
			r.cjk = true
		}
	}
	rankMatch := rankExpr(opts.Weights)
	fcond, fargs := opts.Filter.where()
	if exclude != "" {
		fcond += " AND it.id != ?"
		fargs = append(fargs, exclude)
	}
	filtered := !opts.Filter.empty() || exclude != ""
	for _, src := range []struct {
		table, match string
	}{{"search", q.Match()}, {"search_cjk", q.TrigramMatch()}} {
		if src.match == "" {
			continue
		}
		var sqlText string
		args := []any{src.match, rankMatch}
		annHit := `CASE WHEN s.rowid < 0 THEN instr(highlight(` + src.table + `, 2, char(2), char(3)), char(2)) > 0 ELSE 0 END`
		if !filtered {
			sqlText = `SELECT s.rowid, -s.rank, ` + annHit + ` FROM ` + src.table + ` s WHERE ` + src.table + ` MATCH ? AND rank MATCH ? ORDER BY rank LIMIT ?`
			args = append(args, opts.Candidates)
		} else {
			sqlText = `SELECT s.rowid, -s.rank, ` + annHit + ` FROM ` + src.table + ` s JOIN items it ON it.id =
				CASE WHEN s.rowid > 0 THEN (SELECT item_id FROM content_chunks WHERE id = s.rowid) ELSE (SELECT id FROM items WHERE seq = -s.rowid) END
				WHERE ` + src.table + ` MATCH ? AND rank MATCH ? AND ` + fcond + ` ORDER BY s.rank LIMIT ?`
			args = append(args, fargs...)
			args = append(args, opts.Candidates)
		}
		r, err := conn.QueryxContext(ctx, sqlText, args...)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", src.table, err)
		}
		for r.Next() {
			var c candidate
			if err := r.Scan(&c.rowid, &c.rel, &c.annHit); err != nil {
				r.Close()
				return nil, err
			}
			add(c, src.table == "search")
		}
		r.Close()
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	// Short CJK runs: a LIKE scan of the CJK side index (only rows holding
	// CJK text), bounded by the candidate count.
	for _, run := range q.ShortRuns() {
		pat := query.LikePattern(run)
		sqlText := `SELECT s.rowid FROM search_cjk s WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') LIMIT ?`
		args := []any{pat, pat, pat, opts.Candidates}
		if filtered {
			sqlText = `SELECT s.rowid FROM search_cjk s JOIN items it ON it.id =
				CASE WHEN s.rowid > 0 THEN (SELECT item_id FROM content_chunks WHERE id = s.rowid) ELSE (SELECT id FROM items WHERE seq = -s.rowid) END
				WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') AND ` + fcond + ` LIMIT ?`
			args = append([]any{pat, pat, pat}, fargs...)
			args = append(args, opts.Candidates)
		}
		var ids []int64
		if err := conn.SelectContext(ctx, &ids, sqlText, args...); err != nil {
			return nil, fmt.Errorf("search cjk: %w", err)
		}
		for _, id := range ids {
			add(candidate{rowid: id, rel: 1}, false)
		}
	}
	return s.group(ctx, conn, rows, opts.Weights)
}

// group maps candidate rows to items and scores them.
func (s *Store) group(ctx context.Context, conn *sqlx.Conn, rows map[int64]*candidate, w Weights) ([]*scoredItem, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var chunkIDs, seqs []int64
	for id := range rows {
		if id > 0 {
			chunkIDs = append(chunkIDs, id)
		} else {
			seqs = append(seqs, -id)
		}
	}
	owner := map[int64]string{}
	type pair struct {
		K int64  `db:"k"`
		V string `db:"v"`
	}
	load := func(sqlText string, ids []int64, sign int64) error {
		if len(ids) == 0 {
			return nil
		}
		qs, args, err := sqlx.In(sqlText, ids)
		if err != nil {
			return err
		}
		var ps []pair
		if err := conn.SelectContext(ctx, &ps, qs, args...); err != nil {
			return err
		}
		for _, p := range ps {
			owner[sign*p.K] = p.V
		}
		return nil
	}
	if err := load(`SELECT id AS k, item_id AS v FROM content_chunks WHERE id IN (?)`, chunkIDs, 1); err != nil {
		return nil, err
	}
	if err := load(`SELECT seq AS k, id AS v FROM items WHERE seq IN (?)`, seqs, -1); err != nil {
		return nil, err
	}
	byItem := map[string]*scoredItem{}
	var items []*scoredItem
	for id, c := range rows {
		itemID, ok := owner[id]
		if !ok {
			continue // row of a deleted chunk: the index is rebuilt on the next write
		}
		it := byItem[itemID]
		if it == nil {
			it = &scoredItem{id: itemID}
			byItem[itemID] = it
			items = append(items, it)
		}
		it.rows = append(it.rows, c)
	}
	annHits := map[string]bool{}
	for _, it := range items {
		// An item row that matched by its title only repeats what the
		// item's chunk rows (which carry the title too) say; as a short
		// row it would outscore them. Keep it only when it is all there is.
		if len(it.rows) > 1 {
			kept := it.rows[:0]
			for _, r := range it.rows {
				if r.rowid > 0 || r.annHit || r.cjk {
					kept = append(kept, r)
				}
			}
			if len(kept) > 0 {
				it.rows = kept
			}
		}
		sort.Slice(it.rows, func(i, j int) bool {
			if it.rows[i].rel != it.rows[j].rel {
				return it.rows[i].rel > it.rows[j].rel
			}
			return it.rows[i].rowid < it.rows[j].rowid
		})
		it.rel = it.rows[0].rel
		for _, r := range it.rows[1:] {
			it.rel += w.SumBonus * r.rel
		}
		for _, r := range it.rows {
			if r.annHit {
				annHits[it.id] = true
			}
		}
	}
	if err := s.adjust(ctx, conn, items, annHits, w); err != nil {
		return nil, err
	}
	sortItems(items)
	return items, nil
}

func sortItems(items []*scoredItem) {
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].score, items[j].score
		if a != b {
			return a > b
		}
		return items[i].id < items[j].id
	})
}

// adjust adds the pinned boost and the low-confidence penalty.
func (s *Store) adjust(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, annHits map[string]bool, w Weights) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	type annStat struct {
		ItemID string `db:"item_id"`
		Pinned int    `db:"pinned"`
		Low    int    `db:"low"`
		Total  int    `db:"total"`
	}
	stats := map[string]annStat{}
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		qs, args, err := sqlx.In(`SELECT item_id, sum(pinned AND type = 'highlight') AS pinned,
			sum(actor LIKE 'agent:%' AND confidence IS NOT NULL AND confidence < ?) AS low, count(*) AS total
			FROM annotations WHERE item_id IN (?) GROUP BY item_id`, w.LowConfidenceBelow, ids[start:end])
		if err != nil {
			return err
		}
		var st []annStat
		if err := conn.SelectContext(ctx, &st, qs, args...); err != nil {
			return err
		}
		for _, a := range st {
			stats[a.ItemID] = a
		}
	}
	for _, it := range items {
		it.why.BM25 = round(it.rel)
		st := stats[it.id]
		if st.Pinned > 0 {
			it.why.PinnedBoost = w.PinnedBoost
		}
		if annHits[it.id] && st.Low > 0 && st.Total > 0 {
			it.why.LowConfidencePenalty = round(w.LowConfidencePenalty * float64(st.Low) / float64(st.Total))
		}
		it.score = it.rel + it.why.PinnedBoost - it.why.LowConfidencePenalty
		it.why.RankingScore = round(it.score)
	}
	return nil
}

func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }

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
}

const hitCols = `seq, id, canonical_url, original_url, source_type, title, author, published_at, site_name, lang, excerpt, description,
	saved_at, fetched_at, ingest_status, etag, last_modified`

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
}

func (a annRow) annotation() record.Annotation {
	out := record.Annotation{ID: a.ID, Type: a.Type, Text: a.Text, Actor: a.Actor, Pinned: a.Pinned, CreatedAt: a.CreatedAt}
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
}

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
func (s *Store) hitRecords(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, q query.Query, opts SearchOptions) ([]*record.Record, []string, error) {
	if len(items) == 0 {
		return nil, nil, nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	meta := map[string]hitRow{}
	{
		qs, args, err := sqlx.In(`SELECT `+hitCols+` FROM items WHERE id IN (?)`, ids)
		if err != nil {
			return nil, nil, err
		}
		var hr []hitRow
		if err := conn.SelectContext(ctx, &hr, qs, args...); err != nil {
			return nil, nil, err
		}
		for _, h := range hr {
			meta[h.ID] = h
		}
	}
	tags, err := loadTags(ctx, conn, ids)
	if err != nil {
		return nil, nil, err
	}
	anns := map[string][]annRow{}
	{
		qs, args, err := sqlx.In(`SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at FROM annotations
			WHERE item_id IN (?) ORDER BY pinned DESC, actor = 'human' DESC, coalesce(confidence, 1) DESC, id`, ids)
		if err != nil {
			return nil, nil, err
		}
		var ar []annRow
		if err := conn.SelectContext(ctx, &ar, qs, args...); err != nil {
			return nil, nil, err
		}
		for _, a := range ar {
			anns[a.ItemID] = append(anns[a.ItemID], a)
		}
	}
	arts, err := loadArtifacts(ctx, conn, ids)
	if err != nil {
		return nil, nil, err
	}
	now := s.Now()
	var stale []string
	var recs []*record.Record
	for _, it := range items {
		h, ok := meta[it.id]
		if !ok {
			continue
		}
		rec := h.record()
		rec.Tags = tags[it.id]
		why := it.why
		hit := &record.Hit{Score: why.RankingScore, WhyRanked: &why, SavedAt: h.SavedAt, FetchedAt: h.FetchedAt.String, IngestState: h.IngestStatus, Related: it.related}
		for _, a := range anns[it.id] {
			switch a.Type {
			case record.AnnHighlight:
				hit.Highlights = append(hit.Highlights, a.annotation())
			case record.AnnLowlight:
				hit.Lowlights = append(hit.Lowlights, a.annotation())
			case record.AnnNote:
				hit.Notes = append(hit.Notes, a.annotation())
			}
		}
		hit.Artifact = arts[it.id]
		if err := s.explain(ctx, conn, it, hit, h, q, opts); err != nil {
			return nil, nil, err
		}
		rec.Hit = hit
		if opts.StaleAfter > 0 && h.FetchedAt.Valid {
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
	var tr []struct {
		ItemID string `db:"item_id"`
		Tag    string `db:"tag"`
	}
	if err := conn.SelectContext(ctx, &tr, qs, args...); err != nil {
		return nil, err
	}
	for _, t := range tr {
		out[t.ItemID] = append(out[t.ItemID], t.Tag)
	}
	return out, nil
}

func loadArtifacts(ctx context.Context, conn *sqlx.Conn, ids []string) (map[string]*record.Artifact, error) {
	out := map[string]*record.Artifact{}
	qs, args, err := sqlx.In(`SELECT item_id, summary, key_claims_json, created_by, created_at FROM artifacts
		WHERE item_id IN (?) ORDER BY item_id, created_at DESC, id DESC`, ids)
	if err != nil {
		return nil, err
	}
	var ar []struct {
		ItemID    string `db:"item_id"`
		Summary   string `db:"summary"`
		Claims    string `db:"key_claims_json"`
		CreatedBy string `db:"created_by"`
		CreatedAt string `db:"created_at"`
	}
	if err := conn.SelectContext(ctx, &ar, qs, args...); err != nil {
		return nil, err
	}
	for _, a := range ar {
		if out[a.ItemID] != nil {
			continue // newest only
		}
		art := &record.Artifact{Summary: a.Summary, CreatedBy: a.CreatedBy, CreatedAt: a.CreatedAt}
		_ = json.Unmarshal([]byte(a.Claims), &art.KeyClaims) // a malformed list shows as none
		out[a.ItemID] = art
	}
	return out, nil
}

// explain fills snippets, chunks, matched fields and matched terms from the
// item's best rows.
func (s *Store) explain(ctx context.Context, conn *sqlx.Conn, it *scoredItem, hit *record.Hit, h hitRow, q query.Query, opts SearchOptions) error {
	fields := map[string]bool{}
	terms := map[string]bool{}
	var termOrder []string
	addTerms := func(marked string) bool {
		found := false
		for _, t := range markedSpans(marked) {
			found = true
			if !terms[t] {
				terms[t] = true
				termOrder = append(termOrder, t)
			}
		}
		return found
	}
	colNames := []string{"title", "body", "annotations"}
	nChunks := 0
	for _, c := range it.rows {
		isChunk := c.rowid > 0
		if isChunk && nChunks >= max(opts.Snippets, 1) && !opts.ExpandChunks {
			continue
		}
		table, match := "search", q.Match()
		if !c.porter {
			table, match = "search_cjk", q.TrigramMatch()
		}
		var cols [3]sql.NullString
		var snip sql.NullString
		if match != "" {
			err := conn.QueryRowxContext(ctx, `SELECT highlight(`+table+`, 0, char(2), char(3)), highlight(`+table+`, 1, char(2), char(3)),
				highlight(`+table+`, 2, char(2), char(3)), snippet(`+table+`, 1, '', '', '…', 24) FROM `+table+` WHERE `+table+` MATCH ? AND rowid = ?`,
				match, c.rowid).Scan(&cols[0], &cols[1], &cols[2], &snip)
			if err != nil && err != sql.ErrNoRows {
				return err
			}
		}
		for i, col := range cols {
			if addTerms(col.String) {
				fields[colNames[i]] = true
			}
		}
		if !isChunk {
			continue
		}
		var ch chunkRow
		if err := conn.GetContext(ctx, &ch, `SELECT id, chunk_index, text, tokens, start_s, page FROM content_chunks WHERE id = ?`, c.rowid); err != nil {
			if err == sql.ErrNoRows {
				continue
			}
			return err
		}
		text := snip.String
		if text == "" {
			text = likeSnippet(ch.Text, q.CJK, 24)
			if text != "" {
				fields["body"] = true
			}
			for _, r := range q.CJK {
				if strings.Contains(ch.Text, r) && !terms[r] {
					terms[r] = true
					termOrder = append(termOrder, r)
				}
			}
		}
		if nChunks < opts.Snippets && text != "" {
			sn := record.Snippet{ChunkIndex: ch.Index, Text: text}
			if ch.StartS.Valid {
				v := ch.StartS.Float64
				sn.StartS = &v
				if h.SourceType == record.SourceYouTube {
					sn.URL = youtubeAt(h.CanonicalURL, v)
				}
			}
			if ch.Page.Valid {
				sn.Page = int(ch.Page.Int64)
			}
			hit.Snippets = append(hit.Snippets, sn)
		}
		if opts.ExpandChunks {
			rc := record.Chunk{ID: ch.ID, Index: ch.Index, Text: ch.Text, Tokens: ch.Tokens}
			if ch.StartS.Valid {
				v := ch.StartS.Float64
				rc.StartS = &v
			}
			if ch.Page.Valid {
				rc.Page = int(ch.Page.Int64)
			}
			hit.Chunks = append(hit.Chunks, rc)
		}
		nChunks++
	}
	for _, f := range colNames {
		if fields[f] {
			hit.WhyRanked.MatchedFields = append(hit.WhyRanked.MatchedFields, f)
		}
	}
	hit.WhyRanked.MatchedTerms = termOrder
	return nil
}

// markedSpans returns the lower-cased text between \x02 and \x03 markers.
func markedSpans(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, 2)
		if i < 0 {
			return out
		}
		s = s[i+1:]
		j := strings.IndexByte(s, 3)
		if j < 0 {
			return out
		}
		if t := strings.ToLower(strings.TrimFunc(s[:j], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })); t != "" {
			out = append(out, t)
		}
		s = s[j+1:]
	}
}

// likeSnippet returns about width runes of text around the first of runs.
func likeSnippet(text string, runs []string, width int) string {
	for _, r := range runs {
		i := strings.Index(text, r)
		if i < 0 {
			continue
		}
		rs := []rune(text)
		at := len([]rune(text[:i]))
		from := max(0, at-width)
		to := min(len(rs), at+len([]rune(r))+width)
		out := strings.TrimSpace(string(rs[from:to]))
		if from > 0 {
			out = "…" + out
		}
		if to < len(rs) {
			out += "…"
		}
		return out
	}
	return ""
}

// youtubeAt returns a deep link to second t of a YouTube URL.
func youtubeAt(u string, t float64) string {
	sep := "&"
	if !strings.Contains(u, "?") {
		sep = "?"
	}
	return u + sep + "t=" + strconv.Itoa(int(t)) + "s"
}

// MarkRevalidate sets revalidate_due on items. It is one short write; a
// caller that must not wait tolerates IsBusy errors.
func (s *Store) MarkRevalidate(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	qs, args, err := sqlx.In(`UPDATE items SET revalidate_due = 1 WHERE revalidate_due = 0 AND id IN (?)`, ids)
	if err != nil {
		return err
	}
	_, err = s.db.ExecContext(ctx, qs, args...)
	return err
}

// Recent lists items without a query, newest saved first, through the same
// filters and hit records as Search (no why_ranked terms, no snippets).
func (s *Store) Recent(ctx context.Context, opts SearchOptions) (*SearchResult, error) {
	opts = opts.withDefaults()
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	fcond, args := opts.Filter.where()
	args = append(args, opts.Limit, opts.Offset)
	var ids []string
	if err := conn.SelectContext(ctx, &ids, `SELECT it.id FROM items it WHERE `+fcond+` ORDER BY it.saved_at DESC, it.seq DESC LIMIT ? OFFSET ?`, args...); err != nil {
		return nil, err
	}
	items := make([]*scoredItem, len(ids))
	for i, id := range ids {
		items[i] = &scoredItem{id: id}
	}
	res := &SearchResult{}
	recs, stale, err := s.hitRecords(ctx, conn, items, query.Query{}, opts)
	if err != nil {
		return nil, err
	}
	for i, r := range recs {
		r.Hit.Rank = opts.Offset + i + 1
		r.Hit.WhyRanked = nil
		r.Hit.Score = 0
	}
	res.Hits, res.StaleIDs = recs, stale
	return res, nil
}
