package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
)

// TestFindRequestArgs: the find and brief tools read since, until and
// type and mode through ledger.FindRequest: they take the spellings ll-find and
// the web app take (and apply them), and refuse a bad value with the
// find request's own message.
func TestFindRequestArgs(t *testing.T) {
	st, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledgertest.Index(t, st, "hash-64", ledgertest.Doc{URL: "https://m.test/owl", Text: "Owls hunt at night over the fields."})
	for _, tc := range []struct {
		args  map[string]any
		items int
	}{
		{map[string]any{"since": "7d"}, 1},
		{map[string]any{"since": "today", "until": "2999-01-01"}, 1},
		{map[string]any{"since": "2000-01-01T00:00:00Z", "until": "2000-01-02"}, 0},
		{map[string]any{"until": "1y"}, 0},
		{map[string]any{"archived": true, "since": "12h"}, 1},
	} {
		for _, tool := range []string{"find", "brief"} {
			if _, ok := tc.args["archived"]; ok && tool == "brief" {
				continue // brief has no archived argument
			}
			tc.args["query"] = "owls"
			raw, text, isErr := callSemantic(t, st, nil, tool, tc.args)
			if isErr {
				t.Errorf("%s %v: refused: %s", tool, tc.args, text)
				continue
			}
			if tool == "find" {
				var out FindOutput
				json.Unmarshal([]byte(raw), &out)
				if len(out.Items) != tc.items {
					t.Errorf("find %v: %d items, want %d", tc.args, len(out.Items), tc.items)
				}
			}
		}
	}
	for _, r := range []ledger.FindRequest{{Since: "tomorrow"}, {Until: "2 weeks"}, {Since: "-1d"}, {Type: "video"}, {Mode: "fuzzy"}} {
		_, want := r.Options(ledger.FindOptions{}, time.Now())
		args := map[string]any{"query": "owls", "since": r.Since, "until": r.Until, "type": r.Type, "mode": r.Mode}
		for _, tool := range []string{"find", "brief"} {
			_, text, isErr := callSemantic(t, st, nil, tool, args)
			if !isErr || !strings.Contains(text, want.Error()) {
				t.Errorf("%s %+v: error %v, text %q; want the message %q", tool, r, isErr, text, want)
			}
		}
	}
}

// TestFindArchivedOnly: the find tool's archived argument is a boolean
// (archived items in, or not), and archived items alone are asked for
// with the query language's is:archived, as on every face.
func TestFindArchivedOnly(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ledgertest.Index(t, st, "hash-64", ledgertest.Doc{URL: "https://m.test/owl", Text: "Owls hunt at night over the fields."})
	ledgertest.Index(t, st, "hash-64", ledgertest.Doc{URL: "https://m.test/barn-owl", Text: "Barn owls nest in old barns."})
	if _, err := st.Archive(ctx, "https://m.test/owl", true, ledger.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"query": "owls"}, []string{"https://m.test/barn-owl"}},
		{map[string]any{"query": "owls", "archived": true}, []string{"https://m.test/barn-owl", "https://m.test/owl"}},
		{map[string]any{"query": "owls is:archived"}, []string{"https://m.test/owl"}},
	} {
		raw, text, isErr := callSemantic(t, st, nil, "find", tc.args)
		if isErr {
			t.Fatalf("find %v: refused: %s", tc.args, text)
		}
		var out FindOutput
		if err := json.Unmarshal([]byte(raw), &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range out.Items {
			got = append(got, it.URL)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("find %v: %v, want %v", tc.args, got, tc.want)
		}
	}
}
