package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/tokens"
)

// toolListCost lists the tools over a real (in-memory) client session and
// counts cl100k_base tokens of the tools/list result as JSON: the whole
// list, and the output schemas' share.
func toolListCost(t *testing.T) (total, outputSchemas int) {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := connectTest(t, st, Options{})
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(lt)
	if err != nil {
		t.Fatal(err)
	}
	total = tokens.Count(string(raw))
	for _, tool := range lt.Tools {
		b, _ := json.Marshal(tool.OutputSchema)
		outputSchemas += tokens.Count(string(b))
	}
	return total, outputSchemas
}

// Tool list budgets, in cl100k_base tokens of the tools/list result as
// JSON: about 5% above the figures measured when they were set (5496
// in all, 2471 of it output schemas; 8628 and 4413 before descriptions
// were shortened and output schemas cut below their entries, 10344 and
// 6129 before the output schemas were compacted, docs/agents.md). A
// tool, an argument or a long description that takes the list past them
// must be paid for elsewhere.
const (
	toolListBudget     = 5800
	outputSchemaBudget = 2600
)

// TestToolListCost fails when the tool list grows past its budget.
func TestToolListCost(t *testing.T) {
	total, out := toolListCost(t)
	t.Logf("tools/list: %d tokens, output schemas %d", total, out)
	if total > toolListBudget {
		t.Errorf("tools/list costs %d tokens, over the budget of %d", total, toolListBudget)
	}
	if out > outputSchemaBudget {
		t.Errorf("output schemas cost %d tokens, over the budget of %d", out, outputSchemaBudget)
	}
}

// TestToolsValidate: the smaller tool list keeps validation. Every tool
// refuses an argument it does not know and a wrong type where it has a
// typed argument, with a message naming the argument; every output
// schema resolves, takes a real result, and refuses a result whose
// entries lack a key that is always there, have a wrong type or an
// unknown key; objects below the entries are typed object only
// (compactOutput).
func TestToolsValidate(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cs := connectTest(t, st, Options{})
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 16 {
		t.Errorf("%d tools, want 16", len(lt.Tools))
	}
	for _, tool := range lt.Tools {
		for _, args := range []map[string]any{{"no_such_argument": 1}, {"item": 7, "query": 7, "url": 7, "name": 7, "limit": "many"}} {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil {
				t.Fatalf("%s: %v", tool.Name, err)
			}
			msg := textOf(res)
			named := strings.Contains(msg, "no_such_argument")
			for k := range args {
				named = named || strings.Contains(msg, "/properties/"+k) || strings.Contains(msg, `"`+k+`"`)
			}
			if !res.IsError || !strings.Contains(msg, "validating") || !named {
				t.Errorf("%s %v: not refused by its input schema with the argument named: %s", tool.Name, args, msg)
			}
		}
		raw, _ := json.Marshal(tool.OutputSchema)
		var sch jsonschema.Schema
		if err := json.Unmarshal(raw, &sch); err != nil {
			t.Fatalf("%s output schema: %v", tool.Name, err)
		}
		rs, err := sch.Resolve(nil)
		if err != nil {
			t.Fatalf("%s output schema: %v", tool.Name, err)
		}
		if strings.Count(string(raw), `"description"`) > 1 {
			t.Errorf("%s output schema keeps property descriptions: %s", tool.Name, raw)
		}
		if tool.Name != "find" && tool.Name != "related" && tool.Name != "brief" {
			continue
		}
		item := func() map[string]any {
			return map[string]any{"rank": 1, "id": "ll_0000000000000001", "url": "https://a.test/", "score": 1.0,
				"highlights": []any{map[string]any{"text": "a claim", "actor": "human"}},
				"passages":   []any{map[string]any{"text": "A sentence.", "chunk_index": 0, "start": 0, "end": 11}},
				"why_ranked": map[string]any{"bm25": 1.0, "pinned_boost": 0.0, "low_confidence_penalty": 0.0, "ranking_score": 1.0}}
		}
		result := func(it map[string]any) map[string]any {
			r := map[string]any{"items": []any{it}}
			if tool.Name == "brief" {
				r["tokens"], r["max_tokens"] = 100, 2000
			}
			return r
		}
		if err := rs.Validate(result(item())); err != nil {
			t.Errorf("%s: a good result refused: %v", tool.Name, err)
		}
		bad := map[string]func(map[string]any){
			"no url":                   func(it map[string]any) { delete(it, "url") },
			"score a string":           func(it map[string]any) { it["score"] = "high" },
			"unknown key":              func(it map[string]any) { it["no_such_key"] = 1 },
			"highlights not a list":    func(it map[string]any) { it["highlights"] = "a claim" },
			"why_ranked not an object": func(it map[string]any) { it["why_ranked"] = 3 },
		}
		for what, change := range bad {
			it := item()
			change(it)
			if err := rs.Validate(result(it)); err == nil {
				t.Errorf("%s: a result with an item of %s passes", tool.Name, what)
			}
		}
		if err := rs.Validate(map[string]any{"tokens": 1}); err == nil {
			t.Errorf("%s: a result without items passes", tool.Name)
		}
	}
	// a real result still validates (the SDK checks it before sending)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"query": "nothing"}})
	if err != nil || res.IsError {
		t.Fatalf("find: %v %s", err, textOf(res))
	}
}

func textOf(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestResultForms: a result carries its content once in each form: one
// text block, the compact text form (what a host puts in the model's
// context), which is not the structured JSON again and costs fewer
// tokens than it; the brief's tokens figure is the pack's JSON, which
// bounds its text form too.
func TestResultForms(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for i := 0; i < 8; i++ {
		url := fmt.Sprintf("https://forms.test/%d", i)
		text := fmt.Sprintf("Post %d. Agents keep a memory of links. Ranking finds the source; the brief gives its sentences whole. Budgets are counted in tokens. Other words %d follow here.", i, i)
		rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle,
			Title: fmt.Sprintf("Memory post %d", i), Text: &text, Checksum: fmt.Sprint("sha256:", i),
			Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 40}}}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cs := connectTest(t, st, Options{})
	for _, tool := range []string{"find", "brief"} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"query": "memory ranking budget"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, textOf(res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		text := textOf(res)
		nt, nj := tokens.Count(text), tokens.Count(string(raw))
		t.Logf("%s: text form %d tokens, structured JSON %d", tool, nt, nj)
		if len(res.Content) != 1 || strings.Contains(text, string(raw)) || strings.HasPrefix(strings.TrimSpace(text), "{") {
			t.Errorf("%s: content is not one text block in the compact form: %d blocks, %q", tool, len(res.Content), text)
		}
		if nt >= nj {
			t.Errorf("%s: text form %d tokens, not under the JSON's %d", tool, nt, nj)
		}
		if tool == "brief" {
			var p struct {
				Tokens    int `json:"tokens"`
				MaxTokens int `json:"max_tokens"`
			}
			json.Unmarshal(raw, &p)
			if p.Tokens == 0 || nt > p.MaxTokens {
				t.Errorf("brief: tokens %d, text form %d over max_tokens %d", p.Tokens, nt, p.MaxTokens)
			}
			t.Logf("brief: pack tokens %d", p.Tokens)
			// the text form carries the evidence: every passage, with its locator
			if !strings.Contains(text, "passage (chunk 0, 0-") || !strings.Contains(text, "Ranking finds the source; the brief gives its sentences whole.") {
				t.Errorf("brief: the text form leaves out the passages:\n%s", text)
			}
		}
	}
}
