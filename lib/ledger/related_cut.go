package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// RelatedHits ranks the items related to the item id (store.Related) and
// leaves out weak neighbours: every face (ll-find --related, linkledger
// related, the MCP related tool) lists related items through it, so the
// rule is the same everywhere (docs/retrieval.md "Related items"). so.Cut
// is the share, as for a query (spec.DefaultCut by default; 0 keeps
// every neighbour, as --all-matches). The list is cut from its best
// neighbour, not the page's: the page so.Offset, so.Limit is taken from
// the cut list, so pages stay stable.
func (l *Ledger) RelatedHits(ctx context.Context, id string, so spec.SearchOptions) (*spec.SearchResult, error) {
	st := l.st
	limit := so.Limit
	if limit <= 0 {
		limit = 10 // spec.SearchOptions' default
	}
	off := max(so.Offset, 0)
	so.Offset, so.Limit = 0, off+limit
	res, err := st.Related(ctx, id, store.RelatedOptions{SearchOptions: so})
	if err != nil {
		return nil, err
	}
	hits := cutRelated(res.Hits, so.Cut)
	if off >= len(hits) {
		hits = nil
	} else {
		hits = hits[off:min(len(hits), off+limit)]
	}
	kept := map[string]bool{}
	for _, h := range hits {
		kept[h.ID] = true
	}
	var stale []string
	for _, s := range res.StaleIDs {
		if kept[s] {
			stale = append(stale, s)
		}
	}
	res.Hits, res.StaleIDs = hits, stale
	return res, nil
}

// cutRelated leaves out the neighbours (best first) that are weak next
// to the best one. A neighbour is kept when it shares a tag with the item
// (a person's own word that they belong together), when its text match
// (bm25 of the item's distinctive terms) is at least cut times the best
// neighbour's, or when the semantic side found it with a similarity at
// least half the best neighbour's (the rule the brief uses for items
// found by meaning). As for a query's cut (store.rankPage), the text
// match is compared without boosts: a tag's or a pin's boost would dwarf
// every bm25 of a small ledger. The share is a query's (0.3 by default),
// chosen for related items on SciFact: it cuts none of the documents
// relevant to the same claim among the ten best neighbours, and about
// one neighbour in thirty (docs/retrieval.md). cut <= 0 keeps every
// neighbour.
func cutRelated(hits []*record.Record, cut float64) []*record.Record {
	if cut <= 0 || len(hits) == 0 {
		return hits
	}
	bestLex, bestSim := 0.0, 0.0
	for _, h := range hits {
		n := strengthOf(h)
		bestLex, bestSim = max(bestLex, n.lex), max(bestSim, n.sim)
	}
	var out []*record.Record
	for _, h := range hits {
		n := strengthOf(h)
		if !n.judged || n.tags > 0 || (bestLex > 0 && n.lex >= cut*bestLex) || (bestSim > 0 && n.sim >= bestSim/2) {
			out = append(out, h)
		}
	}
	return out
}

// strength is what a neighbour is judged by: its text match, its
// semantic similarity (0 when the semantic side did not find it) and its
// shared tags; judged is false for a hit without why_ranked (kept).
type strength struct {
	lex, sim float64
	tags     int
	judged   bool
}

func strengthOf(h *record.Record) strength {
	if h.Hit == nil || h.Hit.WhyRanked == nil {
		return strength{}
	}
	w := h.Hit.WhyRanked
	n := strength{lex: w.BM25, judged: true}
	if w.Fusion != nil && w.Fusion.SemanticSimilarity != nil {
		n.sim = *w.Fusion.SemanticSimilarity
	}
	if h.Hit.Related != nil {
		n.tags = len(h.Hit.Related.SharedTags)
	}
	return n
}
