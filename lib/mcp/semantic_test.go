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
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
)

// TestFindByMeaning: with an embedder, find and brief rank by meaning by
// default (hybrid), say so in mode, explain it in why_ranked.fusion; mode
// lexical does not find the item; a failing endpoint is a warning.
// semanticLedger is a store of two items with vectors of the fake's
// hash-64 model ("Acetylcysteine ..." is found by "NAC" by meaning only),
// and the fake endpoint's URL.
func semanticLedger(t *testing.T) (*ledger.Ledger, string) {
	t.Helper()
	ctx := context.Background()
	srv := httptest.NewServer(&embedfake.Server{})
	t.Cleanup(srv.Close)
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledgertest.Index(t, st, "hash-64",
		ledgertest.Doc{URL: "https://m.test/1", Text: "Acetylcysteine lowers oxidative stress."},
		ledgertest.Doc{URL: "https://m.test/2", Text: "Rye bread needs a sour starter."})
	return st, srv.URL
}

// connectTest connects a client to a server over st with opt, in
// memory; both are closed when the test ends.
func connectTest(t testing.TB, st *ledger.Ledger, opt Options) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, stt := sdk.NewInMemoryTransports()
	ss, err := New(st, opt).SDK().Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callSemantic calls tool on a server over st with embedder e and
// returns its structured result as JSON, its text and whether it is an
// error.
func callSemantic(t *testing.T, st *ledger.Ledger, e *embed.Client, tool string, args map[string]any) (string, string, bool) {
	t.Helper()
	cs := connectTest(t, st, Options{Embedder: e})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	text := ""
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	return string(raw), text, res.IsError
}

func TestFindByMeaning(t *testing.T) {
	st, url := semanticLedger(t)
	call := func(e *embed.Client, tool string, args map[string]any) (FindOutput, string) {
		t.Helper()
		raw, text, isErr := callSemantic(t, st, e, tool, args)
		if isErr {
			t.Fatalf("%s: %s", tool, text)
		}
		var out FindOutput
		json.Unmarshal([]byte(raw), &out)
		return out, raw + text
	}
	ok := &embed.Client{URL: url + "/v1", Model: "hash-64", Attempts: 1}
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
	bad := &embed.Client{URL: url + "/500/v1", Model: "hash-64", Attempts: 1}
	out, raw = call(bad, "find", map[string]any{"query": "stress"})
	if len(out.Items) != 1 || len(out.Warnings) != 1 || !strings.Contains(raw, "warning: embeddings endpoint: upstream") {
		t.Errorf("failing endpoint: %+v\n%s", out, raw)
	}
}

// TestRankingOfBriefRelatedPacks: the brief and related tools report
// mode and warnings in their structured result as find does; pack_save
// keeps its mode and semantic_weight, pack_refresh ranks with them and
// says when it could not.
func TestRankingOfBriefRelatedPacks(t *testing.T) {
	st, url := semanticLedger(t)
	ok := &embed.Client{URL: url + "/v1", Model: "hash-64", Attempts: 1}
	bad := &embed.Client{URL: url + "/500/v1", Model: "hash-64", Attempts: 1}
	call := func(e *embed.Client, tool string, args map[string]any, out any) string {
		t.Helper()
		raw, text, isErr := callSemantic(t, st, e, tool, args)
		if isErr {
			t.Fatalf("%s: %s", tool, text)
		}
		if err := json.Unmarshal([]byte(raw), out); err != nil {
			t.Fatal(err)
		}
		return raw + text
	}

	// brief: the mode and the warnings, structured
	var b BriefOutput
	call(ok, "brief", map[string]any{"query": "NAC"}, &b)
	if b.Mode != "hybrid" || b.Warnings != nil || len(b.Items) == 0 || b.Items[0].URL != "https://m.test/1" {
		t.Errorf("hybrid brief: mode %q warnings %q pack %+v", b.Mode, b.Warnings, b.Pack)
	}
	b = BriefOutput{}
	raw := call(bad, "brief", map[string]any{"query": "stress"}, &b)
	if b.Mode != "" || len(b.Warnings) != 1 || !strings.HasPrefix(b.Warnings[0], "embeddings endpoint: upstream") || !strings.Contains(raw, "warning: embeddings endpoint: upstream") {
		t.Errorf("brief with a failing endpoint: mode %q warnings %q\n%s", b.Mode, b.Warnings, raw)
	}
	b = BriefOutput{}
	raw = call(ok, "brief", map[string]any{"query": "stress", "mode": "lexical"}, &b)
	if strings.Contains(raw, `"mode"`) || strings.Contains(raw, `"warnings"`) {
		t.Errorf("lexical brief says something of its ranking: %s", raw)
	}

	// related: the item's own vectors, hybrid
	var r FindOutput
	call(ok, "related", map[string]any{"item": "https://m.test/1"}, &r)
	if r.Mode != "hybrid" || r.Warnings != nil {
		t.Errorf("related: mode %q warnings %q", r.Mode, r.Warnings)
	}

	// pack_save keeps the ranking; pack_refresh uses it, and falls back
	var p PackOutput
	call(ok, "pack_save", map[string]any{"name": "nac", "query": "NAC", "mode": "hybrid", "semantic_weight": 0.7, "max_items": 1, "max_pointers": 0}, &p)
	if p.Pack.Mode != "hybrid" || p.Pack.Options.Mode != "hybrid" || p.Pack.Options.SemanticWeight == nil || *p.Pack.Options.SemanticWeight != 0.7 ||
		len(p.Pack.Entered) != 1 || p.Pack.Entered[0].URL != "https://m.test/1" {
		t.Errorf("pack_save: %+v options %+v", p.Pack, p.Pack.Options)
	}
	p = PackOutput{}
	call(ok, "pack_refresh", map[string]any{"name": "nac"}, &p)
	if p.Pack.Mode != "hybrid" || len(p.Pack.Left) != 0 {
		t.Errorf("pack_refresh: mode %q left %v", p.Pack.Mode, p.Pack.Left)
	}
	p = PackOutput{}
	raw = call(bad, "pack_refresh", map[string]any{"name": "nac"}, &p)
	if p.Pack.Mode != "lexical" || len(p.Pack.Warnings) != 1 || len(p.Pack.Left) != 1 || !strings.Contains(raw, "warning: embeddings endpoint: upstream") {
		t.Errorf("pack_refresh with a failing endpoint: mode %q warnings %q left %v\n%s", p.Pack.Mode, p.Pack.Warnings, p.Pack.Left, raw)
	}
	p = PackOutput{}
	raw = call(ok, "pack_refresh", map[string]any{"name": "nac"}, &p)
	if !strings.Contains(raw, "; ranked hybrid\n") {
		t.Errorf("pack_refresh text does not say its ranking:\n%s", raw)
	}

	// bad ranking arguments: usage errors, nothing saved
	for _, args := range []map[string]any{
		{"name": "x", "query": "NAC", "mode": "fuzzy"},
		{"name": "x", "query": "NAC", "semantic_weight": 2},
	} {
		_, text, isErr := callSemantic(t, st, ok, "pack_save", args)
		if !isErr || !strings.Contains(text, "usage: ") {
			t.Errorf("pack_save %v: error %v %s", args, isErr, text)
		}
	}
	if _, text, isErr := callSemantic(t, st, ok, "pack_show", map[string]any{"name": "x"}); !isErr {
		t.Errorf("a pack was saved with bad arguments: %s", text)
	}
}
