package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// Related items: an item's most distinctive terms (tf-idf over a sample of
// its title, chunks and annotations; df probed in the index with a bounded
// count) become an OR query that excludes the item itself; items sharing
// its tags get TagBoost per shared tag, and items sharing tags without a
// content match are candidates too.

// RelatedOptions are the settings of Related.
type RelatedOptions struct {
	SearchOptions
	// Terms is the number of distinctive terms searched for (default 12).
	Terms int
	// TagBoost is added per shared tag (default 1).
	TagBoost float64
}

// relatedSampleBytes bounds the text read from the item to pick terms.
const relatedSampleBytes = 64 << 10

// Related returns the items related to the item id (an id or a canonical
// URL).
func (s *Store) Related(ctx context.Context, id string, opts RelatedOptions) (*SearchResult, error) {
	so := searchOpts{SearchOptions: opts.SearchOptions}.withDefaults()
	so.Cut = 0 // related items are a neighbourhood, not matches: none is cut
	if opts.Terms <= 0 {
		opts.Terms = 12
	}
	if opts.TagBoost == 0 {
		opts.TagBoost = 1
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var it struct {
		ID    string `db:"id"`
		Title string `db:"title"`
	}
	if err := conn.GetContext(ctx, &it, `SELECT id, title FROM items WHERE id = ? OR canonical_url = ?`, id, id); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	// A sample of the item's text: title, annotations, first chunks.
	var sample strings.Builder
	sample.WriteString(it.Title + "\n")
	var texts []string
	if err := conn.SelectContext(ctx, &texts, `SELECT text FROM annotations WHERE item_id = ? AND review IS NOT 'rejected' ORDER BY id LIMIT 50`, it.ID); err != nil {
		return nil, err
	}
	for _, t := range texts {
		sample.WriteString(t + "\n")
	}
	rows, err := conn.QueryxContext(ctx, `SELECT text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, it.ID)
	if err != nil {
		return nil, err
	}
	for rows.Next() && sample.Len() < relatedSampleBytes {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return nil, err
		}
		sample.WriteString(t + "\n")
	}
	rows.Close()
	tags, err := loadTags(ctx, conn, []string{it.ID})
	if err != nil {
		return nil, err
	}
	myTags := tags[it.ID]

	terms, err := s.distinctiveTerms(ctx, conn, it.ID, sample.String(), opts.Terms)
	if err != nil {
		return nil, err
	}
	// CJK text has no word boundaries: its distinctive trigrams, searched
	// in the trigram side index, stand for its words.
	grams, err := distinctiveTrigrams(ctx, conn, it.ID, sample.String(), opts.Terms)
	if err != nil {
		return nil, err
	}
	q := query.Query{Terms: terms, CJK: grams}
	res := &SearchResult{Terms: append(append([]string{}, terms...), grams...)}
	match := len(terms) > 0 || len(grams) > 0
	if match {
		// The same bounds as Search (see pruneCommon): an item's terms
		// may be common in a large library, and an OR of a dozen of them
		// ranked in full would cost with the number of matches.
		var stats searchStatsRow
		if len(terms) > 0 && so.ScanRows >= 0 && !so.exactCounts {
			if stats, err = searchStats(ctx, conn, terms, so.ScanRows, so.exactCounts); err != nil {
				return nil, err
			}
		}
		keep, rest, common, newest, unranked, err := s.pruneCommon(ctx, conn, terms, so.ScanRows, so.exactCounts, stats)
		if err != nil {
			return nil, err
		}
		q.Terms, so.rest, so.newestOnly, so.unranked = keep, rest, newest, unranked
		res.Dropped = common
	}
	so.exclude = it.ID // and its copies (see groupCopies)
	sem, err := s.itemSemantic(ctx, conn, it.ID, so.Semantic)
	if err != nil {
		return nil, err
	}
	page, err := s.rankPage(ctx, conn, so, func(so searchOpts) ([]*scoredItem, error) {
		items, err := s.rankRelated(ctx, conn, q, so, it.ID, myTags, opts.TagBoost, match)
		if err != nil || sem == nil {
			return items, err
		}
		return s.relatedSemantic(ctx, conn, items, sem, so, it.ID)
	})
	if err != nil {
		return nil, err
	}
	out, err := s.finish(ctx, conn, res, page, q, so)
	if err != nil {
		return nil, err
	}
	for _, h := range out.Hits {
		if h.Hit.Related != nil && h.Hit.WhyRanked != nil {
			h.Hit.Related.Terms = h.Hit.WhyRanked.MatchedTerms
		}
	}
	return out, nil
}

// rankRelated ranks the items related to the item id: by content (q, when
// match) and by the tags they share with it (myTags, tagBoost per tag).
func (s *Store) rankRelated(ctx context.Context, conn *sqlx.Conn, q query.Query, so searchOpts, id string, myTags []string, tagBoost float64, match bool) ([]*scoredItem, error) {
	var items []*scoredItem
	if match {
		var err error
		if items, err = s.rank(ctx, conn, q, so, id); err != nil {
			return nil, err
		}
	}
	// Shared tags: boost matches, add tag-only candidates.
	byID := map[string]*scoredItem{}
	for _, x := range items {
		byID[x.id] = x
	}
	if len(myTags) > 0 {
		var shared []struct {
			ItemID string `db:"item_id"`
			Tag    string `db:"tag"`
		}
		qs := `SELECT t.item_id, t.tag FROM tags t JOIN items it ON it.id = t.item_id WHERE t.tag IN (?` + strings.Repeat(",?", len(myTags)-1) + `) AND t.item_id != ?`
		args := []any{}
		for _, t := range myTags {
			args = append(args, t)
		}
		args = append(args, id)
		fcond, fargs := so.where()
		qs += ` AND ` + fcond + ` ORDER BY t.item_id, t.tag LIMIT 5000`
		args = append(args, fargs...)
		if err := conn.SelectContext(ctx, &shared, qs, args...); err != nil {
			return nil, err
		}
		for _, sh := range shared {
			x := byID[sh.ItemID]
			if x == nil {
				x = &scoredItem{id: sh.ItemID}
				byID[sh.ItemID] = x
				items = append(items, x)
			}
			if x.related == nil {
				x.related = &record.RelatedWhy{To: id}
			}
			x.related.SharedTags = append(x.related.SharedTags, sh.Tag)
		}
	}
	for _, x := range items {
		if x.related == nil {
			x.related = &record.RelatedWhy{To: id}
		}
		boost := tagBoost * float64(len(x.related.SharedTags))
		x.why.BM25 = round(x.rel)
		x.score += boost
		x.why.RankingScore = round(x.score)
	}
	sortItems(items)
	return items, nil
}

// distinctiveTerms returns the n terms of text (the item self's) with the
// highest tf-idf, df probed in the word index (see mostDistinctive).
func (s *Store) distinctiveTerms(ctx context.Context, conn *sqlx.Conn, self, text string, n int) ([]string, error) {
	tf := map[string]int{}
	var order []string
	for _, w := range query.Words(text) {
		if len([]rune(w)) < 3 || query.IsStopword(w) {
			continue
		}
		if tf[w] == 0 {
			order = append(order, w)
		}
		tf[w]++
	}
	var total int64
	if err := conn.GetContext(ctx, &total, `SELECT coalesce(max(id), 0) + (SELECT count(*) FROM items) FROM content_chunks`); err != nil {
		return nil, err
	}
	return mostDistinctive(ctx, conn, "search", self, tf, order, total, n)
}

// distinctiveTrigrams returns up to n three-character pieces of the CJK runs
// of text (the item self's) with the highest tf-idf, df probed in the
// trigram index, like distinctiveTerms. nil when text has no CJK run of
// three characters or more.
func distinctiveTrigrams(ctx context.Context, conn *sqlx.Conn, self, text string, n int) ([]string, error) {
	tf := map[string]int{}
	var order []string
	for _, run := range query.Parse(text, query.Options{}).TrigramRuns() {
		rs := []rune(run)
		for i := 0; i+query.MinTrigram <= len(rs); i++ {
			g := string(rs[i : i+query.MinTrigram])
			if tf[g] == 0 {
				order = append(order, g)
			}
			tf[g]++
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	var total int64
	if err := conn.GetContext(ctx, &total, `SELECT count(*) FROM search_cjk_docsize`); err != nil {
		return nil, err
	}
	return mostDistinctive(ctx, conn, "search_cjk", self, tf, order, total, n)
}

// mostDistinctive returns the n terms (counted tf, listed in order of first
// appearance) with the highest (1 + ln tf) × ln(total/df). Only the 4n most
// frequent are probed, in one statement, for df: the rows of table they
// match outside the item self's rows (bounded at 5000); a term found in
// self alone relates nothing and is skipped.
func mostDistinctive(ctx context.Context, conn *sqlx.Conn, table, self string, tf map[string]int, order []string, total int64, n int) ([]string, error) {
	sort.SliceStable(order, func(i, j int) bool { return tf[order[i]] > tf[order[j]] })
	if len(order) > 4*n {
		order = order[:4*n]
	}
	const probe = 5000
	dfs, err := countMatches(ctx, conn, table, order, "+rowid NOT IN (SELECT id FROM content_chunks WHERE item_id = ? UNION ALL SELECT -seq FROM items WHERE id = ?)", []any{self, self}, probe)
	if err != nil {
		return nil, err
	}
	type scored struct {
		term  string
		score float64
	}
	var sc []scored
	for i, w := range order {
		if dfs[i] == 0 {
			continue
		}
		sc = append(sc, scored{w, (1 + math.Log(float64(tf[w]))) * math.Log(float64(total+1)/float64(dfs[i]))})
	}
	sort.SliceStable(sc, func(i, j int) bool { return sc[i].score > sc[j].score })
	var out []string
	for _, x := range sc {
		if len(out) == n {
			break
		}
		out = append(out, x.term)
	}
	return out, nil
}

// itemSemantic is the semantic side of Related: sem (its model, mode and
// weight; nil or without a model: none) with the item's own vector as the
// query, the mean of its chunks' vectors of that model at unit length, so
// no endpoint is asked. nil when the item has no vectors of the model.
func (s *Store) itemSemantic(ctx context.Context, conn *sqlx.Conn, id string, sem *Semantic) (*Semantic, error) {
	if sem == nil || sem.Model == "" {
		return nil, nil
	}
	var blobs [][]byte
	if err := conn.SelectContext(ctx, &blobs, `SELECT vector FROM chunk_vectors WHERE item_id = ? AND model = ? ORDER BY chunk_id LIMIT 1000`, id, sem.Model); err != nil {
		return nil, err
	}
	var sum []float32
	for _, b := range blobs {
		v, err := embed.FromBytes(b)
		if err != nil {
			return nil, err
		}
		if sum == nil {
			sum = make([]float32, len(v))
		}
		if len(v) != len(sum) {
			continue // one dimension per model: the first
		}
		for i, x := range v {
			sum[i] += x
		}
	}
	if sum == nil {
		return nil, nil
	}
	out := *sem
	out.Vector = unit(sum)
	return &out, nil
}

// relatedSemantic fuses the related items lex with the items nearest the
// item id's own vector (sem), the item itself left out; an item found by
// the semantic side alone is related to id too.
func (s *Store) relatedSemantic(ctx context.Context, conn *sqlx.Conn, lex []*scoredItem, sem *Semantic, so searchOpts, id string) ([]*scoredItem, error) {
	si, sims, err := s.semanticRank(ctx, conn, sem, so, so.Candidates+1)
	if err != nil {
		return nil, err
	}
	for i, x := range si {
		if x.id == id { // the item itself: nearest its own vector
			si = append(si[:i:i], si[i+1:]...)
			sims = append(sims[:i:i], sims[i+1:]...)
			break
		}
	}
	items, err := s.fuse(ctx, conn, lex, si, sims, sem, so.Weights)
	if err != nil {
		return nil, err
	}
	for _, x := range items {
		if x.related == nil {
			x.related = &record.RelatedWhy{To: id}
		}
	}
	return items, nil
}
