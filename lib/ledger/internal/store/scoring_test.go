package store

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The arithmetic of ranking, without a database.

// TestFusedScore: weighted reciprocal rank fusion as docs/retrieval.md
// writes it: (1-w)/(k+lexical rank) + w/(k+semantic rank) + the
// adjustment in fused units; a side that did not find the item adds
// nothing.
func TestFusedScore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		ws                   float64
		lex, sem             int
		boost, penalty, want float64
	}{
		{"first on both, equal weights", 0.5, 1, 1, 0, 0, 0.5/61 + 0.5/61},
		{"lexical only", 0.5, 3, 0, 0, 0, 0.5 / 63},
		{"semantic only", 0.5, 0, 2, 0, 0, 0.5 / 62},
		{"semantic mode (w 1): the lexical rank adds nothing", 1, 1, 5, 0, 0, 1.0 / 65},
		{"lexical weight only (w 0)", 0, 4, 1, 0, 0, 1.0 / 64},
		{"pinned boost 2: 0.01 more", 0.5, 1, 0, 2, 0, 0.5/61 + 0.01},
		{"a penalty takes away", 0.5, 0, 1, 0, 1, 0.5/61 - 0.005},
		{"found by neither: the adjustment alone", 0.5, 0, 0, 2, 0.5, 0.0075},
	} {
		if got := fusedScore(tc.ws, tc.lex, tc.sem, tc.boost, tc.penalty); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%s: fusedScore = %v, want %v", tc.name, got, tc.want)
		}
	}
	// a better rank on either side never lowers the score
	if fusedScore(0.5, 1, 2, 0, 0) <= fusedScore(0.5, 2, 2, 0, 0) || fusedScore(0.5, 2, 1, 0, 0) <= fusedScore(0.5, 2, 2, 0, 0) {
		t.Error("a better rank did not raise the fused score")
	}
}

// TestLowConfidencePenalty: the penalty scales with the share of
// low-confidence agent annotations, and is 0 without any.
func TestLowConfidencePenalty(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		penalty    float64
		low, total int
		want       float64
	}{
		{0.5, 1, 2, 0.25},
		{0.5, 2, 2, 0.5},
		{0.3, 1, 3, 0.1},
		{1, 2, 3, 0.666667}, // rounded to 6 decimals
		{0.5, 0, 4, 0},
		{0.5, 1, 0, 0},
	} {
		if got := lowConfidencePenalty(tc.penalty, tc.low, tc.total); got != tc.want {
			t.Errorf("lowConfidencePenalty(%v, %d, %d) = %v, want %v", tc.penalty, tc.low, tc.total, got, tc.want)
		}
	}
}

// TestRound: scores are shown to 6 decimals.
func TestRound(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]float64{0.1234564: 0.123456, 0.1234565: 0.123457, -2.0000004: -2, 3: 3} {
		if got := round(in); got != want {
			t.Errorf("round(%v) = %v, want %v", in, got, want)
		}
	}
}

// TestSortItems: by score, then (equal scores) found by title or
// annotations first, then newest matching row, then id.
func TestSortItems(t *testing.T) {
	t.Parallel()
	mk := func(id string, score float64, named bool, rowids ...int64) *scoredItem {
		it := &scoredItem{id: id, score: score, named: named}
		for _, r := range rowids {
			it.rows = append(it.rows, &candidate{rowid: r})
		}
		return it
	}
	items := []*scoredItem{
		mk("e", 0, false, 5),
		mk("d", 0, false, 9, 2),
		mk("c", 0, true, 1),
		mk("b", 1.5, false, 1),
		mk("f", 0, false, 5),
		mk("a", 2, false),
	}
	sortItems(items)
	var got []string
	for _, it := range items {
		got = append(got, it.id)
	}
	if d := cmp.Diff([]string{"a", "b", "c", "d", "e", "f"}, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}
