package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

func TestActor(t *testing.T) {
	for _, tc := range []struct {
		client, given, want string
		err                 bool
	}{
		{"Claude Desktop", "", "agent:Claude-Desktop", false},
		{"  ", "", "agent:mcp", false},
		{"-a.b-", "", "agent:a.b", false},
		{"", "", "agent:mcp", false},
		{"ünïcode/client", "", "agent:n-code-client", false},
		{strings.Repeat("x", 100), "", "agent:" + strings.Repeat("x", 64), false},
		{"Claude Desktop", "agent:researcher", "agent:researcher", false},
		{"Claude Desktop", "human", "human", false},
		{"Claude Desktop", "robot", "", true},
	} {
		got, err := actorFor(tc.client, tc.given)
		if err == nil && !store.ValidActor(got) {
			t.Errorf("actor(client %q) = %q, not a valid actor", tc.client, got)
		}
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("actor(client %q, given %q) = %q, %v; want %q (error %v)", tc.client, tc.given, got, err, tc.want, tc.err)
		}
	}
}

func TestFindOutputCap(t *testing.T) {
	var hits []*record.Record
	for i := 0; i < 20; i++ {
		hits = append(hits, &record.Record{ID: "ll_0000000000000001", URL: "https://example.com/", Title: "item",
			Hit: &record.Hit{Rank: i + 1, Snippets: []record.Snippet{{Text: strings.Repeat("many different words here ", 60)}}}})
	}
	out := findOutput(&ledger.FindResult{Hits: hits})
	if !out.Truncated || len(out.Items) == 0 || len(out.Items) == 20 {
		t.Fatalf("20 big items: %d kept, truncated %v", len(out.Items), out.Truncated)
	}
	if n := tokensOf(out); n > FindCapTokens {
		t.Errorf("result of %d tokens over the cap %d", n, FindCapTokens)
	}
	small := findOutput(&ledger.FindResult{Hits: hits[:1]})
	if small.Truncated || len(small.Items) != 1 {
		t.Errorf("one item: %+v", small)
	}
	if !strings.Contains(findText(out), "left out to stay under the size cap") {
		t.Errorf("text form does not say items were left out:\n%s", findText(out))
	}
}

func TestValidLines(t *testing.T) {
	in := "{\"a\":1}\n\nnot json\n  {\"b\": [2]}  \n{broken\n" + `{"c":"` + strings.Repeat("x", 100<<10) + "\"}\n[1]"
	var bad []int
	got, err := io.ReadAll(ValidLines(strings.NewReader(in), func(line int) { bad = append(bad, line) }))
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"a\":1}\n{\"b\": [2]}\n" + `{"c":"` + strings.Repeat("x", 100<<10) + "\"}\n[1]\n"
	if string(got) != want {
		t.Errorf("ValidLines passed %q..., want %q...", trunc(string(got)), trunc(want))
	}
	if d := cmp.Diff([]int{3, 5}, bad); d != "" {
		t.Errorf("lines reported (-want +got):\n%s", d)
	}
}

func trunc(s string) string { return s[:min(len(s), 60)] }

func TestPackResultCap(t *testing.T) {
	bp := brief.Pack{Query: "q", MaxTokens: 20000}
	for i := 0; i < 20; i++ {
		bp.Items = append(bp.Items, brief.Item{Rank: i + 1, ID: "ll_0000000000000001", URL: "https://example.com/",
			Summary: strings.Repeat("many different words here ", 300)})
	}
	for i := 0; i < 50; i++ {
		bp.Pointers = append(bp.Pointers, brief.Pointer{Rank: 21 + i, URL: "https://example.com/p", Title: "a pointer"})
	}
	raw, err := json.Marshal(&bp)
	if err != nil {
		t.Fatal(err)
	}
	out, text, err := packResult(&record.PackInfo{Name: "big", Query: "q", Version: 1, Brief: raw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got brief.Pack
	if err := json.Unmarshal(out.Pack.Brief, &got); err != nil {
		t.Fatal(err)
	}
	if !out.Truncated || len(got.Pointers) != 0 || len(got.Items) == 0 || len(got.Items) == 20 {
		t.Fatalf("big pack: %d items, %d pointers kept, truncated %v", len(got.Items), len(got.Pointers), out.Truncated)
	}
	if n := tokensOf(out); n > PackCapTokens {
		t.Errorf("result of %d tokens over the cap %d", n, PackCapTokens)
	}
	if !strings.Contains(text, "pack big v1") {
		t.Errorf("text form:\n%s", text)
	}
	small, _, err := packResult(&record.PackInfo{Name: "small", Version: 1, Brief: json.RawMessage(`{"items":[],"tokens":1,"max_tokens":10}`)}, nil)
	if err != nil || small.Truncated || string(small.Pack.Brief) != `{"items":[],"tokens":1,"max_tokens":10}` {
		t.Errorf("small pack changed: %+v %v", small, err)
	}
}

func TestWeak(t *testing.T) {
	item := func(terms ...string) FindItem {
		return FindItem{Item: brief.Item{WhyRanked: &record.WhyRanked{MatchedTerms: terms}}}
	}
	for _, tc := range []struct {
		q    string
		best FindItem
		want bool
	}{
		{"quokka", item(), false}, // one word: never weak
		{"quokka island rangers", item("quokka"), true},
		{"quokka island rangers", item("quokka", "island"), false},
		{"quokka island rangers water", item("quokka"), true},
		{"quokka island rangers water", item("quokka", "island"), false},
		{"quokka island", FindItem{}, false},                 // no why_ranked (newest items)
		{"the history of the quokka", item("quokka"), false}, // stopwords are not searched
	} {
		if got := weak(tc.q, tc.best); got != tc.want {
			t.Errorf("weak(%q, %v) = %v, want %v", tc.q, tc.best.WhyRanked, got, tc.want)
		}
	}
}
