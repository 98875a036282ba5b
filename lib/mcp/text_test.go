package mcp

import (
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/brief"
)

// A brief's text form writes the query as the agent wrote it and names
// the ranks the items skip (an entry that became a pointer).
func TestBriefTextQueryAndPointers(t *testing.T) {
	p := &brief.Pack{
		Query:     "How much did South Dakota's \"Meth. We're on it.\" campaign cost?\x07",
		MaxTokens: 2000, Tokens: 900,
		Items: []brief.Item{
			{Rank: 1, ID: "ll_0000000000000001", URL: "https://example.com/1", Title: "One", FetchedAt: "2026-01-01T00:00:00Z"},
			{Rank: 2, ID: "ll_0000000000000002", URL: "https://example.com/2", Title: "Two", FetchedAt: "2026-01-01T00:00:00Z"},
			{Rank: 4, ID: "ll_0000000000000004", URL: "https://example.com/4", Title: "Four", FetchedAt: "2026-01-01T00:00:00Z"},
		},
		Pointers: []brief.Pointer{{Rank: 3, URL: "https://example.com/3", Title: "Three"}},
	}
	text := briefText(p)
	first := strings.SplitN(text, "\n", 2)[0]
	want := `evidence for "How much did South Dakota's "Meth. We're on it." campaign cost?": 3 items, 900 of 2000 tokens`
	if first != want {
		t.Errorf("header\n got %s\nwant %s", first, want)
	}
	if !strings.Contains(text, "\n3. Three <https://example.com/3>\n") {
		t.Errorf("the pointer of rank 3 is not in the text form:\n%s", text)
	}
}
