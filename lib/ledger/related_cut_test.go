package ledger

import (
	"slices"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// TestCutRelated: the weak-neighbour rule on hits as the store gives
// them: by text match against the best neighbour's, a shared tag keeps a
// neighbour whatever its text match, a semantic similarity at half the
// best's keeps one the words did not find, and a cut of 0 keeps all.
func TestCutRelated(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	hit := func(id string, bm25 float64, tags []string, sim *float64) *record.Record {
		w := &record.WhyRanked{BM25: bm25}
		if sim != nil {
			w.Fusion = &record.Fusion{Mode: "hybrid", SemanticSimilarity: sim}
		}
		return &record.Record{ID: id, Hit: &record.Hit{WhyRanked: w, Related: &record.RelatedWhy{To: "x", SharedTags: tags}}}
	}
	ids := func(hs []*record.Record) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		hits []*record.Record
		cut  float64
		want []string
	}{
		{"lexical", []*record.Record{hit("a", 20, nil, nil), hit("b", 6, nil, nil), hit("c", 5.9, nil, nil), hit("d", 0.1, nil, nil)}, 0.3, []string{"a", "b"}},
		{"a shared tag keeps a weak match", []*record.Record{hit("a", 20, nil, nil), hit("b", 0, []string{"baking"}, nil), hit("c", 1, nil, nil)}, 0.3, []string{"a", "b"}},
		{"found by meaning", []*record.Record{hit("a", 20, nil, f(0.8)), hit("b", 0, nil, f(0.41)), hit("c", 0, nil, f(0.39)), hit("d", 7, nil, nil)}, 0.3, []string{"a", "b", "d"}},
		{"semantic only", []*record.Record{hit("a", 0, nil, f(0.9)), hit("b", 0, nil, f(0.5)), hit("c", 0, nil, f(0.2))}, 0.3, []string{"a", "b"}},
		{"every match", []*record.Record{hit("a", 20, nil, nil), hit("d", 0.1, nil, nil)}, 0, []string{"a", "d"}},
		{"no ranking to judge by", []*record.Record{hit("a", 20, nil, nil), {ID: "e", Hit: &record.Hit{Score: 0.01}}}, 0.3, []string{"a", "e"}},
	} {
		if got := ids(cutRelated(tc.hits, tc.cut)); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
