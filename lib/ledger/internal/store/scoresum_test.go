package store

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// TestRankingScoreIsSumOfParts: a hit's why_ranked.ranking_score is
// exactly bm25 + pinned_boost − low_confidence_penalty as shown, so a
// reader adding the shown parts (jq, in float64) gets it, whatever the
// weights. Rounding the unrounded total instead differs from the sum of
// the rounded parts in the last bit for some scores (it did with the
// title weight 2.5 in e2e find_search).
func TestRankingScoreIsSumOfParts(t *testing.T) {
	s := openTest(t)
	addFiller(t, s, 30)
	words := []string{"solar", "panel", "energy", "grid", "battery", "storage", "wind", "turbine"}
	var docs []doc
	for i := range 40 {
		var b strings.Builder
		for j := 0; j <= i%7; j++ {
			fmt.Fprintf(&b, "%s %s notes %d. ", words[(i+j)%len(words)], words[(i*3+j)%len(words)], j)
		}
		d := doc{url: fmt.Sprintf("https://t.test/p%d", i), title: words[i%len(words)] + " report " + fmt.Sprint(i), chunks: []string{b.String()}}
		switch i % 3 {
		case 0:
			d.anns = []record.Annotation{{Type: "highlight", Text: "solar energy " + fmt.Sprint(i), Actor: "human", Pinned: true}}
		case 1:
			c := 0.2
			d.anns = []record.Annotation{
				{Type: "highlight", Text: fmt.Sprintf("%s %s notes 0", words[i%len(words)], words[(i*3)%len(words)]), Actor: "agent:t", Confidence: &c},
				{Type: "note", Text: "grid " + fmt.Sprint(i), Actor: "human"},
				{Type: "note", Text: "wind " + fmt.Sprint(i), Actor: "human"},
			}
		}
		docs = append(docs, d)
	}
	addDocs(t, s, docs...)
	n := 0
	for _, w := range []Weights{DefaultWeights, {Title: 2.5, Body: 1, Annotations: 2, PinnedBoost: 2, LowConfidencePenalty: 2, LowConfidenceBelow: 0.5, Doc: 0.3}, {Title: 3.7, Body: 1.3, Annotations: 1.9, PinnedBoost: 1.1, LowConfidencePenalty: 0.7, LowConfidenceBelow: 0.5, Doc: 0.45}} {
		for _, q := range []string{"solar energy", "battery storage grid", "wind turbine report", "panel notes"} {
			res, err := s.Search(context.Background(), SearchOptions{Text: q, Weights: w, Limit: 50})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range res.Hits {
				y := h.Hit.WhyRanked
				if sum := y.BM25 + y.PinnedBoost - y.LowConfidencePenalty; y.RankingScore != sum {
					t.Errorf("%q %s: ranking_score %v, bm25 + pinned_boost - low_confidence_penalty %v (%v + %v - %v)", q, h.URL, y.RankingScore, sum, y.BM25, y.PinnedBoost, y.LowConfidencePenalty)
				}
				n++
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d hits checked", n)
	}
}
