package store

import (
	"context"
	"fmt"
	"strings"
	"time"

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

// weightsDecayed is the SQL condition (on annotations a) for an annotation
// decayed under w at now, with its arguments; "0" when decay is off.
func weightsDecayed(w Weights, now time.Time) (string, []any) {
	return decayCond(DecayPolicy{Below: w.DecayBelow, After: w.DecayAfter}, now)
}

// filterEmpty reports whether the filter passes every item, or every item but
// the archived ones (rank leaves those out with archivedOut, a set of the
// few archived items' rows, rather than a join on every match).
func filterEmpty(f Filter) bool {
	return len(f.Tags) == 0 && f.Type == "" && f.Since.IsZero() && f.Until.IsZero() && f.Actor == "" && f.Status == "" &&
		f.Archived != OnlyArchived && len(f.Sites) == 0 && len(f.Types) == 0 && len(f.Actors) == 0 &&
		len(f.Phrases) == 0 && len(f.Exclude) == 0 && !f.Pinned && !f.HasHighlights && !f.HasNotes &&
		!f.Starred && !f.Read && !f.Unread
}

// mentions is an SQL condition on items "it": the item holds text (a word
// or phrase, matched as one FTS5 string) in its title, text or
// annotations: its row of the word index (or of the CJK index, for CJK
// text) or, past the whole text an item row keeps, one of its chunks.
func mentions(text string) (string, []any) {
	table := "search"
	if query.HasCJK(text) {
		table = "search_cjk"
	}
	m := query.Quote(text)
	return `(it.seq IN (SELECT -rowid FROM ` + table + ` WHERE ` + table + ` MATCH ? AND rowid < 0)
		OR it.id IN (SELECT item_id FROM content_chunks WHERE id IN (SELECT rowid FROM ` + table + ` WHERE ` + table + ` MATCH ? AND rowid > 0)))`, []any{m, m}
}

// siteCond is an SQL condition on items "it": its canonical URL's host is
// host or a subdomain of it. A host given without a port matches it on any
// port (site:127.0.0.1 finds http://127.0.0.1:8765/…); host:port matches
// that port only.
func siteCond(host string) (string, []any) {
	h := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(host)
	args := []any{"%://" + h + "/%", "%://" + h, "%://%." + h + "/%", "%://%." + h}
	if !strings.Contains(host, ":") {
		args = append(args, "%://"+h+":%", "%://%."+h+":%")
	}
	conds := make([]string, len(args))
	for i := range conds {
		conds[i] = `it.canonical_url LIKE ? ESCAPE '\'`
	}
	return "(" + strings.Join(conds, " OR ") + ")", args
}

// anyOf is "(c1 OR c2 …)" of one condition per value, with its arguments.
func anyOf(vals []string, cond func(string) (string, []any)) (string, []any) {
	var cs []string
	var args []any
	for _, v := range vals {
		c, a := cond(v)
		cs = append(cs, c)
		args = append(args, a...)
	}
	return "(" + strings.Join(cs, " OR ") + ")", args
}

// archivedOut returns a condition on FTS rows (table alias s) that leaves
// out the rows of archived items, "" when no item is archived or f keeps
// them. The partial index items_archived makes both the check
// and the set (built once per query) cost about the number of archived
// items.
// known is what search's first statement found (see searchStats), or
// unknown: then it is looked up.
func archivedOut(ctx context.Context, conn *sqlx.Conn, f Filter, known archivedState) (string, error) {
	if f.Archived != NotArchived {
		return "", nil
	}
	if known == archivedUnknown {
		var n int
		if err := conn.GetContext(ctx, &n, `SELECT EXISTS (SELECT 1 FROM items WHERE archived_at IS NOT NULL)`); err != nil {
			return "", err
		}
		known = archivedNone
		if n != 0 {
			known = archivedSome
		}
	}
	if known == archivedNone {
		return "", nil
	}
	return `+s.rowid NOT IN (SELECT c.id FROM content_chunks c JOIN items it ON it.id = c.item_id WHERE it.archived_at IS NOT NULL
		UNION ALL SELECT -seq FROM items WHERE archived_at IS NOT NULL)`, nil
}

// filterWhere returns f as an SQL condition on the items table aliased
// "it", with its arguments. sets are f's phrases and exclusions resolved
// (searchOpts.mentions); nil: each runs its full-text search in the
// condition.
func filterWhere(f Filter, sets []string) (string, []any) {
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
	if len(f.Types) > 0 {
		conds = append(conds, "it.source_type IN (?"+strings.Repeat(",?", len(f.Types)-1)+")")
		for _, t := range f.Types {
			args = append(args, t)
		}
	}
	if len(f.Actors) > 0 {
		conds = append(conds, "it.id IN (SELECT item_id FROM annotations WHERE actor IN (?"+strings.Repeat(",?", len(f.Actors)-1)+"))")
		for _, a := range f.Actors {
			args = append(args, a)
		}
	}
	if len(f.Sites) > 0 {
		c, a := anyOf(f.Sites, siteCond)
		conds = append(conds, c)
		args = append(args, a...)
	}
	resolved := len(sets) == len(f.Phrases)+len(f.Exclude)
	for i, p := range f.Phrases {
		if resolved {
			conds = append(conds, "it.seq IN (SELECT value FROM json_each(?))")
			args = append(args, sets[i])
			continue
		}
		c, a := mentions(p)
		conds = append(conds, c)
		args = append(args, a...)
	}
	for i, p := range f.Exclude {
		if resolved {
			conds = append(conds, "it.seq NOT IN (SELECT value FROM json_each(?))")
			args = append(args, sets[len(f.Phrases)+i])
			continue
		}
		c, a := mentions(p)
		conds = append(conds, "NOT "+c)
		args = append(args, a...)
	}
	if f.Pinned {
		conds = append(conds, "it.id IN (SELECT item_id FROM annotations WHERE pinned AND type = 'highlight' AND review IS NOT 'rejected')")
	}
	if f.HasHighlights {
		conds = append(conds, "it.id IN (SELECT item_id FROM annotations WHERE type = 'highlight' AND review IS NOT 'rejected')")
	}
	if f.HasNotes {
		conds = append(conds, "it.id IN (SELECT item_id FROM annotations WHERE type = 'note' AND review IS NOT 'rejected')")
	}
	conds = append(conds, readingCond(f.Starred, f.Read, f.Unread)...)
	if len(conds) == 0 {
		return "1", nil
	}
	return strings.Join(conds, " AND "), args
}

// resolveMentions resolves the filter's phrases and exclusions once, each
// to the set of items holding it (mentions: its item row or one of its
// chunks matches it as one FTS5 string), so a search whose statements
// each carry the filter runs every phrase's full-text search once, not
// once per statement (issue 27: one negated common phrase made a 10k-item
// search 17× slower; lib/query also caps them at query.MaxMentions).
func (s *Store) resolveMentions(ctx context.Context, o *searchOpts) error {
	f := o.Filter
	if len(f.Phrases)+len(f.Exclude) == 0 || len(o.mentions) == len(f.Phrases)+len(f.Exclude) {
		return nil
	}
	sets := make([]string, 0, len(f.Phrases)+len(f.Exclude))
	for _, p := range append(append([]string{}, f.Phrases...), f.Exclude...) {
		table := "search"
		if query.HasCJK(p) {
			table = "search_cjk"
		}
		var set string
		if err := s.db.GetContext(ctx, &set, `WITH m(r) AS (SELECT rowid FROM `+table+` WHERE `+table+` MATCH ?)
			SELECT coalesce(json_group_array(seq), '[]') FROM (SELECT -r AS seq FROM m WHERE r < 0
				UNION SELECT it.seq FROM m JOIN content_chunks c ON c.id = m.r JOIN items it ON it.id = c.item_id WHERE m.r > 0)`,
			query.Quote(p)); err != nil {
			return fmt.Errorf("search filter: %w", err)
		}
		sets = append(sets, set)
	}
	o.mentions = sets
	return nil
}

// searchOpts are a search's settings (SearchOptions) with what the store
// works out on the way: they never come from a caller.
type searchOpts struct {
	SearchOptions

	exclude    string        // set by Related: the item whose group is left out
	archived   archivedState // set by Search: whether any item is archived
	newestOnly bool          // set by Search: rank the newest ScanRows matches only
	unranked   bool          // set by Search: with newestOnly, no bm25 at all
	// exactCounts turns off sampled row counts (tests compare both).
	exactCounts bool
	rest        []string // set by Search: terms scored on the candidates only
	// mentions are Filter.Phrases then Filter.Exclude, each resolved once
	// to the items that hold it (a JSON array of item seqs;
	// resolveMentions): the filter's condition then checks set membership
	// instead of running the phrase's full-text search again in every
	// statement the filter is part of
	mentions []string
}

// where is the search's filter as an SQL condition on items "it"
// (filterWhere), its phrases resolved when resolveMentions ran.
func (o searchOpts) where() (string, []any) { return filterWhere(o.Filter, o.mentions) }

func (o searchOpts) withDefaults() searchOpts {
	if o.Limit <= 0 {
		o.Limit = 10
	}
	if o.Offset < 0 {
		o.Offset = 0
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

// candidate is one matching FTS row.
type candidate struct {
	rowid  int64
	rel    float64
	cjk    bool // matched in search_cjk (or by LIKE)
	porter bool
	annHit bool   // the annotations column matched (item rows)
	named  bool   // item row found by its title or annotations in a bounded mode
	item   string // the owning item's id, when already known
	// semantic: a chunk the semantic side found (its best by similarity)
	semantic bool
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
	return s.searchWith(ctx, searchOpts{SearchOptions: opts})
}

// searchWith is Search with the store's own settings too (tests set
// exactCounts).
func (s *Store) searchWith(ctx context.Context, opts searchOpts) (*SearchResult, error) {
	return bounded(ctx, func(ctx context.Context) (*SearchResult, error) { return s.search(ctx, opts) })
}

// bounded runs op, a search of a bounded number of statements, on ctx
// without its cancellation, and reports ctx's error once op is done: for
// a cancellable context database/sql and the driver start one or two
// goroutines per statement to watch it (measured: 0.8 ms of a one-word
// ll-find's ~20 statements). A Ctrl-C during a search so ends it when its
// statements are done (milliseconds), not inside one.
func bounded[T any](ctx context.Context, op func(context.Context) (T, error)) (T, error) {
	v, err := op(context.WithoutCancel(ctx))
	if err == nil {
		if cerr := ctx.Err(); cerr != nil {
			var zero T
			return zero, cerr
		}
	}
	return v, err
}

func (s *Store) search(ctx context.Context, opts searchOpts) (*SearchResult, error) {
	opts = opts.withDefaults()
	if err := s.resolveMentions(ctx, &opts); err != nil {
		return nil, err
	}
	q := query.Parse(opts.Text, opts.Query)
	res := &SearchResult{Dropped: q.Dropped}
	sem := opts.Semantic
	if sem != nil && (len(sem.Vector) == 0 && sem.Embed == nil || sem.Model == "") {
		sem = nil
	}
	if sem != nil && sem.Mode == ModeSemantic {
		q = query.Query{Dropped: q.Dropped} // no lexical side
	}
	cut := opts.Cut
	if sem != nil {
		// the weak-match cut compares text matches (bm25) only: an item
		// the semantic side brought in has none and would always be cut,
		// and fused scores are ranks, not strengths (docs/retrieval.md)
		opts.Cut = 0
	}
	if q.Empty() && sem == nil {
		return res, nil
	}
	var run *semanticRun
	if sem != nil {
		// the semantic side ranks on its own goroutine and connection
		// while this one ranks the lexical side
		run = s.startSemantic(ctx, sem, opts, firstPool(opts))
		defer func() {
			run.wait()
			if run.embedErr != nil {
				res.SemanticErr = run.embedErr
			}
		}()
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if q.Empty() {
		return s.semanticOnly(ctx, conn, res, q, run, opts)
	}
	stats, err := searchStats(ctx, conn, q.Terms, opts.ScanRows, opts.exactCounts)
	if err != nil {
		return nil, err
	}
	opts.archived = stats.archived
	terms, rest, common, newest, unranked, err := s.pruneCommon(ctx, conn, q.Terms, opts.ScanRows, opts.exactCounts, stats)
	if err != nil {
		return nil, err
	}
	opts.unranked = unranked
	q.Terms = terms
	opts.newestOnly = newest
	opts.rest = rest
	res.Terms = append(append(append([]string{}, q.Terms...), rest...), q.CJK...)
	res.Dropped = append(res.Dropped, common...)
	if run != nil && run.embedFailed() {
		// the query has no vector: the lexical ranking, as without one
		sem, opts.Cut = nil, cut
	}
	items, err := s.rankPage(ctx, conn, opts, func(o searchOpts) ([]*scoredItem, error) {
		lex, err := s.rank(ctx, conn, q, o, "")
		if err != nil || sem == nil {
			return lex, err
		}
		return s.withSemantic(ctx, conn, lex, run, o)
	})
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, conn, res, items, q, opts)
}

// semanticOnly ranks by the semantic side alone (ModeSemantic, or a
// hybrid query with no word to search for).
func (s *Store) semanticOnly(ctx context.Context, conn *sqlx.Conn, res *SearchResult, q query.Query, run *semanticRun, opts searchOpts) (*SearchResult, error) {
	var err error
	if opts.archived, err = anyArchived(ctx, conn); err != nil {
		return nil, err
	}
	items, err := s.rankPage(ctx, conn, opts, func(o searchOpts) ([]*scoredItem, error) {
		return s.withSemantic(ctx, conn, nil, run, o)
	})
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, conn, res, items, q, opts)
}

// finish builds the records of a page of ranked items (see rankPage).
func (s *Store) finish(ctx context.Context, conn *sqlx.Conn, res *SearchResult, items []*scoredItem, q query.Query, opts searchOpts) (*SearchResult, error) {
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
	// one short statement: not worth a goroutine watching ctx (see bounded)
	_, err = s.db.ExecContext(context.WithoutCancel(ctx), qs, args...)
	return err
}

// Recent lists items without a query, newest saved first, through the same
// filters and hit records as Search (no why_ranked terms, no snippets).
func (s *Store) Recent(ctx context.Context, opts SearchOptions) (*SearchResult, error) {
	return bounded(ctx, func(ctx context.Context) (*SearchResult, error) {
		return s.recent(ctx, searchOpts{SearchOptions: opts})
	})
}

func (s *Store) recent(ctx context.Context, opts searchOpts) (*SearchResult, error) {
	opts = opts.withDefaults()
	if err := s.resolveMentions(ctx, &opts); err != nil {
		return nil, err
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	fcond, fargs := opts.where()
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
