package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

// TestFindByMeaning: with an embedder, find and brief rank by meaning by
// default (hybrid), say so in mode, explain it in why_ranked.fusion; mode
// lexical does not find the item; a failing endpoint is a warning.
func TestFindByMeaning(t *testing.T) {
	ctx := context.Background()
	srv := httptest.NewServer(&embedfake.Server{})
	defer srv.Close()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, d := range []struct{ url, text string }{
		{"https://m.test/1", "Acetylcysteine lowers oxidative stress."},
		{"https://m.test/2", "Rye bread needs a sour starter."},
	} {
		text := d.text
		rec := &record.Record{URL: d.url, CanonicalURL: d.url, ID: record.ItemID(d.url), SourceType: record.SourceArticle, Title: "T",
			Text: &text, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 5, Embedding: embed.Encode(embedfake.Vector("hash-64", text))}},
			Embed: &record.EmbedInfo{Model: "hash-64", Dimensions: 64, Chunks: 1}}
		if _, err := st.Index(ctx, rec, store.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	call := func(e *embed.Client, tool string, args map[string]any) (FindOutput, string) {
		t.Helper()
		ct, stt := sdk.NewInMemoryTransports()
		ss, err := New(ledger.New(st), Options{Embedder: e}).SDK().Connect(ctx, stt, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.Close()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out FindOutput
		json.Unmarshal(raw, &out)
		text := ""
		for _, c := range res.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				text += tc.Text
			}
		}
		return out, string(raw) + text
	}
	ok := &embed.Client{URL: srv.URL + "/v1", Model: "hash-64", Attempts: 1}
	out, _ := call(ok, "find", map[string]any{"query": "NAC"})
	if out.Mode != "hybrid" || len(out.Items) == 0 || out.Items[0].URL != "https://m.test/1" {
		t.Fatalf("hybrid find: %+v", out)
	}
	if f := out.Items[0].WhyRanked.Fusion; f == nil || f.SemanticRank != 1 {
		t.Errorf("fusion = %+v", f)
	}
	out, _ = call(ok, "find", map[string]any{"query": "NAC", "mode": "lexical"})
	if len(out.Items) != 0 || out.Mode != "" {
		t.Errorf("lexical find: %+v", out)
	}
	_, raw := call(ok, "brief", map[string]any{"query": "NAC"})
	if want := "https://m.test/1"; !strings.Contains(raw, want) {
		t.Errorf("brief: %s, want %s", raw, want)
	}
	bad := &embed.Client{URL: srv.URL + "/500/v1", Model: "hash-64", Attempts: 1}
	out, raw = call(bad, "find", map[string]any{"query": "stress"})
	if len(out.Items) != 1 || len(out.Warnings) != 1 || !strings.Contains(raw, "warning: embeddings endpoint: upstream") {
		t.Errorf("failing endpoint: %+v\n%s", out, raw)
	}
}
