package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// TestListAnnotations: the highlights across the ledger, filtered by
// actor, tag, confidence, review state and text, newest first, paged
// without repeats; and the counts by state.
func TestListAnnotations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 4; i++ {
		u := fmt.Sprintf("https://example.com/%d", i)
		rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle}
		if i%2 == 0 {
			rec.Tags = []string{"even"}
		}
		c := 0.2 + 0.2*float64(i)
		rec.Annotations = []record.Annotation{
			{Type: record.AnnHighlight, Text: fmt.Sprintf("Person mark %d", i), Actor: "human"},
			{Type: record.AnnHighlight, Text: fmt.Sprintf("agent mark %d", i), Actor: "agent:bot", Confidence: &c},
			{Type: record.AnnNote, Text: fmt.Sprintf("note %d", i), Actor: "human"},
		}
		if _, err := s.Save(ctx, rec, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	texts := func(f AnnotationFilter) []string {
		t.Helper()
		recs, err := s.ListAnnotations(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			if r.URL == "" || len(r.Annotations) != 1 {
				t.Fatalf("record %+v: want the item's url and one annotation", r)
			}
			out = append(out, r.Annotations[0].Text)
		}
		return out
	}
	rejected := texts(AnnotationFilter{Actor: "agent", Limit: 1})
	recs, _ := s.ListAnnotations(ctx, AnnotationFilter{Actor: "agent", Limit: 1})
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: recs[0].Annotations[0].ID, Decision: ReviewRejected}, "human"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		f    AnnotationFilter
		want []string
	}{
		{"people", AnnotationFilter{Actor: "human"}, []string{"Person mark 3", "Person mark 2", "Person mark 1", "Person mark 0"}},
		{"agents over 0.5", AnnotationFilter{Actor: "agent", MinConfidence: 0.5}, []string{"agent mark 3", "agent mark 2"}},
		{"tag even, text", AnnotationFilter{Tag: "even", Text: "PERSON"}, []string{"Person mark 2", "Person mark 0"}},
		{"notes", AnnotationFilter{Types: []string{record.AnnNote}, Limit: 2, Offset: 1}, []string{"note 2", "note 1"}},
		{"rejected", AnnotationFilter{Review: "rejected"}, rejected},
		{"unreviewed agents", AnnotationFilter{Actor: "agent", Review: "unreviewed"}, []string{"agent mark 2", "agent mark 1", "agent mark 0"}},
	} {
		if d := cmp.Diff(tc.want, texts(tc.f)); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
	p1, p2 := texts(AnnotationFilter{Limit: 5}), texts(AnnotationFilter{Limit: 5, Offset: 5})
	seen := map[string]bool{}
	for _, x := range append(p1, p2...) {
		if seen[x] {
			t.Errorf("paging repeats %q", x)
		}
		seen[x] = true
	}
	if len(seen) != 8 {
		t.Errorf("two pages hold %d highlights, want 8", len(seen))
	}
	counts, err := s.StateCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"saved": 4, "fetched": 0, "parsed": 0, "enriched": 0, "failed": 0, "archived": 0, "copies": 0}, counts); d != "" {
		t.Errorf("counts (-want +got)\n%s", d)
	}
}
