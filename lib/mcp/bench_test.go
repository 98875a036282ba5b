package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

var benchWords = strings.Fields("agent memory link source retrieval ranking snippet highlight budget token search index chunk store query evidence")

// BenchmarkTools measures what the server adds to a search: the same query
// through ledger.Find directly, and as a find (or brief) tool call from the
// SDK's client over an in-memory connection (JSON-RPC, schema validation,
// the result's token count for its cap, the text form). The store is
// small (500 items), so the search itself is cheap and the difference is
// the server's overhead; scripts/benchmcp times whole calls at 10k items.
func BenchmarkTools(b *testing.B) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < 500; i++ {
		url := fmt.Sprintf("https://bench.example/%d", i)
		var sb strings.Builder
		for w := 0; w < 80; w++ {
			sb.WriteString(benchWords[(i*7+w*w)%len(benchWords)] + " ")
		}
		text := sb.String()
		rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle,
			Title: fmt.Sprintf("Post %d about %s", i, benchWords[i%len(benchWords)]), Text: &text, Checksum: fmt.Sprint("sha256:", i),
			Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 80}}}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	cs := connectTest(b, st, Options{})
	query := "agent memory ranking"
	b.Run("ledger.Find", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.Find(ctx, ledger.FindOptions{Query: query}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, tool := range []string{"find", "brief"} {
		b.Run("call "+tool, func(b *testing.B) {
			for b.Loop() {
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"query": query}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
