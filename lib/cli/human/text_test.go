package human

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

// TestJoinChunks: the text rebuilt from overlapping chunks is the text
// that was chunked, each sentence once.
func TestJoinChunks(t *testing.T) {
	text := "One two three. Four five six.\n\nSeven eight nine. Ten eleven twelve. Thirteen.\n\nFourteen fifteen."
	chunks := chunk.Split([]chunk.Piece{{Text: "One two three. Four five six."}, {Text: "Seven eight nine. Ten eleven twelve. Thirteen."}, {Text: "Fourteen fifteen."}},
		chunk.Options{TargetTokens: 8, MaxTokens: 10, OverlapTokens: 5})
	if len(chunks) < 3 {
		t.Fatalf("want several chunks, got %d", len(chunks))
	}
	if diff := cmp.Diff(text, JoinChunks(chunks)); diff != "" {
		t.Errorf("JoinChunks (-want +got):\n%s", diff)
	}
	// chunks out of order, and two that do not overlap
	got := JoinChunks([]record.Chunk{{Index: 1, Text: "Page two."}, {Index: 0, Text: "Page one ends."}})
	if diff := cmp.Diff("Page one ends.\n\nPage two.", got); diff != "" {
		t.Errorf("JoinChunks (-want +got):\n%s", diff)
	}
	// a prefix that ends inside a word is no overlap
	got = JoinChunks([]record.Chunk{{Index: 0, Text: "a cat"}, {Index: 1, Text: "cathedral"}})
	if diff := cmp.Diff("a cat\n\ncathedral", got); diff != "" {
		t.Errorf("JoinChunks (-want +got):\n%s", diff)
	}
}
