package store

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Copies of one text. Items whose normalised text has the same checksum
// (the same page saved under several URLs; ll-index also records the
// older one as duplicate_of) are one result in Search, Related and Recent
// unless SearchOptions.AllCopies:
//
//   - the group stands where its best-ranked member would have stood, with
//     that member's score, plus the pinned boost when any copy has a
//     pinned highlight and the member had none (the group then moves up
//     among the groups of the page);
//   - its record is the representative's: the member that passes the
//     filter with the most pinned highlights, then the most human
//     annotations, then the earliest saved, then the lowest id;
//   - it carries the other members under "copies", and their highlights,
//     lowlights, notes (deduplicated by text), tags and, when the
//     representative has none, their newest artifact;
//   - limits and offsets count groups.
//
// The checksum, not duplicate_of, defines the group: duplicate_of is
// written once, when an item is indexed, and goes stale when either item's
// text changes (and two items indexed in turn can point at each other);
// the checksum is always the item's current text. Finding the groups costs
// one indexed lookup (items_checksum) per round of the page's candidates,
// not a scan: most rounds are one statement.

// groupMember is one item of a group of copies.
type groupMember struct {
	Of      string `db:"of"` // the looked-up item whose group this is
	ID      string `db:"id"`
	URL     string `db:"canonical_url"`
	SavedAt string `db:"saved_at"`
	Pinned  int    `db:"pinned"` // pinned highlights
	Human   int    `db:"human"`  // human annotations
	Passes  bool   `db:"passes"` // passes the search filter
}

// lookupCopies returns, for each of ids that has copies, its whole group
// (itself included), earliest saved first. Items without copies are
// absent. passes is evaluated with f.
func lookupCopies(ctx context.Context, conn *sqlx.Conn, ids []string, f Filter) (map[string][]groupMember, error) {
	out := map[string][]groupMember{}
	if len(ids) == 0 {
		return out, nil
	}
	fcond, fargs := filterWhere(f, nil)
	args := append(append([]any{}, fargs...), ids)
	qs, args, err := sqlx.In(`SELECT c.id AS of, it.id, it.canonical_url, it.saved_at,
		(SELECT count(*) FROM annotations a WHERE a.item_id = it.id AND a.type = 'highlight' AND a.pinned) AS pinned,
		(SELECT count(*) FROM annotations a WHERE a.item_id = it.id AND a.actor = 'human') AS human,
		CASE WHEN `+fcond+` THEN 1 ELSE 0 END AS passes
		FROM items c JOIN items it ON it.checksum = c.checksum
		WHERE c.id IN (?) AND c.checksum IS NOT NULL
		  AND EXISTS (SELECT 1 FROM items d WHERE d.checksum = c.checksum AND d.id != c.id)
		ORDER BY c.id, it.saved_at, it.id`, args...)
	if err != nil {
		return nil, err
	}
	err = queryRows(ctx, conn, qs, args, func(scan func(...any) error) error {
		var m groupMember
		if err := scan(&m.Of, &m.ID, &m.URL, &m.SavedAt, &m.Pinned, &m.Human, &m.Passes); err != nil {
			return err
		}
		out[m.Of] = append(out[m.Of], m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// representative picks the member a group shows: among those that pass
// the filter, the most pinned highlights, then the most human annotations,
// then the earliest saved, then the lowest id. fallback is returned when
// none passes.
func representative(g []groupMember, fallback string) string {
	var best *groupMember
	for i := range g {
		if m := &g[i]; m.Passes && (best == nil || moreEvidence(m, best)) {
			best = m
		}
	}
	if best == nil {
		return fallback
	}
	return best.ID
}

// moreEvidence orders the members of a group for representative.
func moreEvidence(a, b *groupMember) bool {
	if a.Pinned != b.Pinned {
		return a.Pinned > b.Pinned
	}
	if a.Human != b.Human {
		return a.Human > b.Human
	}
	if a.SavedAt != b.SavedAt {
		return a.SavedAt < b.SavedAt
	}
	return a.ID < b.ID
}

// groupItem makes the group of copies g one ranked item: the
// representative's id, the others as copies, and the rows and score of the
// best of its ranked members (ranked: candidate items by id), first the
// best-ranked one. With weights (ranked results), a member without the
// pinned boost gets it when a copy has a pinned highlight, so the group
// may outrank its best-ranked member alone; bumped says so.
func groupItem(first *scoredItem, g []groupMember, ranked map[string]*scoredItem, w *Weights) (it *scoredItem, bumped bool) {
	pinned := false
	for _, m := range g {
		pinned = pinned || m.Pinned > 0
	}
	boosted := func(x *scoredItem) *scoredItem {
		if w == nil || !pinned || x.why.PinnedBoost != 0 || w.PinnedBoost == 0 {
			return x
		}
		y := *x
		y.why.PinnedBoost = w.PinnedBoost
		add := w.PinnedBoost
		if f := y.why.Fusion; f != nil {
			// a fused score: the boost in its units (search_semantic.go)
			add *= adjustScale
			g := *f
			g.FusedScore = round(y.score + add)
			y.why.Fusion = &g
		}
		y.score += add
		y.why.RankingScore = round(y.score)
		if y.why.Fusion == nil {
			// the shown parts' exact sum (see Store.adjust)
			y.why.RankingScore = y.why.BM25 + y.why.PinnedBoost - y.why.LowConfidencePenalty
		}
		return &y
	}
	best := boosted(first)
	for _, m := range g {
		if x := ranked[m.ID]; x != nil && x != first {
			if y := boosted(x); y.score > best.score {
				best = y
			}
		}
	}
	out := *best
	bumped = out.score != first.score
	out.id = representative(g, first.id)
	out.merge = true
	out.copies = nil
	for _, m := range g {
		if m.ID != out.id {
			out.copies = append(out.copies, record.Copy{ID: m.ID, URL: m.URL})
		}
	}
	return &out, bumped
}

// groupCopies walks the ranked items (best first) and returns the first n
// groups of copies, each as one item (see groupItem); an item without
// copies is a group of one. A group holding exclude (the item Related
// starts from) is left out. folded says whether copies were folded into
// groups. Only the items the n groups need are looked up, a page's worth
// per statement. w is nil for unranked lists.
func (s *Store) groupCopies(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, n int, f Filter, exclude string, w *Weights) (out []*scoredItem, folded bool, err error) {
	looked := map[string]bool{}
	groups := map[string][]groupMember{}
	taken := map[string]bool{} // members of the groups already walked
	var ranked map[string]*scoredItem
	if w != nil {
		ranked = make(map[string]*scoredItem, len(items))
		for _, it := range items {
			ranked[it.id] = it
		}
	}
	bumped := false
	next := 0
	for len(out) < n && next < len(items) {
		var batch []string
		for j := next; j < len(items) && len(batch) < n-len(out); j++ {
			if id := items[j].id; !taken[id] && !looked[id] {
				batch = append(batch, id)
			}
		}
		found, err := lookupCopies(ctx, conn, batch, f)
		if err != nil {
			return nil, false, err
		}
		for _, id := range batch {
			looked[id] = true
		}
		for id, g := range found {
			groups[id] = g
		}
		for ; next < len(items) && len(out) < n; next++ {
			it := items[next]
			if taken[it.id] {
				continue
			}
			if !looked[it.id] {
				break // the next round looks it up
			}
			g := groups[it.id]
			taken[it.id] = true
			if g == nil {
				out = append(out, it)
				continue
			}
			folded = true
			skip := false
			for _, m := range g {
				taken[m.ID] = true
				skip = skip || m.ID == exclude
			}
			if skip {
				continue
			}
			gi, b := groupItem(it, g, ranked, w)
			bumped = bumped || b
			out = append(out, gi)
		}
	}
	if bumped {
		sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	}
	return out, folded, nil
}

// attachCopies lists, on each item with copies, the other members of its
// group (SearchOptions.AllCopies: every copy is its own hit and names the
// others, so that ll-brief can still skip a second copy).
func attachCopies(ctx context.Context, conn *sqlx.Conn, items []*scoredItem) error {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	found, err := lookupCopies(ctx, conn, ids, Filter{})
	if err != nil {
		return err
	}
	for _, it := range items {
		it.copies = nil
		for _, m := range found[it.id] {
			if m.ID != it.id {
				it.copies = append(it.copies, record.Copy{ID: m.ID, URL: m.URL})
			}
		}
	}
	return nil
}

// groupTier returns the first opts.Limit groups of the ranked items:
// groups of copies made one (groupCopies) unless opts.AllCopies, when
// every copy stays. w is nil for unranked lists. folded says whether
// copies were folded into groups.
func (s *Store) groupTier(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, opts searchOpts, w *Weights) (groups []*scoredItem, folded bool, err error) {
	if opts.AllCopies {
		return items[:min(len(items), opts.Limit)], false, nil
	}
	return s.groupCopies(ctx, conn, items, opts.Limit, opts.Filter, opts.exclude, w)
}

// Copies can take every candidate row: twenty copies of a page hold twenty
// times its matching chunks. When they fold the candidates into fewer
// groups than the tier needs while the candidate bound was reached,
// rankTier ranks again with copyRetryFactor times the candidates, at most
// copyRetries times.
const (
	copyRetryFactor = 4
	copyRetries     = 2
)

// Ranking does not depend on the page asked for: the first 10 of
// --limit 100 are --limit 10, and pages (--offset) never repeat or skip
// an item. The candidate pool bm25 ranks (and so which items are found,
// and how each scores) is therefore never sized by limit or offset. The
// results are one fixed list built in tiers: the first tier is the best
// tierItems items of a pool of tierRows rows per item; each next tier,
// tierFactor times larger, keeps the list so far and appends the items its
// larger pool finds that are not in it yet, up to its size. A page is a
// slice of that list, computed up to the tier that covers it: --limit 10
// ranks one pool of 80 rows, --limit 100 two (80 and 800 rows), as the
// old pools of 8 × (limit + offset) rows cost, and the top 10 from 80 rows
// score as the top 10 from 800 on SciFact (nDCG@10 per half within
// 0.0004, docs/retrieval.md). Before, with those pools, a quarter of
// sampled result lists changed with the limit.
const (
	tierItems  = 10
	tierRows   = 8
	tierFactor = 10
)

// firstPool is the candidates of rankPage's first tier: an explicit
// pool, else tierRows per item.
func firstPool(opts searchOpts) int {
	if opts.Candidates > 0 {
		return opts.Candidates
	}
	return tierRows * tierItems
}

// rankPage ranks (rank) and cuts the page opts asks for from the list of
// tiers (see tierItems). With opts.Cut, the items of the list whose text
// match (bm25) is below Cut times the best of the first tier are left out; tiers are
// added until the page is full, or a tier adds no item above the cut.
func (s *Store) rankPage(ctx context.Context, conn *sqlx.Conn, opts searchOpts, rank func(searchOpts) ([]*scoredItem, error)) ([]*scoredItem, error) {
	n := opts.Offset + opts.Limit
	var list []*scoredItem
	seen := map[string]bool{}
	floor := math.Inf(-1) // the cut
	strong := func() int {
		k := 0
		for _, it := range list {
			if it.rel >= floor {
				k++
			}
		}
		return k
	}
	kept := 0
	pool := firstPool(opts)
	for size := tierItems; ; size *= tierFactor {
		o := opts
		o.Offset, o.Limit, o.Candidates = 0, size, pool*(size/tierItems)
		groups, more, err := s.rankTier(ctx, conn, o, rank)
		if err != nil {
			return nil, err
		}
		for _, it := range groups {
			if more && len(list) == size {
				break // (a pool that held every match ranked them all)
			}
			if !seen[it.id] {
				seen[it.id] = true
				list = append(list, it)
			}
		}
		if opts.Cut > 0 && size == tierItems {
			// the best text match (bm25) of the first tier (fixed
			// whatever the page), not the pinned boost or the
			// low-confidence penalty: those are about annotations, and a
			// boost of 2 would dwarf every bm25 of a small ledger
			best := 0.0
			for _, it := range list {
				best = max(best, it.rel)
			}
			if best > 0 {
				floor = opts.Cut * best
			}
		}
		k := strong()
		if k >= n || !more || (size > tierItems && k == kept) {
			break
		}
		kept = k
	}
	if !math.IsInf(floor, -1) {
		var cut []*scoredItem
		for _, it := range list {
			if it.rel >= floor {
				cut = append(cut, it)
			}
		}
		list = cut
	}
	if opts.Offset >= len(list) {
		return nil, nil
	}
	page := list[opts.Offset:min(len(list), n)]
	if opts.AllCopies {
		if err := attachCopies(ctx, conn, page); err != nil {
			return nil, err
		}
	}
	return page, nil
}

// rankTier ranks with opts.Candidates rows and returns the first
// opts.Limit groups, looking further when copies left it short (see
// copyRetries). more says whether a larger pool could find more items
// (the pool was full); when it could not, every group is returned: a
// larger pool would rank the same rows the same way.
func (s *Store) rankTier(ctx context.Context, conn *sqlx.Conn, opts searchOpts, rank func(searchOpts) ([]*scoredItem, error)) (groups []*scoredItem, more bool, err error) {
	for round := 0; ; round++ {
		items, err := rank(opts)
		if err != nil {
			return nil, false, err
		}
		// each source of rows (chunk rows, item rows) is bounded by
		// Candidates: one that reached it may hold more
		chunkRows, itemRows := 0, 0
		for _, it := range items {
			for _, r := range it.rows {
				if r.rowid > 0 {
					chunkRows++
				} else {
					itemRows++
				}
			}
		}
		full := max(chunkRows, itemRows) >= opts.Candidates
		o := opts
		if !full {
			o.Limit = len(items)
		}
		groups, folded, err := s.groupTier(ctx, conn, items, o, &opts.Weights)
		if err != nil {
			return nil, false, err
		}
		if !folded || len(groups) >= opts.Limit || !full || round == copyRetries {
			return groups, full, nil
		}
		opts.Candidates *= copyRetryFactor
	}
}

// mergeAnnotations returns the annotations of a group, best first (pinned,
// human, most confident, oldest), each text once per type.
func mergeAnnotations(as []annRow) []annRow {
	sort.SliceStable(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if a.Pinned != b.Pinned {
			return a.Pinned
		}
		if ah, bh := a.Actor == "human", b.Actor == "human"; ah != bh {
			return ah
		}
		ac, bc := 1.0, 1.0
		if a.Confidence.Valid {
			ac = a.Confidence.Float64
		}
		if b.Confidence.Valid {
			bc = b.Confidence.Float64
		}
		if ac != bc {
			return ac > bc
		}
		return a.ID < b.ID
	})
	seen := map[[2]string]bool{}
	var out []annRow
	for _, a := range as {
		k := [2]string{a.Type, strings.TrimSpace(a.Text)}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, a)
	}
	return out
}

// mergeTags returns the sorted union of tag lists.
func mergeTags(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, t := range l {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}
