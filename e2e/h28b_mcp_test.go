package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/mcp"
)

// TestMCPDefects: the defects of issue 28 an agent hit over MCP. brief's
// max_items is the pack's number of full items, with ll-brief's default;
// a page past the last result says so, not "try other words"; a budget
// no item fits in is the budget error, not "no evidence"; a word no item
// holds is said in next.
func TestMCPDefects(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	var docs strings.Builder
	for i := range 12 {
		fmt.Fprintf(&docs, `{"url":"https://t.test/f%d","title":"Filler %d","text":"Onions, leeks and beans grow in row %d of the garden, in the long sun of the late summer."}`+"\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs.ndjson"), []byte(docs.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "sh", "-c", "ll-index --db "+db+" -q < docs.ndjson")
	cs := startMCP(t, dir, "--db", db, "--no-worker")
	schemas := outputSchemas(t, cs)

	for _, tc := range []struct {
		args map[string]any
		want int
	}{
		{map[string]any{"query": "beans"}, brief.DefaultMaxItems},
		{map[string]any{"query": "beans", "max_items": 2}, 2},
		{map[string]any{"query": "beans", "max_items": 9}, 9},
	} {
		var got mcp.BriefOutput
		call(t, cs, schemas, "brief", tc.args, &got)
		if len(got.Items) != tc.want {
			t.Errorf("brief %v: %d full items, want %d", tc.args, len(got.Items), tc.want)
		}
	}

	var page mcp.FindOutput
	call(t, cs, schemas, "find", map[string]any{"query": "beans", "offset": 40}, &page)
	if len(page.Items) != 0 || !strings.Contains(page.Next, "no more results") || strings.Contains(page.Next, "other") {
		t.Errorf("find past the end: %d items, next %q", len(page.Items), page.Next)
	}

	if got := callErr(t, cs, "brief", map[string]any{"query": "beans", "max_tokens": 40}); !strings.Contains(got, "budget") || !strings.Contains(got, "best item alone") {
		t.Errorf("brief with max_tokens 40: %q, want the budget error", got)
	}

	var some mcp.FindOutput
	call(t, cs, schemas, "find", map[string]any{"query": "quokka beans"}, &some)
	if len(some.Items) == 0 || !strings.Contains(some.Next, `no item contains "quokka"`) {
		t.Errorf("find quokka beans: %d items, next %q", len(some.Items), some.Next)
	}
	var none mcp.BriefOutput
	call(t, cs, schemas, "brief", map[string]any{"query": "quokka"}, &none)
	if !strings.HasPrefix(none.Next, `no item contains "quokka"`) {
		t.Errorf("brief quokka: next %q", none.Next)
	}
}

// TestMCPSaveWaitFailed: a save with wait whose ingest fails says why in
// its next step and its text (it said only "status says why").
func TestMCPSaveWaitFailed(t *testing.T) {
	srv := newTestServer()
	defer srv.Close()
	dir := t.TempDir()
	cs := startMCP(t, dir, "--db", filepath.Join(dir, "ll.db"))
	schemas := outputSchemas(t, cs)
	var saved mcp.SaveOutput
	res := call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/status/404", "wait": 20}, &saved)
	if saved.Item.Status != "failed" {
		t.Fatalf("save of a 404 with wait: status %q\n%s", saved.Item.Status, text(res))
	}
	if !strings.Contains(saved.Next, "404") || !strings.Contains(saved.Next, "ingest failed at fetch") || !strings.Contains(text(res), "next: ingest failed at fetch") {
		t.Errorf("save with wait, failed: next %q, want why (404)\n%s", saved.Next, text(res))
	}
}
