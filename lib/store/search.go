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

// Ranking: each matching FTS row (a chunk row, or an item's row: title,
// whole text, annotations) gets relevance = -bm25(search, title, body,
// annotations weights). Candidates are the best chunk rows and the item
// rows whose annotations match; every candidate item's row is then scored
// too. Rows are grouped by item: an item's relevance is its best chunk plus
// Doc times its item row plus SumBonus times its other candidate chunks
// (its item row alone when no chunk matched). Then
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
	// Doc is the share of the item row's relevance (title, whole text,
	// annotations) added to the best chunk row's.
	Doc float64
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
	Doc:                  0.3,
}

// Filter restricts search results and queue views.
type Filter struct {
	Tags   []string  // all of these tags
	Type   string    // source type
	Since  time.Time // saved_at >= Since
	Until  time.Time // saved_at < Until
	Actor  string    // items with an annotation by this actor
	Status string    // ingest status
	// Archived says whether archived items pass (default: they do; ll-find
	// and ll-brief ask for NotArchived unless told otherwise).
	Archived Archived
}

// Archived is the archive filter.
type Archived int

// Values of Filter.Archived.
const (
	AnyArchived  Archived = iota // archived items or not
	NotArchived                  // leave archived items out
	OnlyArchived                 // archived items only
)

// empty reports whether the filter passes every item, or every item but
// the archived ones (rank leaves those out with archivedOut, a set of the
// few archived items' rows, rather than a join on every match).
func (f Filter) empty() bool {
	return len(f.Tags) == 0 && f.Type == "" && f.Since.IsZero() && f.Until.IsZero() && f.Actor == "" && f.Status == "" &&
		f.Archived != OnlyArchived
}

// archivedOut returns a condition on FTS rows (table alias s) that leaves
// out the rows of archived items, "" when no item is archived or the
// filter keeps them. The partial index items_archived makes both the check
// and the set (built once per query) cost about the number of archived
// items.
func (f Filter) archivedOut(ctx context.Context, conn *sqlx.Conn) (string, error) {
	if f.Archived != NotArchived {
		return "", nil
	}
	var n int
	if err := conn.GetContext(ctx, &n, `SELECT EXISTS (SELECT 1 FROM items WHERE archived_at IS NOT NULL)`); err != nil {
		return "", err
	}
	if n == 0 {
		return "", nil
	}
	return `+s.rowid NOT IN (SELECT c.id FROM content_chunks c JOIN items it ON it.id = c.item_id WHERE it.archived_at IS NOT NULL
		UNION ALL SELECT -seq FROM items WHERE archived_at IS NOT NULL)`, nil
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
	switch f.Archived {
	case NotArchived:
		conds = append(conds, "it.archived_at IS NULL")
	case OnlyArchived:
		conds = append(conds, "it.archived_at IS NOT NULL")
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
		conds = append(conds, "it.id IN (SELECT item_id FROM annotations WHERE actor = ?)")
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
	// ScanRows bounds the rows bm25 ranks per query (default
	// DefaultScanRows; negative: no bound). Terms are kept rarest first
	// while the sum of their row counts fits; the others (the most common,
	// with the least bm25 weight) are left out. When even the rarest term
	// matches more rows, only the newest ScanRows matching rows are
	// ranked by bm25, or, when every term matches more than 3 × ScanRows
	// rows (stopword-like), taken newest first without bm25. So a query's
	// cost does not grow with the number of matches.
	ScanRows int
	// AllCopies shows every copy of the same text as its own hit, each
	// listing the others; by default a group of copies is one hit (see
	// copies.go).
	AllCopies bool

	exclude    string // set by Related: the item whose group is left out
	newestOnly bool   // set by Search: rank the newest ScanRows matches only
	unranked   bool   // set by Search: with newestOnly, no bm25 at all
	// exactCounts turns off sampled row counts (tests compare both).
	exactCounts bool
	rest        []string // set by Search: terms scored on the candidates only
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
	if o.ScanRows == 0 {
		o.ScanRows = DefaultScanRows
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
	annHit bool   // the annotations column matched (item rows)
	named  bool   // item row found by its title or annotations in a bounded mode
	item   string // the owning item's id, when already known
	// hl are the title, body and annotations columns with matches marked
	// by \x02...\x03 (filled by highlightRows for the rows a hit shows).
	hl [3]string
}

// scoredItem is an item with its matching rows.
type scoredItem struct {
	id      string
	rows    []*candidate // best first
	rel     float64      // relevance: best row plus the sum bonus
	named   bool         // found by its title or annotations in a bounded mode (see rank)
	score   float64      // ranking score, unrounded (why.RankingScore is rounded)
	why     record.WhyRanked
	related *record.RelatedWhy
	copies  []record.Copy // the other items with the same text
	merge   bool          // the hit shows the copies' annotations and tags too
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
	terms, rest, common, newest, unranked, err := s.pruneCommon(ctx, conn, q.Terms, opts.ScanRows, opts.exactCounts)
	if err != nil {
		return nil, err
	}
	opts.unranked = unranked
	q.Terms = terms
	opts.newestOnly = newest
	opts.rest = rest
	res.Terms = append(append(append([]string{}, q.Terms...), rest...), q.CJK...)
	res.Dropped = append(res.Dropped, common...)
	items, err := s.rankPage(ctx, conn, opts, func(o SearchOptions) ([]*scoredItem, error) { return s.rank(ctx, conn, q, o, "") })
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, conn, res, items, q, opts)
}

// finish builds the records of a page of ranked items (see rankPage).
func (s *Store) finish(ctx context.Context, conn *sqlx.Conn, res *SearchResult, items []*scoredItem, q query.Query, opts SearchOptions) (*SearchResult, error) {
	if len(items) == 0 {
		return res, nil
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

// DefaultScanRows is the default of SearchOptions.ScanRows.
const DefaultScanRows = 3000

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
func (s *Store) pruneCommon(ctx context.Context, conn *sqlx.Conn, terms []string, scan int, exactCounts bool) (keep, rest, drop []string, newest, unranked bool, err error) {
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
	if !exactCounts {
		var maxID, maxSeq sql.NullInt64
		if err := conn.QueryRowxContext(ctx, `SELECT (SELECT max(id) FROM content_chunks), (SELECT max(seq) FROM items)`).Scan(&maxID, &maxSeq); err != nil {
			return nil, nil, nil, false, false, err
		}
		if w := int64(scan) * sampleFactor; maxID.Int64 > 4*w {
			lo, allRows := maxID.Int64-w, maxID.Int64+maxSeq.Int64
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
	ns, err := countTerms(ctx, conn, exact, nil, int64(scan)+1)
	if err != nil {
		return nil, nil, nil, false, false, err
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
	hl := `''`
	if annotations {
		hl = `highlight(search, 2, char(2), char(3))`
	}
	qs, args, err := sqlx.In(`SELECT rowid, -bm25(search, `+bm25Weights(w)+`), `+hl+` FROM search WHERE search MATCH ? AND rowid BETWEEN ? AND ? AND +rowid IN (?)`, expr, lo, hi, ids)
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
		var marked string
		if err := r.Scan(&id, &rel, &marked); err != nil {
			return err
		}
		fn(id, rel, strings.IndexByte(marked, 2) >= 0)
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
		r.named = r.named || c.named

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
	archivedOut := ""
	if !filtered {
		var err error
		if archivedOut, err = opts.Filter.archivedOut(ctx, conn); err != nil {
			return nil, fmt.Errorf("search filter: %w", err)
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
	selective := false
	if !opts.Filter.empty() { // (exclude alone passes all items but one)
		var items int64
		if err := conn.GetContext(ctx, &items, `SELECT coalesce(max(seq), 0) FROM items`); err != nil {
			return nil, fmt.Errorf("search filter: %w", err)
		}
		most := min(filterSetMax, max(filterSetMin, items/filterSetShare))
		var n int64
		if err := conn.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM items it WHERE `+fcond+` LIMIT ?)`, append(append([]any{}, fargs...), most+1)...); err != nil {
			return nil, fmt.Errorf("search filter: %w", err)
		}
		selective = n <= most
	}
	chunkSet := `+s.rowid IN (SELECT c.id FROM content_chunks c JOIN items it ON it.id = c.item_id WHERE ` + fcond + `)`
	itemSet := `+s.rowid IN (SELECT -it.seq FROM items it WHERE ` + fcond + `)`
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
	cjkUnranked := false
	if m := q.TrigramMatch(); m != "" && opts.ScanRows >= 0 {
		var n int64
		if err := conn.GetContext(ctx, &n, `SELECT count(*) FROM (SELECT 1 FROM search_cjk WHERE search_cjk MATCH ? LIMIT ?)`, m, int64(opts.ScanRows)*rescoreFactor+1); err != nil {
			return nil, fmt.Errorf("search search_cjk: %w", err)
		}
		cjkUnranked = n > int64(opts.ScanRows)*rescoreFactor
	}
	for _, src := range []struct {
		kind         int
		table, match string
		rows         string // the rowid condition
	}{
		{chunkRows, "search", q.Match(), "s.rowid > 0"},
		{annotationRows, "search", onColumns("annotations", q.Match()), "s.rowid < 0"},
		{titleRows, "search", onColumns("title", q.Match()), "s.rowid < 0"},
		{cjkRows, "search_cjk", q.TrigramMatch(), "1"},
		{cjkNewestRows, "search_cjk", q.TrigramMatch(), "s.rowid > 0"},
		{cjkNamedRows, "search_cjk", q.TrigramMatch(), "s.rowid < 0"},
	} {
		switch {
		case src.match == "",
			!opts.newestOnly && src.kind == titleRows,
			cjkUnranked && src.kind == cjkRows,
			!cjkUnranked && (src.kind == cjkNewestRows || src.kind == cjkNamedRows):
			continue
		}
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
		args := []any{src.match, rankMatch}
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
			// Rank only the newest ScanRows matches: rowids from the
			// ScanRows-th newest match up (FTS5 walks rowid ranges
			// cheaply). This bound replaces "rowid > 0": FTS5 takes one
			// lower bound, and a second would be checked only after
			// ranking every match.
			// With a selective filter, the newest ScanRows of its rows.
			var floor sql.NullInt64
			fq, fa := `SELECT min(rowid) FROM (SELECT rowid FROM `+t+` s WHERE `+t+` MATCH ? AND rowid > 0 ORDER BY rowid DESC LIMIT ?)`, []any{src.match, opts.ScanRows}
			if selective {
				fq = `SELECT min(rowid) FROM (SELECT rowid FROM ` + t + ` s WHERE ` + t + ` MATCH ? AND rowid > 0 AND ` + chunkSet + ` ORDER BY rowid DESC LIMIT ?)`
				fa = append(append([]any{src.match}, fargs...), opts.ScanRows)
			}
			if err := conn.GetContext(ctx, &floor, fq, fa...); err != nil {
				return nil, fmt.Errorf("search %s: %w", t, err)
			}
			cond = "s.rowid >= ?"
			args = append(args, max(floor.Int64, 1))
		}
		join := ""
		switch {
		case selective && (src.kind == chunkRows || src.kind == cjkNewestRows):
			cond += " AND " + chunkSet
			args = append(args, fargs...)
		case selective && src.kind == cjkRows:
			cond += " AND (" + chunkSet + " OR " + itemSet + ")"
			args = append(append(args, fargs...), fargs...)
		case selective:
			cond += " AND " + itemSet
			args = append(args, fargs...)
		case filtered:
			join = ` JOIN items it ON it.id = CASE WHEN s.rowid > 0 THEN (SELECT item_id FROM content_chunks WHERE id = s.rowid) ELSE (SELECT id FROM items WHERE seq = -s.rowid) END`
			cond += " AND " + fcond
			args = append(args, fargs...)
		case archivedOut != "":
			cond += " AND " + archivedOut
		}
		sqlText := `SELECT ` + cols + ` FROM ` + t + ` s` + join + ` WHERE ` + t + ` MATCH ?` + rankPart + ` AND ` + cond + ` ORDER BY ` + order + ` LIMIT ?`
		args = append(args, limit)
		r, err := conn.QueryxContext(ctx, sqlText, args...)
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", t, err)
		}
		for r.Next() {
			var c candidate
			if err := r.Scan(&c.rowid, &c.rel, &c.hl[2]); err != nil {
				r.Close()
				return nil, err
			}
			switch src.kind {
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
			add(c, src.kind < cjkRows)
		}
		r.Close()
		if err := r.Err(); err != nil {
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
	// Short CJK runs: a LIKE scan of the CJK side index (only rows holding
	// CJK text), bounded by the candidate count.
	for _, run := range q.ShortRuns() {
		pat := query.LikePattern(run)
		sqlText := `SELECT s.rowid FROM search_cjk s WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') LIMIT ?`
		args := []any{pat, pat, pat, opts.Candidates}
		if archivedOut != "" {
			sqlText = `SELECT s.rowid FROM search_cjk s WHERE (s.title LIKE ? ESCAPE '\' OR s.body LIKE ? ESCAPE '\' OR s.annotations LIKE ? ESCAPE '\') AND ` + archivedOut + ` LIMIT ?`
		}
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
	if err := s.rescore(ctx, conn, rows, q.Terms, opts.rest, opts.Weights); err != nil {
		return nil, err
	}
	return s.group(ctx, conn, rows, opts.Weights)
}

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
		var hr []hitRow
		if err := conn.SelectContext(ctx, &hr, qs, args...); err != nil {
			return nil, nil, err
		}
		for _, h := range hr {
			meta[h.ID] = h
		}
	}
	tags, err := loadTags(ctx, conn, evIDs)
	if err != nil {
		return nil, nil, err
	}
	anns := map[string][]annRow{}
	{
		qs, args, err := sqlx.In(`SELECT id, item_id, chunk_id, type, text, actor, confidence, pinned, created_at FROM annotations
			WHERE item_id IN (?) ORDER BY pinned DESC, actor = 'human' DESC, coalesce(confidence, 1) DESC, id`, evIDs)
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
	arts, err := loadArtifacts(ctx, conn, evIDs)
	if err != nil {
		return nil, nil, err
	}
	var chunkIDs []int64
	for _, it := range items {
		for _, c := range chunkRowsFor(it, opts) {
			chunkIDs = append(chunkIDs, c.rowid)
		}
	}
	if err := highlightRows(ctx, conn, items, q, opts); err != nil {
		return nil, nil, err
	}
	chunks, err := loadChunks(ctx, conn, chunkIDs)
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
		if hit.WhyRanked != nil {
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

// chunkRowsFor lists the chunk rows whose snippets or text a hit shows.
func chunkRowsFor(it *scoredItem, opts SearchOptions) []*candidate {
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
func highlightRows(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, q query.Query, opts SearchOptions) error {
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
	qs, args, err := sqlx.In(`SELECT id, chunk_index, text, tokens, start_s, page FROM content_chunks WHERE id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []chunkRow
	if err := conn.SelectContext(ctx, &rows, qs, args...); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = r
	}
	return out, nil
}

// snippetTokens is about how many words a snippet shows.
const snippetTokens = 24

// explain fills snippets, chunks, matched fields and matched terms from the
// highlighted columns of the item's best rows.
func explain(it *scoredItem, hit *record.Hit, h hitRow, chunks map[int64]chunkRow, q query.Query, opts SearchOptions) {
	fields := map[string]bool{}
	terms := map[string]bool{}
	var termOrder []string
	addTerm := func(t string) {
		if !terms[t] {
			terms[t] = true
			termOrder = append(termOrder, t)
		}
	}
	colNames := []string{"title", "body", "annotations"}
	for _, c := range it.rows {
		if c.hl == ([3]string{}) {
			continue // not highlighted: beyond the rows that explain the hit
		}
		for i, col := range c.hl {
			spans := markedSpans(col)
			if len(spans) > 0 {
				fields[colNames[i]] = true
			}
			for _, t := range spans {
				addTerm(t)
			}
		}
	}
	nSnip := 0
	for _, c := range chunkRowsFor(it, opts) {
		ch, ok := chunks[c.rowid]
		if !ok {
			continue
		}
		text := markedSnippet(c.hl[1], snippetTokens)
		if text == "" {
			// matched by LIKE (short CJK runs): cut around the run
			text = likeSnippet(ch.Text, q.CJK, snippetTokens)
			for _, r := range q.CJK {
				if strings.Contains(ch.Text, r) {
					fields["body"] = true
					addTerm(r)
				}
			}
		}
		if nSnip < opts.Snippets && text != "" {
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
			nSnip++
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
	}
	for _, f := range colNames {
		if fields[f] {
			hit.WhyRanked.MatchedFields = append(hit.WhyRanked.MatchedFields, f)
		}
	}
	hit.WhyRanked.MatchedTerms = termOrder
}

// markedSnippet cuts about n words of a highlighted text around the window
// with the most marked matches and strips the markers. "" when nothing is
// marked.
func markedSnippet(marked string, n int) string {
	if strings.IndexByte(marked, 2) < 0 {
		return ""
	}
	words := strings.Fields(marked)
	best, bestAt := -1, 0
	// count marks in each window of n words (sliding)
	in := make([]int, len(words)+1)
	for i, w := range words {
		in[i+1] = in[i]
		if strings.IndexByte(w, 2) >= 0 || strings.IndexByte(w, 3) >= 0 {
			in[i+1]++
		}
	}
	for i := 0; i < len(words); i++ {
		j := min(len(words), i+n)
		if c := in[j] - in[i]; c > best {
			best, bestAt = c, i
		}
	}
	// start a few words before the first match of the window
	from := bestAt
	for k := bestAt; k < min(len(words), bestAt+n); k++ {
		if strings.IndexByte(words[k], 2) >= 0 {
			from = max(0, k-n/4)
			break
		}
	}
	to := min(len(words), from+n)
	out := strings.Join(words[from:to], " ")
	out = strings.NewReplacer("\x02", "", "\x03", "").Replace(out)
	if from > 0 {
		out = "…" + out
	}
	if to < len(words) {
		out += "…"
	}
	return out
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
	qs, args, err := sqlx.In(`UPDATE items SET revalidate_due = 1 WHERE revalidate_due = 0 AND content_from_record = 0 AND id IN (?)`, ids)
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
	fcond, fargs := opts.Filter.where()
	// A group of copies stands where its newest member does. The newest
	// offset+limit items are read first, and more (four times as many
	// each round) while copies fold them into fewer groups than the page
	// needs.
	n := opts.Offset + opts.Limit
	var items []*scoredItem
	for window := n; ; window *= 4 {
		var ids []string
		if err := conn.SelectContext(ctx, &ids, `SELECT it.id FROM items it WHERE `+fcond+` ORDER BY it.saved_at DESC, it.seq DESC LIMIT ?`,
			append(append([]any{}, fargs...), window)...); err != nil {
			return nil, err
		}
		items = make([]*scoredItem, len(ids))
		for i, id := range ids {
			items[i] = &scoredItem{id: id}
		}
		if opts.AllCopies {
			break
		}
		grouped, _, err := s.groupCopies(ctx, conn, items, n, opts.Filter, "", nil)
		if err != nil {
			return nil, err
		}
		if len(grouped) >= n || len(ids) < window {
			items = grouped
			break
		}
	}
	if opts.Offset >= len(items) {
		return &SearchResult{}, nil
	}
	items = items[opts.Offset:min(len(items), n)]
	if opts.AllCopies {
		if err := attachCopies(ctx, conn, items); err != nil {
			return nil, err
		}
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
