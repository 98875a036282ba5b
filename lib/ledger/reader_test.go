package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

func TestParagraphs(t *testing.T) {
	tests := []struct {
		name   string
		chunks []record.Chunk
		want   []string
	}{
		{"one chunk, two paragraphs", []record.Chunk{{Text: "One. Two.\n\nThree."}}, []string{"One. Two.", "Three."}},
		{"overlap inside a paragraph", []record.Chunk{{Text: "A b. C d. E f."}, {Index: 1, Text: "E f. G h."}}, []string{"A b. C d. E f. G h."}},
		{"overlap then a new paragraph", []record.Chunk{{Text: "A b. C d."}, {Index: 1, Text: "C d.\n\nNext one."}}, []string{"A b. C d.", "Next one."}},
		{"no overlap", []record.Chunk{{Text: "First."}, {Index: 1, Text: "Second."}}, []string{"First.", "Second."}},
		{"pages never join", []record.Chunk{{Text: "Same.", Page: 1}, {Index: 1, Text: "Same.", Page: 2}}, []string{"Same.", "Same."}},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range Paragraphs(tt.chunks) {
			got = append(got, p.Text)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, d)
		}
	}
}

// TestParagraphsRoundTrip: text the real chunker split with overlap comes
// back as its paragraphs.
func TestParagraphsRoundTrip(t *testing.T) {
	var pieces []chunk.Piece
	var want []string
	for i := 0; i < 40; i++ {
		p := ""
		for j := 0; j < 6; j++ {
			p += "Paragraph " + string(rune('a'+i%26)) + " sentence number " + string(rune('0'+j)) + " goes on for a few words more. "
		}
		p = p[:len(p)-1]
		pieces = append(pieces, chunk.Piece{Text: p})
		want = append(want, p)
	}
	chunks := chunk.Split(pieces, chunk.Options{TargetTokens: 120, OverlapTokens: 30})
	if len(chunks) < 5 {
		t.Fatalf("only %d chunks: the test does not exercise overlap", len(chunks))
	}
	var got []string
	for _, p := range Paragraphs(chunks) {
		got = append(got, p.Text)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}
