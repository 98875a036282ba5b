package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/mcp"
)

// mcpEnv is the environment of the processes an MCP test starts: HOME and
// the data folder inside dir, so nothing outside it is touched.
func mcpEnv(dir string) []string {
	// nothing the servers fetch may leave loopback (docs/fetch.md)
	env := []string{"HOME=" + dir, "XDG_DATA_HOME=" + filepath.Join(dir, ".local", "share"), "NO_COLOR=1", "LINKLEDGER_LOOPBACK_ONLY=1"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// startMCP starts `linkledger mcp ARGS` (the test binary under that name,
// on the PATH testscript.Main set up) and connects the SDK's client to it
// over stdio.
func startMCP(t *testing.T, dir string, args ...string) *sdk.ClientSession {
	t.Helper()
	bin, err := exec.LookPath("linkledger")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = mcpEnv(dir)
	cmd.Dir = dir
	// its diagnostics go to a file, shown when the test fails: a server
	// still winding down after the test never holds the test's own output
	logf, err := os.CreateTemp(dir, "mcp-stderr-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	client := sdk.NewClient(&sdk.Implementation{Name: "e2e test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logf.Name()); err == nil && len(b) > 0 {
				t.Logf("linkledger mcp %s stderr:\n%s", strings.Join(args, " "), b)
			}
		}
	})
	return cs
}

// run runs one of the ll-* or linkledger commands as its own process.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath(name)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = mcpEnv(dir)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr)
	}
	return string(out)
}

// call calls a tool that must succeed, checks its structured result
// against the tool's output schema and decodes it into out.
func call(t *testing.T, cs *sdk.ClientSession, schemas map[string]*jsonschema.Resolved, name string, args map[string]any, out any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError {
		t.Fatalf("%s %v: tool error %s", name, args, text(res))
	}
	if text(res) == "" {
		t.Errorf("%s: no text form", name)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		t.Fatal(err)
	}
	if err := schemas[name].Validate(inst); err != nil {
		t.Errorf("%s: result does not match its output schema: %v\n%s", name, err, raw)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v\n%s", name, err, raw)
	}
	return res
}

// callErr calls a tool that must fail with a tool error and returns its
// text.
func callErr(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: a protocol error, want a tool error: %v", name, args, err)
	}
	if !res.IsError {
		t.Fatalf("%s %v: succeeded, want a tool error", name, args)
	}
	return text(res)
}

// unionTypes lists the "type" values of a JSON schema that are arrays
// (["null","number"]), with the path of each.
func unionTypes(raw []byte) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return []string{"not JSON"}
	}
	var out []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if _, isArr := sub.([]any); k == "type" && isArr {
					out = append(out, fmt.Sprintf("%s: %v", path, sub))
				}
				walk(path+"/"+k, sub)
			}
		case []any:
			for i, sub := range x {
				walk(fmt.Sprintf("%s/%d", path, i), sub)
			}
		}
	}
	walk("", v)
	return out
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestMCP starts the real linkledger binary as an MCP server, lists its
// tools and calls each one as an agent would.
func TestMCP(t *testing.T) {
	srv := newTestServer()
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	cs := startMCP(t, dir, "--db", db)
	ctx := context.Background()

	// the tools, their input schemas and output schemas
	wantProps := map[string][]string{
		"find":         {"all_matches", "archived", "limit", "mode", "offset", "query", "since", "tags", "type", "until"},
		"brief":        {"all_matches", "max_items", "max_tokens", "mode", "query", "since", "tags", "type", "until"},
		"save":         {"actor", "note", "tags", "url", "wait"},
		"annotate":     {"actor", "confidence", "item", "pinned", "text", "type"},
		"tag":          {"actor", "add", "item", "remove", "star"},
		"pin":          {"actor", "annotation_id", "item", "unpin"},
		"show":         {"item", "max_text_tokens", "text"},
		"status":       {"item"},
		"related":      {"item", "limit"},
		"cite":         {"actor", "item", "task"},
		"stats":        {"limit", "since", "until"},
		"pack_save":    {"actor", "max_items", "max_pointers", "max_tokens", "mode", "name", "pointer_words", "query", "replace", "semantic_weight", "tags", "type"},
		"pack_show":    {"name", "version"},
		"pack_refresh": {"actor", "name"},
		"pack_list":    nil,
		"overview":     {"max_tokens"},
	}
	wantRequired := map[string][]string{
		"brief": {"query"}, "save": {"url"}, "annotate": {"item", "text"}, "tag": {"item"},
		"pin": {"annotation_id", "item"}, "show": {"item"}, "related": {"item"},
		"cite": {"item", "task"}, "pack_save": {"name", "query"}, "pack_show": {"name"}, "pack_refresh": {"name"},
	}
	schemas := map[string]*jsonschema.Resolved{}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lt.Tools {
		var in struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		raw, _ := json.Marshal(tool.InputSchema)
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		var props []string
		for p, s := range in.Properties {
			props = append(props, p)
			if !strings.Contains(string(s), `"description"`) {
				t.Errorf("%s.%s has no description", tool.Name, p)
			}
			// a time's description names the spans ParseWhen takes
			if p == "since" {
				for _, form := range []string{"YYYY-MM-DD", "today", "yesterday", "12h", "30d", "2w", "3mo", "1y"} {
					if !strings.Contains(string(s), form) {
						t.Errorf("%s.since description does not name %s: %s", tool.Name, form, s)
					}
				}
			}
		}
		slices.Sort(props)
		slices.Sort(in.Required)
		if d := cmp.Diff(wantProps[tool.Name], props); d != "" {
			t.Errorf("%s input properties (-want +got):\n%s", tool.Name, d)
		}
		if d := cmp.Diff(wantRequired[tool.Name], in.Required); d != "" {
			t.Errorf("%s required (-want +got):\n%s", tool.Name, d)
		}
		if in.Type != "object" || len(tool.Description) < 80 {
			t.Errorf("%s: input type %q, description %q", tool.Name, in.Type, tool.Description)
		}
		// plain JSON types: a client that builds arguments from the
		// schema (the MCP Inspector's CLI) cannot pass a union
		for _, sch := range []any{tool.InputSchema, tool.OutputSchema} {
			raw, _ := json.Marshal(sch)
			if u := unionTypes(raw); len(u) > 0 {
				t.Errorf("%s: union types in a schema: %v", tool.Name, u)
			}
		}
		var out jsonschema.Schema
		raw, _ = json.Marshal(tool.OutputSchema)
		if err := json.Unmarshal(raw, &out); err != nil || tool.OutputSchema == nil {
			t.Fatalf("%s output schema: %v", tool.Name, err)
		}
		if schemas[tool.Name], err = out.Resolve(nil); err != nil {
			t.Fatalf("%s output schema: %v", tool.Name, err)
		}
	}
	if len(schemas) != len(wantProps) {
		t.Fatalf("tools %v, want %d", schemas, len(wantProps))
	}

	// save two pages of the local test server; the worker (another
	// process) fetches and indexes them; the server sees the result
	var saved mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html?utm_source=feed", "note": "marsupials that smile", "tags": []string{"animals"}}, &saved)
	id := saved.Item.ID
	if !strings.HasPrefix(id, "ll_") || saved.Item.CanonicalURL != srv.URL+"/quokka.html" || saved.Item.New == nil || !*saved.Item.New {
		t.Fatalf("save: %+v", saved.Item)
	}
	var saved2 mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/lighthouse.html", "tags": []string{"animals", "coast"}}, &saved2)
	run(t, dir, "linkledger", "worker", "--db", db, "-q")

	var found mcp.FindOutput
	call(t, cs, schemas, "find", map[string]any{"query": "quokkas island rangers"}, &found)
	if len(found.Items) == 0 || found.Items[0].ID != id || found.Items[0].Title != "The quokka's island" || found.Items[0].WhyRanked == nil || len(found.Items[0].Snippets) == 0 {
		t.Fatalf("find after the worker: %+v", found)
	}

	// since takes the spans the CLI takes: 2w and today include the items
	// just saved, a date to come excludes them
	for _, since := range []string{"2w", "today", "3mo", "1y"} {
		var recent mcp.FindOutput
		call(t, cs, schemas, "find", map[string]any{"query": "quokkas", "since": since}, &recent)
		if len(recent.Items) == 0 || recent.Items[0].ID != id {
			t.Errorf("find since %s: %+v", since, recent)
		}
	}
	var future mcp.FindOutput
	call(t, cs, schemas, "find", map[string]any{"query": "quokkas", "since": time.Now().AddDate(0, 0, 2).UTC().Format("2006-01-02")}, &future)
	if len(future.Items) != 0 {
		t.Errorf("find since the day after tomorrow: %+v", future)
	}

	// annotate (the actor is the client's name), pin, tag, show
	conf := 0.8
	var ann mcp.SaveOutput
	call(t, cs, schemas, "annotate", map[string]any{"item": srv.URL + "/quokka.html", "text": "can go long periods without drinking fresh water", "confidence": conf}, &ann)
	if ann.Item.ID != id || ann.Item.Save == nil || len(ann.Item.Save.AnnotationIDs) != 1 {
		t.Fatalf("annotate: %+v", ann.Item)
	}
	annID := ann.Item.Save.AnnotationIDs[0]
	var pinned, tagged mcp.SaveOutput
	call(t, cs, schemas, "pin", map[string]any{"item": id, "annotation_id": annID}, &pinned)
	call(t, cs, schemas, "tag", map[string]any{"item": id, "add": []string{"wildlife"}, "remove": []string{"animals"}}, &tagged)
	if d := cmp.Diff([]string{"wildlife"}, tagged.Item.Save.TagsAdded); d != "" || !slices.Equal(tagged.Item.Save.TagsRemoved, []string{"animals"}) {
		t.Errorf("tag: %+v %s", tagged.Item.Save, d)
	}
	var shown mcp.ShowOutput
	call(t, cs, schemas, "show", map[string]any{"item": id, "text": true, "max_text_tokens": 30}, &shown)
	seen := false
	for _, a := range shown.Item.Annotations {
		if a.ID == annID {
			if a.Actor != "agent:e2e-test" || !a.Pinned || a.Confidence == nil || *a.Confidence != conf {
				t.Errorf("show: annotation %+v, want by agent:e2e-test, pinned, confidence 0.8", a)
			}
			seen = true
		}
	}
	if !seen || len(shown.Item.Tagged) != 1 || shown.Item.Tagged[0].Tag != "wildlife" || shown.Item.Tagged[0].Actor != "agent:e2e-test" {
		t.Errorf("show: %+v", shown.Item)
	}
	if len(shown.Item.Chunks) == 0 && !shown.Truncated {
		t.Errorf("show --text with a 30-token budget: no chunks and not truncated")
	}
	tokens := 0
	for _, c := range shown.Item.Chunks {
		tokens += c.Tokens
	}
	if tokens > 30 {
		t.Errorf("show: %d text tokens over max_text_tokens 30", tokens)
	}

	// the query language reads as in ll-find: qualifiers, exclusions
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"has:highlights is:pinned", []string{id}},
		{"quokkas -rangers", nil},
		{`"go long periods" type:article`, []string{id}},
	} {
		var got mcp.FindOutput
		call(t, cs, schemas, "find", map[string]any{"query": tc.query}, &got)
		var ids []string
		for _, it := range got.Items {
			ids = append(ids, it.ID)
		}
		if d := cmp.Diff(tc.want, ids); d != "" {
			t.Errorf("find %q (-want +got):\n%s", tc.query, d)
		}
	}

	// brief within a budget; the pinned highlight is in the pack
	var pack brief.Pack
	call(t, cs, schemas, "brief", map[string]any{"query": "quokkas fresh water", "max_tokens": 600}, &pack)
	if len(pack.Items) == 0 || pack.Items[0].ID != id || pack.Tokens > 600 || pack.MaxTokens != 600 {
		t.Fatalf("brief: %+v", pack)
	}
	if res := call(t, cs, schemas, "brief", map[string]any{"query": "quokkas fresh water", "max_tokens": 600}, &mcp.BriefOutput{}); !strings.Contains(text(res), "next: show {item: \""+id+"\", text: true}") {
		t.Errorf("brief: no next step in\n%s", text(res))
	}
	if len(pack.Items[0].Highlights) == 0 || !pack.Items[0].Highlights[0].Pinned {
		t.Errorf("brief: highlights %+v, want the pinned one", pack.Items[0].Highlights)
	}

	// status of the ledger and of an item; related items
	var st mcp.StatusOutput
	call(t, cs, schemas, "status", map[string]any{}, &st)
	if st.Items != 2 || st.DB != db || st.Item != nil {
		t.Errorf("status: %+v", st)
	}
	call(t, cs, schemas, "status", map[string]any{"item": id}, &st)
	var ingest struct {
		Status string `json:"status"`
	}
	if st.Item == nil || json.Unmarshal(st.Item.Extra["ingest"], &ingest) != nil || ingest.Status != "parsed" {
		t.Errorf("status of the item: %+v", st.Item)
	}
	var rel mcp.FindOutput
	call(t, cs, schemas, "related", map[string]any{"item": saved2.Item.ID}, &rel)
	for _, it := range rel.Items {
		if it.ID == saved2.Item.ID {
			t.Errorf("related lists the item itself: %+v", rel)
		}
	}

	// cite an item in a task; stats count it
	var cited mcp.CiteOutput
	call(t, cs, schemas, "cite", map[string]any{"item": srv.URL + "/quokka.html?utm_source=x", "task": "answer about quokkas"}, &cited)
	if c := cited.Citation; c == nil || c.ItemID != id || c.Task != "answer about quokkas" || c.Actor != "agent:e2e-test" || c.ID < 1 || c.At == "" {
		t.Fatalf("cite: %+v", cited.Citation)
	}
	var stats mcp.StatsOutput
	call(t, cs, schemas, "stats", map[string]any{"since": "all"}, &stats)
	if u := stats.Stats; u == nil || u.Citations != 1 || u.Tasks != 1 || u.ItemsSaved != 2 || u.ItemsNeverUsed != 1 || u.ReuseGoal != 0.3 || len(u.MostReused) != 1 || u.MostReused[0].ItemID != id || u.Since != "" {
		t.Errorf("stats since all: %+v", stats.Stats)
	}
	call(t, cs, schemas, "stats", map[string]any{"until": "2000-01-01"}, &stats)
	if u := stats.Stats; u == nil || u.Citations != 0 || u.ItemsSaved != 0 || len(u.MostReused) != 0 {
		t.Errorf("stats until 2000: %+v", stats.Stats)
	}

	// memory packs: save, show, refresh, list
	var pk mcp.PackOutput
	call(t, cs, schemas, "pack_save", map[string]any{"name": "quokka-watch", "query": "quokkas fresh water", "max_tokens": 800, "max_pointers": 0}, &pk)
	var pb brief.Pack
	if p := pk.Pack; p == nil || p.Name != "quokka-watch" || p.Version != 1 || p.BuiltBy != "agent:e2e-test" || len(p.Entered) == 0 || json.Unmarshal(p.Brief, &pb) != nil {
		t.Fatalf("pack_save: %+v", pk.Pack)
	}
	if len(pb.Items) == 0 || pb.Items[0].ID != id || pb.MaxTokens != 800 || pb.Tokens > 800 || len(pb.Pointers) != 0 || pk.Truncated {
		t.Errorf("pack_save brief: %+v", pb)
	}
	call(t, cs, schemas, "pack_refresh", map[string]any{"name": "quokka-watch", "actor": "agent:refresher"}, &pk)
	if p := pk.Pack; p == nil || p.Version != 2 || p.BuiltBy != "agent:refresher" || len(p.Entered) != 0 || len(p.Left) != 0 || p.Options == nil || p.Options.MaxTokens != 800 {
		t.Errorf("pack_refresh: %+v", pk.Pack)
	}
	call(t, cs, schemas, "pack_show", map[string]any{"name": "quokka-watch", "version": 1}, &pk)
	if p := pk.Pack; p == nil || p.Version != 1 || len(p.Entered) == 0 || !strings.Contains(string(p.Brief), id) {
		t.Errorf("pack_show version 1: %+v", pk.Pack)
	}
	res := call(t, cs, schemas, "pack_show", map[string]any{"name": "quokka-watch"}, &pk)
	if pk.Pack == nil || pk.Pack.Version != 2 || !strings.Contains(text(res), "pack quokka-watch v2") || !strings.Contains(text(res), id) {
		t.Errorf("pack_show: %+v\n%s", pk.Pack, text(res))
	}
	var pl mcp.PackListOutput
	call(t, cs, schemas, "pack_list", map[string]any{}, &pl)
	if len(pl.Packs) != 1 || pl.Packs[0].Name != "quokka-watch" || pl.Packs[0].Version != 2 || len(pl.Packs[0].Brief) != 0 || pl.Truncated {
		t.Errorf("pack_list: %+v", pl)
	}

	// bad arguments are tool errors with the CLI's codes and messages; the
	// server goes on serving
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"find", map[string]any{"limit": 99}, "usage: limit 99: want 1..20"},
		{"find", map[string]any{"limit": "ten"}, "limit"},
		{"find", map[string]any{"since": "someday"}, "usage: since:"},
		{"show", map[string]any{"item": srv.URL + "/missing"}, `not_found: no item "` + srv.URL + `/missing" in ` + db},
		{"annotate", map[string]any{"item": id, "text": "x", "confidence": 2}, "usage: confidence 2: want a number from 0 to 1"},
		{"annotate", map[string]any{"item": id, "text": "x", "actor": "robot"}, `usage: actor "robot": want agent:<name>`},
		// an agent's quote must be in the source: refused, the closest passage as hint
		{"annotate", map[string]any{"item": id, "text": "quokkas drink sea water in summer"}, `quote_not_found: highlight "quokkas drink sea water in summer" is not in the text of item ` + id},
		{"annotate", map[string]any{"item": id, "text": "quokkas drink sea water in summer"}, "\nhint: the closest passage is \"Quokkas survive the dry summer by eating succulent plants and can go long periods without drinking fresh water.\""},
		{"save", map[string]any{"url": "not a url at all"}, `bad_input: url "not a url at all": not a URL; save takes an http or https URL`},
		{"save", map[string]any{"url": "ftp://example.com/x"}, "unsupported_scheme:"},
		{"pin", map[string]any{"item": id, "annotation_id": 9999}, "not_found:"},
		{"brief", map[string]any{"query": "quokka", "max_tokens": 5}, "budget:"},
		{"brief", map[string]any{}, "query"},
		{"related", map[string]any{"item": "ll_0000000000000000"}, `not_found: no item "ll_0000000000000000"`},
		{"cite", map[string]any{"item": id, "task": ""}, `usage: task: task name "": want 1 to 200 characters on one line`},
		{"cite", map[string]any{"item": "ll_0000000000000000", "task": "t"}, `not_found: no item "ll_0000000000000000"`},
		{"cite", map[string]any{"item": id}, "task"},
		{"stats", map[string]any{"since": "someday"}, "usage: since:"},
		{"stats", map[string]any{"limit": 99}, "usage: limit 99: want 1..20"},
		{"pack_save", map[string]any{"name": "quokka-watch", "query": "quokkas"}, "usage: pack \"quokka-watch\" exists\nhint: refresh it with pack_refresh"},
		{"pack_save", map[string]any{"name": "big", "query": "quokkas", "max_tokens": 9000}, "usage: max_tokens 9000: want 1..8000"},
		{"pack_save", map[string]any{"name": "x\ny", "query": "quokkas"}, `usage: name: pack name "x\ny"`},
		// the pack and brief rules of ledger.CheckPackOptions and
		// CheckBriefLimits, in the words the commands use (field names as
		// the tools spell them)
		{"pack_save", map[string]any{"name": "v", "query": "quokkas", "type": "video"}, `usage: type "video": want article, x, youtube, pdf or text`},
		{"pack_save", map[string]any{"name": "v", "query": "quokkas", "mode": "fuzzy"}, `usage: mode "fuzzy": want lexical, semantic or hybrid`},
		{"pack_save", map[string]any{"name": "v", "query": "quokkas", "semantic_weight": 2}, `usage: semantic_weight 2: want 0..1`},
		{"pack_save", map[string]any{"name": "v", "query": "quokkas", "max_items": 21}, `usage: max_items 21: want 1..20`},
		{"pack_save", map[string]any{"name": "v", "query": "quokkas", "pointer_words": -1}, `usage: pointer_words -1: want 0..`},
		{"brief", map[string]any{"query": "quokkas", "max_items": -1}, `usage: max_items -1: want 1..20`},
		{"brief", map[string]any{"query": "quokkas", "max_tokens": 9000}, `usage: max_tokens 9000: want 1..8000`},
		{"brief", map[string]any{"query": "quokkas", "mode": "fuzzy"}, `usage: mode "fuzzy": want lexical, semantic or hybrid`},
		{"find", map[string]any{"query": "quokkas", "type": "video"}, `usage: type "video": want article, x, youtube, pdf or text`},
		{"pack_show", map[string]any{"name": "nope"}, `not_found: no pack "nope"` + "\nhint: list the packs with the pack_list tool"},
		{"pack_show", map[string]any{"name": "quokka-watch", "version": 9}, `not_found: pack "quokka-watch" has no version 9`},
		{"pack_refresh", map[string]any{"name": "nope"}, `not_found: no pack "nope"`},
		{"pack_refresh", map[string]any{"name": "quokka-watch", "actor": "robot"}, `usage: actor "robot": want agent:<name>`},
		{"pack_list", map[string]any{"verbose": true}, "verbose"},
	} {
		if got := callErr(t, cs, tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: error %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}

	// concurrent calls on one session
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			name, args := "find", map[string]any{"query": "quokkas"}
			if i%4 == 3 {
				name, args = "brief", map[string]any{"query": "quokkas", "max_tokens": 400}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
			switch {
			case err != nil:
				errs <- err.Error()
			case res.IsError:
				errs <- text(res)
			case !strings.Contains(text(res), id):
				errs <- name + ": " + text(res)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent call: %s", e)
	}

	// a write by another process is seen by the next call
	run(t, dir, "ll-save", "--db", db, "-q", srv.URL+"/field-notes.md", "--note", "zebrafinch sightings log")
	call(t, cs, schemas, "find", map[string]any{"query": "zebrafinch"}, &found)
	if len(found.Items) != 1 || found.Items[0].URL != srv.URL+"/field-notes.md" {
		t.Errorf("find after ll-save in another process: %+v", found)
	}
}

// TestMCPLocked: a write waits --busy-timeout for another process's lock,
// then says so as a tool error; reads go on.
func TestMCPLocked(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	run(t, dir, "ll-save", "--db", db, "-q", "https://lock.test/a")
	cs := startMCP(t, dir, "--db", db, "--busy-timeout", "200ms")
	bin, err := exec.LookPath("ll-testlock")
	if err != nil {
		t.Fatal(err)
	}
	locked, release := filepath.Join(dir, "locked"), filepath.Join(dir, "release")
	lock := exec.Command(bin, db, locked, release)
	if err := lock.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.WriteFile(release, nil, 0o644)
		lock.Wait()
	}()
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(locked); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := callErr(t, cs, "save", map[string]any{"url": "https://lock.test/b"})
	if !strings.HasPrefix(got, "busy: ") || !strings.Contains(got, "database is locked by another process (gave up after 200ms") {
		t.Errorf("save under a lock: %q", got)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "find", Arguments: map[string]any{}})
	if err != nil || res.IsError || !strings.Contains(text(res), "lock.test/a") {
		t.Errorf("find under a lock: %v %v", err, res)
	}
}

// outputSchemas resolves every tool's output schema, for call.
func outputSchemas(t *testing.T, cs *sdk.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tool := range lt.Tools {
		var s jsonschema.Schema
		raw, _ := json.Marshal(tool.OutputSchema)
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if out[tool.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s output schema: %v", tool.Name, err)
		}
	}
	return out
}

// TestMCPBackgroundWorker: the server ingests what an agent saves while
// it serves. Save with wait answers once the page is parsed, with its
// title; find reads its text at once; a link saved without wait becomes
// readable a few seconds later; overview says what the ledger holds.
func TestMCPBackgroundWorker(t *testing.T) {
	srv := newTestServer()
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	cs := startMCP(t, dir, "--db", db)
	schemas := outputSchemas(t, cs)

	var saved mcp.SaveOutput
	res := call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html", "tags": []string{"animals"}, "wait": 20}, &saved)
	id := saved.Item.ID
	if saved.Item.Status != "parsed" || saved.Item.Title != "The quokka's island" {
		t.Fatalf("save with wait: %+v\n%s", saved.Item, text(res))
	}
	if want := `show {item: "` + id + `", text: true}`; !strings.Contains(saved.Next, want) || !strings.Contains(text(res), "next: "+saved.Next) {
		t.Errorf("save with wait: next %q, want %q (and in the text)", saved.Next, want)
	}
	var found mcp.FindOutput
	res = call(t, cs, schemas, "find", map[string]any{"query": "quokkas island rangers"}, &found)
	if len(found.Items) == 0 || found.Items[0].ID != id || len(found.Items[0].Snippets) == 0 || found.Items[0].Pending != "" {
		t.Fatalf("find after save with wait: %+v", found)
	}
	if !strings.Contains(found.Next, `show {item: "`+id+`", text: true}`) || !strings.Contains(text(res), "next: show") {
		t.Errorf("find: next %q\n%s", found.Next, text(res))
	}

	// no wait: the answer is at once, and the background worker ingests it
	var light mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/lighthouse.html", "tags": []string{"coast"}}, &light)
	if light.Item.Status != "saved" || !strings.Contains(light.Next, "background worker") {
		t.Errorf("save without wait: %+v, next %q", light.Item, light.Next)
	}
	var st mcp.StatusOutput
	deadline := time.Now().Add(30 * time.Second)
	for {
		call(t, cs, schemas, "status", map[string]any{"item": light.Item.ID}, &st)
		var ingest struct {
			Status string `json:"status"`
		}
		json.Unmarshal(st.Item.Extra["ingest"], &ingest)
		if ingest.Status == "parsed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lighthouse not ingested in the background after 30s: %s", st.Item.Extra["ingest"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st.Pending != 0 || !strings.Contains(st.Next, "show {item:") {
		t.Errorf("status after ingest: pending %d, next %q", st.Pending, st.Next)
	}

	// the map of the memory
	var ov mcp.OverviewOutput
	res = call(t, cs, schemas, "overview", map[string]any{}, &ov)
	o := ov.Overview
	if o == nil || o.Items != 2 || o.ByState["parsed"] != 2 || o.Pending != 0 || o.Tokens > 500 || o.MaxTokens != 500 {
		t.Fatalf("overview: %+v", o)
	}
	tags := map[string][]string{}
	for _, g := range o.Tags {
		tags[g.Name] = g.Words
	}
	if !slices.Contains(tags["animals"], "quokka") && !slices.Contains(tags["animals"], "quokkas") {
		t.Errorf("overview: animals words %v, want quokka(s)", tags["animals"])
	}
	if !slices.Contains(tags["coast"], "lighthouse") {
		t.Errorf("overview: coast words %v, want lighthouse", tags["coast"])
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	if len(o.Sites) != 1 || o.Sites[0].Name != host || o.Sites[0].Items != 2 {
		t.Errorf("overview sites: %+v, want %s with 2 items", o.Sites, host)
	}
	if !strings.HasPrefix(text(res), "2 items (article 2)") || !strings.Contains(ov.Next, "find") {
		t.Errorf("overview text:\n%s\nnext %q", text(res), ov.Next)
	}
	call(t, cs, schemas, "overview", map[string]any{"max_tokens": 100}, &ov)
	if ov.Overview.Tokens > 100 || ov.Overview.Items != 2 {
		t.Errorf("overview in 100 tokens: %+v", ov.Overview)
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"save", map[string]any{"url": srv.URL + "/field-notes.md", "wait": 99}, "usage: wait 99: want 0..30 seconds"},
		{"save", map[string]any{"url": srv.URL + "/field-notes.md", "wait": -1}, "usage: wait -1"},
		{"overview", map[string]any{"max_tokens": 50}, "usage: max_tokens 50: want 100..4000"},
	} {
		if got := callErr(t, cs, tc.tool, tc.args); !strings.Contains(got, tc.want) {
			t.Errorf("%s %v: error %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

// TestMCPNoWorker: with --no-worker nothing is ingested while it serves:
// save's wait runs out, and the results say the item is pending and that
// `linkledger worker` ingests it.
func TestMCPNoWorker(t *testing.T) {
	site := newTestServer()
	defer site.Close()
	// the page server counts the fetches of the item's page and says
	// when a control server's page is fetched
	var fetches atomic.Int32
	controlFetched := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/quokka.html":
			fetches.Add(1)
		case "/lighthouse.html":
			select {
			case controlFetched <- struct{}{}:
			default:
			}
		}
		site.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	cs := startMCP(t, dir, "--db", db, "--no-worker")
	schemas := outputSchemas(t, cs)

	var saved mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html", "note": "smiling marsupials", "wait": 1}, &saved)
	if saved.Item.Status != "saved" || !strings.Contains(saved.Next, "run `linkledger worker`") {
		t.Errorf("save with wait, no worker: %+v, next %q", saved.Item, saved.Next)
	}
	var found mcp.FindOutput
	res := call(t, cs, schemas, "find", map[string]any{"query": "smiling marsupials"}, &found)
	if len(found.Items) != 1 || found.Items[0].Pending != "not fetched yet" {
		t.Fatalf("find a pending item: %+v", found)
	}
	if !strings.Contains(text(res), "pending: not fetched yet") || strings.Contains(text(res), "(untitled)") {
		t.Errorf("find text of a pending item:\n%s", text(res))
	}
	if !strings.Contains(found.Next, "1 item not fetched yet") || !strings.Contains(found.Next, "linkledger worker") {
		t.Errorf("find next: %q", found.Next)
	}
	call(t, cs, schemas, "find", map[string]any{"query": "zebras unicorns"}, &found)
	if len(found.Items) != 0 || !strings.HasPrefix(found.Next, `no item contains "zebras" or "unicorns"; nothing matched`) || !strings.Contains(found.Next, "overview") {
		t.Errorf("find with no match: %+v", found)
	}
	var shown mcp.ShowOutput
	res = call(t, cs, schemas, "show", map[string]any{"item": saved.Item.ID}, &shown)
	if !strings.HasPrefix(shown.Next, "pending: not fetched yet") || !strings.Contains(text(res), saved.Item.ID+" pending: not fetched yet") {
		t.Errorf("show a pending item: next %q\n%s", shown.Next, text(res))
	}
	var st mcp.StatusOutput
	call(t, cs, schemas, "status", map[string]any{}, &st)
	if st.Pending != 1 || !strings.Contains(st.Next, "linkledger worker") {
		t.Errorf("status: %+v", st)
	}
	// nothing fetched it meanwhile. The event that says a worker would
	// have by now: a control server with its worker, started after this
	// one on a database of its own, is sent a save after ours and
	// fetches its page (the timeout only bounds a failure).
	ctl := startMCP(t, dir, "--db", filepath.Join(dir, "control.db"))
	call(t, ctl, schemas, "save", map[string]any{"url": srv.URL + "/lighthouse.html"}, &saved)
	select {
	case <-controlFetched:
	case <-time.After(2 * time.Minute):
		t.Fatal("the control server's worker did not fetch its page within 2 minutes")
	}
	if n := fetches.Load(); n != 0 {
		t.Errorf("the page was fetched %d times with --no-worker", n)
	}
	call(t, cs, schemas, "status", map[string]any{}, &st)
	if st.Pending != 1 {
		t.Errorf("status with --no-worker: %d pending, want 1", st.Pending)
	}
}

// TestMCPAllMatches: find and brief leave weak matches out as ll-find
// does, and all_matches: true (the CLI's --all-matches) shows every match.
func TestMCPAllMatches(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	docs := `{"url":"https://t.test/strong","title":"Tomato tomato tomatoes","text":"Tomatoes, tomatoes: growing tomatoes in pots, tomato by tomato."}
{"url":"https://t.test/weak","title":"Gardening","text":"A long page about many plants and soil and water and sun, with one tomato somewhere in the middle of a very long paragraph on other crops, beans, peas, onions, leeks, kale and chard, and more beans, and more peas."}
`
	for i := range 12 {
		docs += fmt.Sprintf(`{"url":"https://t.test/f%d","title":"Filler %d","text":"Onions, leeks and beans grow in row %d of the garden."}`+"\n", i, i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs.ndjson"), []byte(docs), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "sh", "-c", "ll-index --db "+db+" -q < docs.ndjson")
	cs := startMCP(t, dir, "--db", db, "--no-worker")
	schemas := outputSchemas(t, cs)

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"find", map[string]any{"query": "tomato"}, "https://t.test/strong"},
		{"find", map[string]any{"query": "tomato", "all_matches": false}, "https://t.test/strong"},
		{"find", map[string]any{"query": "tomato", "all_matches": true}, "https://t.test/strong https://t.test/weak"},
		{"brief", map[string]any{"query": "tomato"}, "https://t.test/strong"},
		{"brief", map[string]any{"query": "tomato", "all_matches": true}, "https://t.test/strong https://t.test/weak"},
	} {
		// find's items and the brief's pack items both have a url
		var got struct {
			Items []struct {
				URL string `json:"url"`
			} `json:"items"`
		}
		call(t, cs, schemas, tc.tool, tc.args, &got)
		var urls []string
		for _, it := range got.Items {
			urls = append(urls, it.URL)
		}
		if strings.Join(urls, " ") != tc.want {
			t.Errorf("%s %v: %v, want %s", tc.tool, tc.args, urls, tc.want)
		}
	}
	// a plain boolean in the schema: a string is refused, not read as true
	if got := callErr(t, cs, "find", map[string]any{"query": "tomato", "all_matches": "yes"}); !strings.Contains(got, "all_matches") {
		t.Errorf("all_matches \"yes\": error %q", got)
	}
}

// TestMCPActorHuman: an MCP client writes as an agent. A call giving
// actor human is refused with a usage error that says how to allow it,
// and nothing is written; agent:NAME is taken; a server started with
// --allow-human-actor takes human (issue 27 point 10).
func TestMCPActorHuman(t *testing.T) {
	srv := newTestServer()
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	cs := startMCP(t, dir, "--db", db, "--no-worker")
	schemas := outputSchemas(t, cs)
	var saved mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html"}, &saved)
	id := saved.Item.ID
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"save", map[string]any{"url": srv.URL + "/lighthouse.html", "actor": "human"}},
		{"annotate", map[string]any{"item": id, "type": "note", "text": "the person said so", "actor": "human"}},
		{"tag", map[string]any{"item": id, "add": []string{"mine"}, "actor": "human"}},
		{"cite", map[string]any{"item": id, "task": "essay", "actor": "human"}},
		{"pack_save", map[string]any{"name": "p", "query": "quokka", "actor": "human"}},
	} {
		got := callErr(t, cs, tc.tool, tc.args)
		want := "usage: actor \"human\": an MCP client writes as agent:<name>; this server does not take human\nhint: leave actor out (agent:CLIENT) or give agent:<name>; only a server started with linkledger mcp --allow-human-actor takes human"
		if got != want {
			t.Errorf("%s as human: %q, want %q", tc.tool, got, want)
		}
	}
	var ann mcp.SaveOutput
	call(t, cs, schemas, "annotate", map[string]any{"item": id, "type": "note", "text": "an agent's note", "actor": "agent:reader"}, &ann)
	// nothing was written as human: one item, one note by the agent
	out := run(t, dir, "linkledger", "show", "--db", db, id, "--jq", "[.annotations[] | .actor], [.tags[]?.actor]")
	if out != "[\"agent:reader\"]\n[]\n" {
		t.Errorf("after refused human calls, show: %q", out)
	}
	if out := run(t, dir, "ll-find", "--db", db, "--jq", ".id"); strings.Count(out, "\n") != 1 {
		t.Errorf("items after a refused save: %q", out)
	}

	cs2 := startMCP(t, dir, "--db", db, "--no-worker", "--allow-human-actor")
	call(t, cs2, schemas, "annotate", map[string]any{"item": id, "type": "note", "text": "the person typed this", "actor": "human"}, &ann)
	out = run(t, dir, "linkledger", "show", "--db", db, id, "--jq", "[.annotations[] | .actor]")
	if out != "[\"agent:reader\",\"human\"]\n" {
		t.Errorf("with --allow-human-actor, show: %q", out)
	}
}

// TestMCPRelatedCut: the MCP related tool leaves out weak neighbours by
// the rule ll-find --related uses (lib/ledger RelatedHits; the corpus of
// testdata/script/h28r_related_cut.txtar): the two sourdough pages are
// listed, the garden and kayak pages that share a word or two are not.
func TestMCPRelatedCut(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	ar, err := txtar.ParseFile(filepath.Join("testdata", "script", "h28r_related_cut.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		if f.Name == "docs.ndjson" {
			if err := os.WriteFile(filepath.Join(dir, f.Name), f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	run(t, dir, "sh", "-c", "ll-index --db "+db+" -q < docs.ndjson")
	cs := startMCP(t, dir, "--db", db, "--no-worker")
	schemas := outputSchemas(t, cs)
	var got struct {
		Items []struct {
			URL string `json:"url"`
		} `json:"items"`
	}
	call(t, cs, schemas, "related", map[string]any{"item": "https://r.test/sourdough"}, &got)
	var urls []string
	for _, it := range got.Items {
		urls = append(urls, it.URL)
	}
	if want := "https://r.test/rye https://r.test/levain"; strings.Join(urls, " ") != want {
		t.Errorf("related: %v, want %s", urls, want)
	}
}
