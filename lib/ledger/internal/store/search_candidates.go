package store

// Candidates: which rows of the full-text indexes a query ranks. The
// terms are pruned to a bounded scan (pruneCommon), the rows they match
// are collected from the chunk and item indexes under the filters (rank),
// and the terms left out are scored on those rows only (see scoring).

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/query"
)

// pruneCommon keeps terms rarest first while the rows they match add up to
// at most scan rows (at least one term). newest is true when even the rarest
// term matches more rows: ranking then looks at the newest rows only, and
// unranked is true when every term matches more than rescoreFactor × scan
// rows (no bm25 at all, see rank). The probe reads at most scan+1 rows per
// term, and at most rescoreFactor × scan + 1 for the commoner ones.
//
// The other terms matching at most rescoreFactor × scan rows are returned
// as rest: they do not find candidates but are scored on them (see
// rescore); the commoner ones are dropped.
//
// stats are the store's sizes and, when the index is small enough to
// count exactly, the first round of exact counts (see searchStats).
func (s *Store) pruneCommon(ctx context.Context, conn *sqlx.Conn, terms []string, scan int, exactCounts bool, stats searchStatsRow) (keep, rest, drop []string, newest, unranked bool, err error) {
	if scan < 0 || len(terms) == 0 {
		return terms, nil, nil, false, false, nil
	}
	capRows := int64(scan) * rescoreFactor
	df := make(map[string]int64, len(terms))
	// In a large index a common term's exact count reads up to capRows
	// doclist entries, and a long query has dozens of terms. So first
	// count each term in a window of the newest sampleRows chunk rows
	// (FTS5 seeks to the window's start) and scale up; only terms that
	// may be rare enough to find candidates are counted exactly.
	// The window holds chunk rows only; the estimate scales by all rows
	// (chunk and item rows), as if item rows matched in proportion.
	// Each round of counts is one statement (see countTerms).
	exact := terms
	var counted []int64 // exact counts of terms, when searchStats made them
	if !exactCounts {
		maxID, maxSeq := stats.maxID, stats.maxSeq
		counted = stats.counts
		if w := int64(scan) * sampleFactor; maxID > 4*w {
			counted = nil
			lo, allRows := maxID-w, maxID+maxSeq
			cs, err := countTerms(ctx, conn, terms, &lo, capRows*w/allRows+2)
			if err != nil {
				return nil, nil, nil, false, false, err
			}
			exact = nil
			for i, t := range terms {
				if est := cs[i] * allRows / w; est > 2*int64(scan) {
					df[t] = est
				} else {
					exact = append(exact, t)
				}
			}
		}
	}
	ns := counted
	if ns == nil {
		if ns, err = countTerms(ctx, conn, exact, nil, int64(scan)+1); err != nil {
			return nil, nil, nil, false, false, err
		}
	}
	var more []string // rescored or dropped?
	for i, t := range exact {
		df[t] = ns[i]
		if ns[i] > int64(scan) {
			more = append(more, t)
		}
	}
	ns, err = countTerms(ctx, conn, more, nil, capRows+1)
	if err != nil {
		return nil, nil, nil, false, false, err
	}
	for i, t := range more {
		df[t] = ns[i]
	}
	byDF := append([]string{}, terms...)
	sort.SliceStable(byDF, func(i, j int) bool { return df[byDF[i]] < df[byDF[j]] })
	if df[byDF[0]] > int64(scan) {
		// Every term is common: rank the newest matches of a few of them,
		// by bm25 when their row counts are known to be at most capRows
		// (bm25 reads each term's whole doclist for its idf), else
		// unranked (see rank).
		n := 0
		for n < len(byDF) && n < 8 && df[byDF[n]] <= capRows {
			n++
		}
		if n == 0 {
			n = min(len(byDF), 8)
			unranked = true
		}
		return byDF[:n], nil, byDF[n:], true, unranked, nil
	}
	// The rarest terms while their row counts add up to at most scan (the
	// sum bounds their union): they find the candidates.
	lo, sum := 0, int64(0)
	for lo < len(byDF) && (lo == 0 || sum+df[byDF[lo]] <= int64(scan)) {
		sum += df[byDF[lo]]
		lo++
	}
	kept := map[string]bool{}
	for _, t := range byDF[:lo] {
		kept[t] = true
	}
	for _, t := range terms { // query order
		switch {
		case kept[t]:
			keep = append(keep, t)
		case df[t] <= capRows:
			rest = append(rest, t)
		default:
			drop = append(drop, t)
		}
	}
	return keep, rest, drop, false, false, nil
}

// archivedState says whether any item is archived, when known.
type archivedState int8

const (
	archivedUnknown archivedState = iota
	archivedNone
	archivedSome
)

// searchStatsRow is what a search's first statement reads.
type searchStatsRow struct {
	maxID, maxSeq int64 // the newest chunk row and item row
	archived      archivedState
	// counts are the terms' exact row counts up to scan+1 (pruneCommon's
	// first round), nil when the index is large enough to be sampled
	// first or pruneCommon does not count.
	counts []int64
}

// searchStats reads, in one statement, what a search needs before it
// ranks: the store's sizes, whether any item is archived and, when
// pruneCommon will count the terms exactly (an index of at most four
// sample windows), those counts (each guarded by the size test, so a
// large index counts nothing here).
func searchStats(ctx context.Context, conn *sqlx.Conn, terms []string, scan int, exactCounts bool) (searchStatsRow, error) {
	var b strings.Builder
	b.WriteString(`SELECT coalesce((SELECT max(id) FROM content_chunks), 0), coalesce((SELECT max(seq) FROM items), 0),
		EXISTS (SELECT 1 FROM items WHERE archived_at IS NOT NULL)`)
	count := scan >= 0 && !exactCounts && len(terms) > 0
	var args []any
	if count {
		for _, t := range terms {
			b.WriteString(`, CASE WHEN coalesce((SELECT max(id) FROM content_chunks), 0) <= ? THEN (SELECT count(*) FROM (SELECT 1 FROM search WHERE search MATCH ? LIMIT ?)) END`)
			args = append(args, 4*int64(scan)*sampleFactor, query.Quote(t), int64(scan)+1)
		}
	}
	var st searchStatsRow
	var anyArchived bool
	ns := make([]sql.NullInt64, len(args)/3)
	dest := []any{&st.maxID, &st.maxSeq, &anyArchived}
	for i := range ns {
		dest = append(dest, &ns[i])
	}
	if err := conn.QueryRowContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return st, err
	}
	st.archived = archivedNone
	if anyArchived {
		st.archived = archivedSome
	}
	if count && ns[0].Valid {
		st.counts = make([]int64, len(ns))
		for i, n := range ns {
			st.counts[i] = n.Int64
		}
	}
	return st, nil
}

// countTerms returns, in one statement, how many rows of the word index
// each term matches, counting at most limit (and only rowids above *lo
// when lo is set). Each count is a bounded FTS5 scan; one statement saves
// a round trip per term for long queries.
func countTerms(ctx context.Context, conn *sqlx.Conn, terms []string, lo *int64, limit int64) ([]int64, error) {
	if lo == nil {
		return countMatches(ctx, conn, "search", terms, "", nil, limit)
	}
	return countMatches(ctx, conn, "search", terms, "rowid > ?", []any{*lo}, limit)
}

// countMatches returns, in one statement, how many rows of the full-text
// table each term matches where cond holds (an SQL condition with its
// arguments, "" for none), counting at most limit.
func countMatches(ctx context.Context, conn *sqlx.Conn, table string, terms []string, cond string, condArgs []any, limit int64) ([]int64, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	var b strings.Builder
	args := make([]any, 0, (2+len(condArgs))*len(terms))
	b.WriteString("SELECT ")
	for i, t := range terms {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(SELECT count(*) FROM (SELECT 1 FROM " + table + " WHERE " + table + " MATCH ?")
		args = append(args, query.Quote(t))
		if cond != "" {
			b.WriteString(" AND " + cond)
			args = append(args, condArgs...)
		}
		b.WriteString(" LIMIT ?))")
		args = append(args, limit)
	}
	out := make([]int64, len(terms))
	dest := make([]any, len(terms))
	for i := range out {
		dest[i] = &out[i]
	}
	if err := conn.QueryRowxContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return nil, err
	}
	return out, nil
}

// A filter is applied as a set of rows (see rank) when it passes at most
// 1/filterSetShare of the items, and at most filterSetMax (at least
// filterSetMin) of them. Past that share, building the set costs more than
// checking each match (measured: a type 14% of items pass was ~5 ms slower
// as a set; a tag 0.4% pass was 10–20 ms faster).
const (
	filterSetMax   = 5000
	filterSetMin   = 50
	filterSetShare = 10
)

// sampleFactor sizes the window of newest chunk rows in which pruneCommon
// counts terms first: sampleFactor × ScanRows rows, used once the index has
// more than four windows' worth.
const sampleFactor = 10

// rescoreFactor bounds the terms rescore adds: those matching at most
// rescoreFactor × ScanRows rows. FTS5's bm25 reads each phrase's whole
// doclist once per query to count its rows (a fast scan, not scoring).
const rescoreFactor = 3

// rank collects candidate rows from the indexes and groups them by item.
// exclude is an item id left out (for related items). Its steps: the
// filter's shape (rankFilterFor), the index scans (candidateSources, each
// run by scanCandidates), the item rows scored for the candidates
// (scoreItemRows), short CJK runs by LIKE (shortRunCandidates), the
// rest terms (rescore), and the rows grouped by item (group).
func (s *Store) rank(ctx context.Context, conn *sqlx.Conn, q query.Query, opts searchOpts, exclude string) ([]*scoredItem, error) {
	rows := candidateRows{}
	f, err := rankFilterFor(ctx, conn, opts, exclude)
	if err != nil {
		return nil, err
	}
	cjkUnranked, err := cjkTooCommon(ctx, conn, q, opts)
	if err != nil {
		return nil, err
	}
	for _, src := range candidateSources(q) {
		if !src.used(opts, cjkUnranked) {
			continue
		}
		sqlText, args, err := src.query(ctx, conn, opts, f)
		if err != nil {
			return nil, err
		}
		if err := rows.scan(ctx, conn, src.kind, sqlText, args, opts); err != nil {
			return nil, err
		}
	}
	// Unranked, the terms match too many rows for bm25 (see pruneCommon):
	// items rank by their newest matching rows alone. Otherwise the
	// candidate items' item rows are scored (with newestOnly, the kept
	// terms match at most rescoreFactor × ScanRows rows each, which bounds
	// the scan).
	if !opts.unranked {
		if err := s.scoreItemRows(ctx, conn, rows, q.Match(), opts.Weights); err != nil {
			return nil, err
		}
	}
	if err := rows.shortRuns(ctx, conn, q, opts, f); err != nil {
		return nil, err
	}
	if err := s.rescore(ctx, conn, rows, q.Terms, opts.rest, opts.Weights); err != nil {
		return nil, err
	}
	return s.group(ctx, conn, rows, opts.Weights)
}

// candidateRows are a query's candidate rows by rowid.
type candidateRows map[int64]*candidate

// addCandidate adds c's relevance and marks to its row in rows (porter:
// it came from the word index, else from the CJK side).
func addCandidate(rows candidateRows, c candidate, porter bool) {
	r := rows[c.rowid]
	if r == nil {
		r = &candidate{rowid: c.rowid}
		rows[c.rowid] = r
	}
	r.rel += c.rel
	r.annHit = r.annHit || c.annHit
	r.named = r.named || c.named

	if porter {
		r.porter = true
	} else {
		r.cjk = true
	}
}

// rankFilter is how a search's filter reaches the index scans.
type rankFilter struct {
	cond string // the filter's condition on items it
	args []any
	// filtered: a filter or an excluded item applies (cond is more than
	// the archived rule)
	filtered bool
	// selective: few enough items pass that the rows they own are
	// checked as a set (chunkSet, itemSet) rather than row by row
	selective bool
	// archivedOut is the condition that leaves archived items out when
	// nothing else filters ("" when none is needed)
	archivedOut string
	// chunkSet and itemSet: the filter as the set of chunk rows and of
	// item rows its items own
	chunkSet, itemSet string
}

// rankFilterFor decides how opts' filter (and exclude, an item id left
// out) is applied to the index scans.
func rankFilterFor(ctx context.Context, conn *sqlx.Conn, opts searchOpts, exclude string) (rankFilter, error) {
	var f rankFilter
	f.cond, f.args = opts.where()
	if exclude != "" {
		f.cond += " AND it.id != ?"
		f.args = append(f.args, exclude)
	}
	f.filtered = !filterEmpty(opts.Filter) || exclude != ""
	if !f.filtered {
		var err error
		if f.archivedOut, err = archivedOut(ctx, conn, opts.Filter, opts.archived); err != nil {
			return f, fmt.Errorf("search filter: %w", err)
		}
	}
	// A selective filter (at most filterSetMax items pass) becomes the set
	// of rows its items own, built once per query (SQLite materializes the
	// IN subquery) and checked in memory against each match. It is
	// applied before any bound, so the newest-rows bound counts only the
	// filter's rows and an old item that passes is not crowded out by
	// newer ones that do not. A filter most items pass is checked row by
	// row on the matches instead (a join): few rows are rejected there,
	// and building its set would cost more than the query.
	if !filterEmpty(opts.Filter) { // (exclude alone passes all items but one)
		var items int64
		if err := conn.GetContext(ctx, &items, `SELECT coalesce(max(seq), 0) FROM items`); err != nil {
			return f, fmt.Errorf("search filter: %w", err)
		}
		most := min(filterSetMax, max(filterSetMin, items/filterSetShare))
		var n int64
		if err := conn.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM items it WHERE `+f.cond+` LIMIT ?)`, append(append([]any{}, f.args...), most+1)...); err != nil {
			return f, fmt.Errorf("search filter: %w", err)
		}
		f.selective = n <= most
	}
	f.chunkSet = `+s.rowid IN (SELECT c.id FROM content_chunks c JOIN items it ON it.id = c.item_id WHERE ` + f.cond + `)`
	f.itemSet = `+s.rowid IN (SELECT -it.seq FROM items it WHERE ` + f.cond + `)`
	return f, nil
}

// The word index: chunk rows find the candidate passages, and item
// rows whose annotations match find items by their highlights and
// notes; item rows are then scored for the candidate items only
// (scoreItemRows), so the bm25 work per query is about the chunk
// matches, not twice that.
// The CJK index: chunk and item rows alike (it holds few rows).
// When the terms are too common for every match to be ranked
// (newestOnly), the newest chunk matches stand for the text, and item
// rows whose annotations or title match are found newest first
// instead, so that an old item named by the query in its title, a
// highlight or a note is never lost to the bound.
// The CJK index is bounded the same way, by itself: when the query's
// runs match more than rescoreFactor × ScanRows of its rows, bm25
// (whose idf reads every match) is skipped there, and the newest
// matching chunk rows and the newest items whose title or annotations
// match (CJK item rows hold only those) are taken, unranked.
const (
	chunkRows      = iota // word index, chunk rows
	annotationRows        // word index, item rows whose annotations match
	titleRows             // word index, item rows whose title matches (newestOnly)
	cjkRows               // CJK index, all rows
	cjkNewestRows         // CJK index, newest chunk rows (cjkUnranked)
	cjkNamedRows          // CJK index, newest item rows (cjkUnranked)
)

// cjkTooCommon reports whether the query's CJK runs match more rows than
// bm25 may rank (rescoreFactor × ScanRows): the CJK side is then taken
// unranked, newest first.
func cjkTooCommon(ctx context.Context, conn *sqlx.Conn, q query.Query, opts searchOpts) (bool, error) {
	m := q.TrigramMatch()
	if m == "" || opts.ScanRows < 0 {
		return false, nil
	}
	var n int64
	if err := conn.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM search_cjk WHERE search_cjk MATCH ? LIMIT ?)`, m, int64(opts.ScanRows)*rescoreFactor+1); err != nil {
		return false, fmt.Errorf("search search_cjk: %w", err)
	}
	return n > int64(opts.ScanRows)*rescoreFactor, nil
}

// candidateSource is one scan of an index for candidate rows.
type candidateSource struct {
	kind         int
	table, match string
	rows         string // the rowid condition
}

// candidateSources are the scans a query may need, in order.
func candidateSources(q query.Query) []candidateSource {
	return []candidateSource{
		{chunkRows, "search", q.Match(), "s.rowid > 0"},
		{annotationRows, "search", onColumns("annotations", q.Match()), "s.rowid < 0"},
		{titleRows, "search", onColumns("title", q.Match()), "s.rowid < 0"},
		{cjkRows, "search_cjk", q.TrigramMatch(), "1"},
		{cjkNewestRows, "search_cjk", q.TrigramMatch(), "s.rowid > 0"},
		{cjkNamedRows, "search_cjk", q.TrigramMatch(), "s.rowid < 0"},
	}
}

// used reports whether the scan runs for this query.
func (src candidateSource) used(opts searchOpts, cjkUnranked bool) bool {
	switch {
	case src.match == "",
		!opts.newestOnly && src.kind == titleRows,
		cjkUnranked && src.kind == cjkRows,
		!cjkUnranked && (src.kind == cjkNewestRows || src.kind == cjkNamedRows):
		return false
	}
	return true
}

// query is the scan's SQL and arguments under filter f.
func (src candidateSource) query(ctx context.Context, conn *sqlx.Conn, opts searchOpts, f rankFilter) (string, []any, error) {
	t := src.table
	// The hits' rows are highlighted later, once the page is known
	// (see highlightRows). Annotation rows need no highlight (the
	// column filter says the annotations matched), and scoreItemRows
	// scores them in full; CJK item rows are highlighted here to know
	// whether their annotations matched (they hold no body: cheap).
	cols := `s.rowid, -s.rank, ''`
	if src.kind == cjkRows {
		cols = `s.rowid, -s.rank, CASE WHEN s.rowid < 0 THEN highlight(` + t + `, 2, char(2), char(3)) ELSE '' END`
	}
	cond := src.rows
	args := []any{src.match, rankExpr(opts.Weights)}
	rankPart, order := ` AND rank MATCH ?`, `s.rank`
	limit := opts.Candidates
	switch {
	case src.kind == cjkNewestRows:
		cols = `s.rowid, 0.0, ''`
		rankPart, order = "", "s.rowid DESC"
		args = args[:1]
	case src.kind == cjkNamedRows:
		cols = `s.rowid, 0.0, highlight(` + t + `, 2, char(2), char(3))`
		rankPart, order = "", "s.rowid"
		args = args[:1]
	case opts.newestOnly && (src.kind == titleRows || src.kind == annotationRows):
		// No bm25 here (its idf would read whole doclists): the
		// newest matching items first (item rowids are -seq, so
		// ascending rowids are newest first). They are scored with
		// the other candidates by scoreItemRows when the newest rows
		// are ranked, up to ScanRows of them; unranked, they come
		// before the text-only matches (sortItems), up to Candidates.
		// Each scan walks the terms' item-row entries only (one per
		// item at most) and reads no row content.
		cols = `s.rowid, 0.0, ''`
		rankPart, order = "", "s.rowid"
		args = args[:1]
		if !opts.unranked {
			limit = max(limit, opts.ScanRows)
		}
	case opts.newestOnly && opts.unranked && src.kind == chunkRows:
		// Every term is stopword-like: bm25 would read each term's
		// whole doclist to count its rows (its idf), which is what the
		// bound avoids, and would rank stopword matches anyway. Take
		// the newest matching chunks instead (FTS5 walks the doclists
		// backwards and stops at the limit), with relevance 0: the
		// order is newest first (see sortItems).
		cols = `s.rowid, 0.0, ''`
		rankPart, order = "", "s.rowid DESC"
		args = args[:1]
	case opts.newestOnly && src.kind == chunkRows:
		floor, err := src.newestFloor(ctx, conn, opts, f)
		if err != nil {
			return "", nil, err
		}
		cond = "s.rowid >= ?"
		args = append(args, floor)
	}
	join := ""
	switch {
	case f.selective && (src.kind == chunkRows || src.kind == cjkNewestRows):
		cond += " AND " + f.chunkSet
		args = append(args, f.args...)
	case f.selective && src.kind == cjkRows:
		cond += " AND (" + f.chunkSet + " OR " + f.itemSet + ")"
		args = append(append(args, f.args...), f.args...)
	case f.selective:
		cond += " AND " + f.itemSet
		args = append(args, f.args...)
	case f.filtered:
		join = ` JOIN items it ON it.id = CASE WHEN s.rowid > 0 THEN (SELECT item_id FROM content_chunks WHERE id = s.rowid) ELSE (SELECT id FROM items WHERE seq = -s.rowid) END`
		cond += " AND " + f.cond
		args = append(args, f.args...)
	case f.archivedOut != "":
		cond += " AND " + f.archivedOut
	}
	sqlText := `SELECT ` + cols + ` FROM ` + t + ` s` + join + ` WHERE ` + t + ` MATCH ?` + rankPart + ` AND ` + cond + ` ORDER BY ` + order + ` LIMIT ?`
	return sqlText, append(args, limit), nil
}

// newestFloor bounds a ranked scan of chunk rows to the newest ScanRows
// matches: the rowid of the ScanRows-th newest match (at least 1). FTS5
// walks rowid ranges cheaply; this bound replaces "rowid > 0": FTS5 takes
// one lower bound, and a second would be checked only after ranking every
// match. With a selective filter, the newest ScanRows of its rows.
func (src candidateSource) newestFloor(ctx context.Context, conn *sqlx.Conn, opts searchOpts, f rankFilter) (int64, error) {
	t := src.table
	var floor sql.NullInt64
	fq, fa := `SELECT min(rowid) FROM (SELECT rowid FROM `+t+` s WHERE `+t+` MATCH ? AND rowid > 0 ORDER BY rowid DESC LIMIT ?)`, []any{src.match, opts.ScanRows}
	if f.selective {
		fq = `SELECT min(rowid) FROM (SELECT rowid FROM ` + t + ` s WHERE ` + t + ` MATCH ? AND rowid > 0 AND ` + f.chunkSet + ` ORDER BY rowid DESC LIMIT ?)`
		fa = append(append([]any{src.match}, f.args...), opts.ScanRows)
	}
	if err := conn.GetContext(ctx, &floor, fq, fa...); err != nil {
		return 0, fmt.Errorf("search %s: %w", t, err)
	}
	return max(floor.Int64, 1), nil
}

// scan runs one source's query and adds the rows it finds (kind says
// which marks they get).
func (rows candidateRows) scan(ctx context.Context, conn *sqlx.Conn, kind int, sqlText string, args []any, opts searchOpts) error {
	r, err := conn.QueryxContext(ctx, sqlText, args...)
	if err != nil {
		return fmt.Errorf("search %s: %w", sourceTable(kind), err)
	}
	defer r.Close()
	for r.Next() {
		var c candidate
		if err := r.Scan(&c.rowid, &c.rel, &c.hl[2]); err != nil {
			return err
		}
		switch kind {
		case annotationRows:
			c.annHit, c.rel = true, 0 // scored in full by scoreItemRows
			c.named = opts.newestOnly
		case titleRows:
			c.named = true
		case cjkRows:
			c.annHit = c.rowid < 0 && strings.IndexByte(c.hl[2], 2) >= 0
		case cjkNamedRows:
			c.annHit = strings.IndexByte(c.hl[2], 2) >= 0
			c.named = true
		}
		addCandidate(rows, c, kind < cjkRows)
	}
	return r.Err()
}

// sourceTable is the index a kind of scan reads.
func sourceTable(kind int) string {
	if kind < cjkRows {
		return "search"
	}
	return "search_cjk"
}

// shortRuns adds the rows holding the query's short CJK runs: a LIKE
// scan of the CJK side index (only rows holding CJK text), bounded by the
// candidate count.
func (rows candidateRows) shortRuns(ctx context.Context, conn *sqlx.Conn, q query.Query, opts searchOpts, f rankFilter) error {
	for _, run := range q.ShortRuns() {
		pat := query.LikePattern(run)
		sqlText := `SELECT s.rowid FROM search_cjk s WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') LIMIT ?`
		args := []any{pat, pat, pat, opts.Candidates}
		if f.archivedOut != "" {
			sqlText = `SELECT s.rowid FROM search_cjk s WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') AND ` + f.archivedOut + ` LIMIT ?`
		}
		if f.filtered {
			sqlText = `SELECT s.rowid FROM search_cjk s JOIN items it ON it.id =
				CASE WHEN s.rowid > 0 THEN (SELECT item_id FROM content_chunks WHERE id = s.rowid) ELSE (SELECT id FROM items WHERE seq = -s.rowid) END
				WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') AND ` + f.cond + ` LIMIT ?`
			args = append([]any{pat, pat, pat}, f.args...)
			args = append(args, opts.Candidates)
		}
		var ids []int64
		if err := conn.SelectContext(ctx, &ids, sqlText, args...); err != nil {
			return fmt.Errorf("search cjk: %w", err)
		}
		for _, id := range ids {
			addCandidate(rows, candidate{rowid: id, rel: 1}, false)
		}
	}
	return nil
}
