package brief

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

func conf(f float64) *float64 { return &f }

func testItems(n int) []Item {
	var items []Item
	for i := 0; i < n; i++ {
		items = append(items, Item{
			Rank: i + 1, ID: fmt.Sprintf("ll_%016d", i), URL: fmt.Sprintf("https://example.com/%d", i), Title: fmt.Sprintf("Item %d about retrieval", i),
			SourceType: "article", Score: float64(10 - i),
			WhyRanked:  &record.WhyRanked{BM25: float64(10 - i), RankingScore: float64(10 - i), MatchedFields: []string{"body"}, MatchedTerms: []string{"retrieval"}},
			Highlights: []Evidence{{Text: "a human highlight that matters", Actor: "human", Pinned: true}, {Text: "a weak agent guess about the topic", Actor: "agent:r", Confidence: conf(0.3)}},
			Lowlights:  []Evidence{{Text: "this part is wrong", Actor: "human"}},
			Snippets:   []record.Snippet{{ChunkIndex: 0, Text: strings.Repeat("snippet words ", 12)}, {ChunkIndex: 3, Text: strings.Repeat("more snippet text ", 12)}},
		})
	}
	return items
}

func dropped(p *Pack) map[string]int {
	m := map[string]int{}
	for _, d := range p.Dropped {
		m[d.What] = d.Count
	}
	return m
}

func TestBudgetExactAndDropOrder(t *testing.T) {
	full, _, err := Build(testItems(5), Options{Query: "retrieval", MaxTokens: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Dropped) != 0 || len(full.Items) != 5 {
		t.Fatalf("unbounded pack dropped %v", full.Dropped)
	}
	for _, format := range []string{FormatJSON, FormatMD} {
		prev := map[string]int{}
		for _, max := range []int{full.Tokens - 1, full.Tokens * 3 / 4, full.Tokens / 2, full.Tokens / 4, 250} {
			p, text, err := Build(testItems(5), Options{Query: "retrieval", MaxTokens: max, Format: format})
			if err != nil {
				t.Fatalf("%s max %d: %v", format, max, err)
			}
			n := chunk.CountTokens(text)
			if n > max {
				t.Errorf("%s max %d: %d tokens", format, max, n)
			}
			if format == FormatJSON {
				var back Pack
				if err := json.Unmarshal([]byte(text), &back); err != nil {
					t.Fatal(err)
				}
				if back.Tokens != n {
					t.Errorf("json pack says %d tokens, counted %d", back.Tokens, n)
				}
			}
			d := dropped(p)
			// Lower-value kinds are dropped completely before higher ones start.
			if d["lowlights"] > 0 && d["snippets"] != 10 {
				t.Errorf("%s max %d: lowlights dropped before all snippets: %v", format, max, d)
			}
			if d["low_confidence_highlights"] > 0 && d["lowlights"] != 5 {
				t.Errorf("%s max %d: weak highlights dropped before lowlights: %v", format, max, d)
			}
			if d["items"] > 0 && d["low_confidence_highlights"] != 5 {
				t.Errorf("%s max %d: items dropped before weak highlights: %v", format, max, d)
			}
			for k, v := range prev {
				if d[k] < v {
					t.Errorf("%s max %d: smaller budget dropped less %s", format, max, k)
				}
			}
			prev = d
			if d["items"] > 0 && p.Items[len(p.Items)-1].Rank != 5-d["items"] {
				t.Errorf("%s max %d: the lowest items should go first, kept %+v", format, max, p.Items)
			}
			if d["snippets"] > 0 && d["snippets"] <= 8 {
				// snippets of the lowest-ranked items go first
				if len(p.Items[0].Snippets) != 2 {
					t.Errorf("%s max %d: top item lost snippets before lower ones", format, max)
				}
			}
		}
	}
	if _, _, err := Build(testItems(1), Options{MaxTokens: 5}); !errors.Is(err, ErrBudget) {
		t.Errorf("tiny budget: %v", err)
	}
	// an empty pack fits but no item does: a budget error, not an empty
	// pack that reads as "no evidence" (issue 28)
	empty, _, err := Build(nil, Options{MaxTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, max := range []int{empty.Tokens + 2, empty.Tokens + 30} {
		_, _, err = Build(testItems(3), Options{MaxTokens: max})
		if !errors.Is(err, ErrBudget) || !strings.Contains(err.Error(), "best item alone") {
			t.Errorf("budget %d (the empty pack's %d): %v, want the best item's size", max, empty.Tokens, err)
		}
	}
}

func TestMaxItemsAndFromRecord(t *testing.T) {
	rec := &record.Record{ID: "ll_1", CanonicalURL: "https://example.com/x", Title: "X", Hit: &record.Hit{
		Rank: 1, Score: 2, Highlights: []record.Annotation{{Type: "highlight", Text: "h", Actor: "human"}},
		Artifact: &record.Artifact{Summary: "sum", KeyClaims: []string{"c1"}},
		Snippets: []record.Snippet{{Text: "s", URL: "https://youtu.be/x?t=3s"}},
	}}
	it := FromRecord(rec)
	want := Item{Rank: 1, ID: "ll_1", URL: "https://example.com/x", Title: "X", Score: 2, Summary: "sum", KeyClaims: []string{"c1"},
		Highlights: []Evidence{{Text: "h", Actor: "human"}}, Snippets: []record.Snippet{{Text: "s", URL: "https://youtu.be/x?t=3s"}}}
	if diff := cmp.Diff(want, it); diff != "" {
		t.Errorf("FromRecord (-want +got):\n%s", diff)
	}
	p, _, err := Build(testItems(30), Options{MaxTokens: 100000, MaxItems: 3})
	if err != nil || len(p.Items) != 3 {
		t.Fatalf("max items: %v %d", err, len(p.Items))
	}
}

func TestMarkdown(t *testing.T) {
	items := testItems(1)
	items[0].Summary = "A summary."
	items[0].KeyClaims = []string{"Claim one"}
	_, text, err := Build(items, Options{Query: "retrieval", MaxTokens: 5000, Format: FormatMD})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"# Evidence: retrieval\n",
		"## 1. Item 0 about retrieval\nhttps://example.com/0 · article\n",
		"Why: score 10 = bm25 10 + pinned 0 - low-confidence 0; fields: body; terms: retrieval\n",
		"Summary: A summary.\nKey claims:\n- Claim one\n",
		"Highlights:\n- \"a human highlight that matters\" (human, pinned)\n- \"a weak agent guess about the topic\" (agent:r, confidence 0.3)\n",
		"Lowlights (flagged as weak or wrong):\n- \"this part is wrong\" (human)\n",
		"Snippets:\n- \"snippet words",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("markdown lacks %q:\n%s", s, text)
		}
	}
	_, text, _ = Build(testItems(3), Options{MaxTokens: 300, Format: FormatMD})
	if !strings.Contains(text, "Left out to fit 300 tokens: ") {
		t.Errorf("markdown does not say what was dropped:\n%s", text)
	}
}

func TestCopiesSeen(t *testing.T) {
	recs := []*record.Record{
		{ID: "a", Copies: []record.Copy{{ID: "b"}, {ID: "c"}}}, // a group hit
		{ID: "b"}, // a copy named by a
		{ID: "d"}, // another text
		{ID: "e", Copies: []record.Copy{{ID: "a"}}}, // --all-copies: names a
		{ID: "f", Index: &record.IndexResult{DuplicateOf: "d"}},
		{ID: "g", Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`{"duplicate_of":"f"}`)}}, // a copy of a copy
		{ID: "h", Checksum: "sha256:1"},
		{ID: "i", Checksum: "sha256:1"},
		{ID: "j", Checksum: "sha256:2", Extra: map[string]json.RawMessage{"ingest": json.RawMessage(`"odd"`)}},
		{ID: "d"}, // the same item twice
	}
	var c Copies
	var kept []string
	for _, r := range recs {
		if !c.Seen(r) {
			kept = append(kept, r.ID)
		}
	}
	if diff := cmp.Diff([]string{"a", "d", "h", "j"}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
}
