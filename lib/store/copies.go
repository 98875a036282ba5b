package store

import (
	"context"
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
	fcond, fargs := f.where()
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

// pageItems cuts the page opts asks for from the ranked items: groups of
// copies made one (groupCopies) unless opts.AllCopies, when every copy
// stays and lists the others. w is nil for unranked lists. folded says
// whether copies were folded into groups.
func (s *Store) pageItems(ctx context.Context, conn *sqlx.Conn, items []*scoredItem, opts SearchOptions, w *Weights) (page []*scoredItem, folded bool, err error) {
	n := opts.Offset + opts.Limit
	if !opts.AllCopies {
		if items, folded, err = s.groupCopies(ctx, conn, items, n, opts.Filter, opts.exclude, w); err != nil {
			return nil, false, err
		}
	}
	if opts.Offset >= len(items) {
		return nil, folded, nil
	}
	items = items[opts.Offset:min(len(items), n)]
	if opts.AllCopies {
		if err := attachCopies(ctx, conn, items); err != nil {
			return nil, false, err
		}
	}
	return items, folded, nil
}

// Copies can take every candidate row: twenty copies of a page hold twenty
// times its matching chunks. When they fold the candidates into fewer
// groups than the page needs while the candidate bound was reached,
// rankPage ranks again with copyRetryFactor times the candidates, at most
// copyRetries times.
const (
	copyRetryFactor = 4
	copyRetries     = 2
)

// rankPage ranks (rank) and cuts the page opts asks for (pageItems),
// looking further when copies left the page short (see copyRetries).
func (s *Store) rankPage(ctx context.Context, conn *sqlx.Conn, opts SearchOptions, rank func(SearchOptions) ([]*scoredItem, error)) ([]*scoredItem, error) {
	for round := 0; ; round++ {
		items, err := rank(opts)
		if err != nil {
			return nil, err
		}
		page, folded, err := s.pageItems(ctx, conn, items, opts, &opts.Weights)
		if err != nil {
			return nil, err
		}
		rows := 0
		for _, it := range items {
			rows += len(it.rows)
		}
		if !folded || len(page) >= opts.Limit || rows < opts.Candidates || round == copyRetries {
			return page, nil
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
