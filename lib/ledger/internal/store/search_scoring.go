package store

// Scoring: the bm25 relevance of candidate rows and of their items' rows,
// grouping rows into items (group), the pinned boost and the
// low-confidence penalty (adjust), and the order of the results.

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/query"
)

// rescore adds the rest terms' bm25 to candidates found by the kept terms
// P: FTS5 scores "(P) AND (P OR R)" on the candidate rows only (rowid IN,
// a seek per row); P's phrases count twice there, so the row's score is
// that minus its P-only score.
func (s *Store) rescore(ctx context.Context, conn *sqlx.Conn, rows map[int64]*candidate, keep, rest []string, w Weights) error {
	var ids []int64
	for id, c := range rows {
		if c.porter {
			ids = append(ids, id)
		}
	}
	if len(rest) == 0 || len(ids) == 0 {
		return nil
	}
	p := query.Or(keep)
	expr := "(" + p + ") AND (" + p + " OR " + query.Or(rest) + ")"
	return scoreRowids(ctx, conn, expr, ids, w, false, func(id int64, both float64, _ bool) {
		if c := rows[id]; c != nil {
			c.rel = both - c.rel
		}
	})
}

// scoreRowids calls fn with the bm25 relevance of each of the given rows
// of the word index that matches expr (and, with annotations, whether the
// annotations column matched). One FTS5 scan over the rows' rowid range:
// "+rowid IN" is filtered by SQLite, not handed to FTS5, which would
// restart the query, phrase counts and all, once per id. The scan visits
// only rows matching expr, which the callers bound (ScanRows).
func scoreRowids(ctx context.Context, conn *sqlx.Conn, expr string, ids []int64, w Weights, annotations bool, fn func(id int64, rel float64, annHit bool)) error {
	if len(ids) == 0 {
		return nil
	}
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
	}
	// Whether the annotations column matched: the rows of the range
	// that match expr on that column alone (one uncorrelated set, from
	// the doclists). highlight() on the column would read each row's
	// stored content, and an item row holds the item's whole text: ~400
	// page reads for a one-word ll-find's candidates. expr is an OR of
	// quoted terms (query.Or), so a row's annotations hold a match
	// exactly when it is in the set.
	ann := `0`
	var annArgs []any
	if annotations {
		ann = `rowid IN (SELECT rowid FROM search WHERE search MATCH ? AND rowid BETWEEN ? AND ?)`
		annArgs = []any{onColumns("annotations", expr), lo, hi}
	}
	qs, args, err := sqlx.In(`SELECT rowid, -bm25(search, `+bm25Weights(w)+`), `+ann+` FROM search WHERE search MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (?)`,
		append(annArgs, expr, lo, hi, ids)...)
	if err != nil {
		return err
	}
	r, err := conn.QueryxContext(ctx, qs, args...)
	if err != nil {
		return fmt.Errorf("search scoring: %w", err)
	}
	defer r.Close()
	for r.Next() {
		var id int64
		var rel float64
		var annHit bool
		if err := r.Scan(&id, &rel, &annHit); err != nil {
			return err
		}
		fn(id, rel, annHit)
	}
	return r.Err()
}

// onColumns restricts an FTS5 expression to the named columns
// (space-separated), or returns "" for an empty expression.
func onColumns(cols, match string) string {
	if match == "" {
		return ""
	}
	return "{" + cols + "} : (" + match + ")"
}

// scoreItemRows gives the candidate items their item row's bm25 (title,
// whole text, annotations) for the expression match, and notes whether the
// annotations matched. One FTS5 scan over the rows' rowid range, the rows
// filtered by SQLite ("+rowid IN"), as in rescore.
func (s *Store) scoreItemRows(ctx context.Context, conn *sqlx.Conn, rows map[int64]*candidate, match string, w Weights) error {
	if match == "" {
		return nil
	}
	var chunkIDs []int64
	seqs := map[int64]string{} // item seq -> item id ("" when not known yet)
	for id, c := range rows {
		switch {
		case id > 0 && c.porter:
			chunkIDs = append(chunkIDs, id)
		case id < 0 && c.porter:
			seqs[-id] = c.item
		}
	}
	if len(chunkIDs) > 0 {
		// Each chunk's item, kept on the row so that group need not look
		// it up again.
		qs, args, err := sqlx.In(`SELECT c.id, i.seq, i.id FROM content_chunks c JOIN items i ON i.id = c.item_id WHERE c.id IN (?)`, chunkIDs)
		if err != nil {
			return err
		}
		r, err := conn.QueryxContext(ctx, qs, args...)
		if err != nil {
			return err
		}
		for r.Next() {
			var id, seq int64
			var item string
			if err := r.Scan(&id, &seq, &item); err != nil {
				r.Close()
				return err
			}
			rows[id].item = item
			seqs[seq] = item
		}
		r.Close()
		if err := r.Err(); err != nil {
			return err
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(seqs))
	for q := range seqs {
		ids = append(ids, -q)
	}
	return scoreRowids(ctx, conn, match, ids, w, true, func(id int64, rel float64, annHit bool) {
		c := rows[id]
		if c == nil {
			c = &candidate{rowid: id, porter: true}
			rows[id] = c
		}
		if c.item == "" {
			c.item = seqs[-id]
		}
		c.rel += rel
		c.annHit = c.annHit || annHit
	})
}

// bm25Weights is the column-weight argument list of bm25() for w.
func bm25Weights(w Weights) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	return f(w.Title) + ", " + f(w.Body) + ", " + f(w.Annotations)
}

func rankExpr(w Weights) string { return "bm25(" + bm25Weights(w) + ")" }

// group maps candidate rows to items and scores them.
func (s *Store) group(ctx context.Context, conn *sqlx.Conn, rows map[int64]*candidate, w Weights) ([]*scoredItem, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	var chunkIDs, seqs []int64
	owner := map[int64]string{}
	for id, c := range rows {
		switch {
		case c.item != "":
			owner[id] = c.item // found by scoreItemRows
		case id > 0:
			chunkIDs = append(chunkIDs, id)
		default:
			seqs = append(seqs, -id)
		}
	}
	load := func(sqlText string, ids []int64, sign int64) error {
		if len(ids) == 0 {
			return nil
		}
		qs, args, err := sqlx.In(sqlText, ids)
		if err != nil {
			return err
		}
		return queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
			var k int64
			var v string
			if err := scan(&k, &v); err != nil {
				return err
			}
			owner[sign*k] = v
			return nil
		})
	}
	if err := load(`SELECT id AS k, item_id AS v FROM content_chunks WHERE id IN (?)`, chunkIDs, 1); err != nil {
		return nil, err
	}
	if err := load(`SELECT seq AS k, id AS v FROM items WHERE seq IN (?)`, seqs, -1); err != nil {
		return nil, err
	}
	if err := weighReferences(ctx, conn, rows); err != nil {
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
		sort.Slice(it.rows, func(i, j int) bool {
			if it.rows[i].rel != it.rows[j].rel {
				return it.rows[i].rel > it.rows[j].rel
			}
			return it.rows[i].rowid < it.rows[j].rowid
		})
		// best chunk (the passage) + Doc × item row (the whole document)
		// + SumBonus × the other matching chunks
		var best, doc, others float64
		chunks := 0
		for _, r := range it.rows {
			switch {
			case r.rowid < 0:
				doc = max(doc, r.rel)
			case chunks == 0:
				best = r.rel
				chunks++
			default:
				others += r.rel
				chunks++
			}
			if r.annHit {
				annHits[it.id] = true
			}
			it.named = it.named || r.named
		}
		if chunks == 0 {
			it.rel = doc // found through its title or annotations only
		} else {
			it.rel = best + w.Doc*doc + w.SumBonus*others
		}
	}
	if err := s.adjust(ctx, conn, items, annHits, w); err != nil {
		return nil, err
	}
	sortItems(items)
	return items, nil
}

// ReferenceWeight scales the relevance of a chunk of a page's reference
// list (chunk_kinds "references"): the body's chunks rank before it, as
// the item's best passage and its snippets, and an item that matches only
// in its bibliography ranks below one whose body matches as well.
const ReferenceWeight = 0.25

// weighReferences scales the word-index relevance of the candidate rows
// that are reference-list chunks by ReferenceWeight.
func weighReferences(ctx context.Context, conn *sqlx.Conn, rows map[int64]*candidate) error {
	var ids []int64
	for id := range rows {
		if id > 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	qs, args, err := sqlx.In(`SELECT chunk_id FROM chunk_kinds WHERE kind = 'references' AND chunk_id IN (?)`, ids)
	if err != nil {
		return err
	}
	return queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
		var id int64
		if err := scan(&id); err != nil {
			return err
		}
		rows[id].rel *= ReferenceWeight
		return nil
	})
}

// sortItems orders items by score, then (equal scores: unranked results)
// items found by their title or annotations first, then newest matching
// chunk first, then id.
func sortItems(items []*scoredItem) {
	newest := make(map[*scoredItem]int64, len(items))
	for _, it := range items {
		for _, r := range it.rows {
			newest[it] = max(newest[it], r.rowid)
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		a, b := items[i].score, items[j].score
		if a != b {
			return a > b
		}
		if items[i].named != items[j].named {
			return items[i].named
		}
		if ni, nj := newest[items[i]], newest[items[j]]; ni != nj {
			return ni > nj
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
		ItemID             string
		Pinned, Low, Total int
	}
	stats := map[string]annStat{}
	for start := 0; start < len(ids); start += 500 {
		end := min(start+500, len(ids))
		dq, dargs := weightsDecayed(w, s.Now())
		qs, args, err := sqlx.In(`SELECT item_id, sum(pinned AND type = 'highlight') AS pinned,
			sum(actor LIKE 'agent:%' AND confidence IS NOT NULL AND confidence < ?) AS low, count(*) AS total
			FROM annotations a WHERE item_id IN (?) AND review IS NOT 'rejected' AND NOT `+dq+` GROUP BY item_id`, append([]any{w.LowConfidenceBelow, ids[start:end]}, dargs...)...)
		if err != nil {
			return err
		}
		err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
			var a annStat
			if err := scan(&a.ItemID, &a.Pinned, &a.Low, &a.Total); err != nil {
				return err
			}
			stats[a.ItemID] = a
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, it := range items {
		it.why.BM25 = round(it.rel)
		st := stats[it.id]
		if st.Pinned > 0 {
			it.why.PinnedBoost = w.PinnedBoost
		}
		if annHits[it.id] && st.Low > 0 && st.Total > 0 {
			it.why.LowConfidencePenalty = lowConfidencePenalty(w.LowConfidencePenalty, st.Low, st.Total)
		}
		it.score = it.rel + it.why.PinnedBoost - it.why.LowConfidencePenalty
		// exactly the sum of the parts shown, in the order the docs
		// write it, so a reader (jq) adding them gets ranking_score: a
		// rounded total can differ from the rounded parts' sum in the
		// last bit
		it.why.RankingScore = it.why.BM25 + it.why.PinnedBoost - it.why.LowConfidencePenalty
	}
	return nil
}

// lowConfidencePenalty is the penalty of an item whose annotations
// matched: the full penalty times the share of its annotations that are
// low-confidence agent ones (low of total), rounded; 0 when none is.
func lowConfidencePenalty(penalty float64, low, total int) float64 {
	if low <= 0 || total <= 0 {
		return 0
	}
	return round(penalty * float64(low) / float64(total))
}

// round rounds a score to 6 decimals, as why_ranked shows it.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }
