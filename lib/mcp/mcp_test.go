package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

func TestActor(t *testing.T) {
	for _, tc := range []struct {
		client, given, want string
		err                 bool
		allowHuman          bool
	}{
		{"Claude Desktop", "", "agent:Claude-Desktop", false, false},
		{"  ", "", "agent:mcp", false, false},
		{"-a.b-", "", "agent:a.b", false, false},
		{"", "", "agent:mcp", false, false},
		{"ünïcode/client", "", "agent:n-code-client", false, false},
		{strings.Repeat("x", 100), "", "agent:" + strings.Repeat("x", 64), false, false},
		{"Claude Desktop", "agent:researcher", "agent:researcher", false, false},
		// a client speaks as an agent unless the server allows human
		{"Claude Desktop", "human", "", true, false},
		{"Claude Desktop", "human", "human", false, true},
		{"Claude Desktop", "agent:researcher", "agent:researcher", false, true},
		{"Claude Desktop", "robot", "", true, false},
		{"Claude Desktop", "robot", "", true, true},
		{"Claude Desktop", "Human", "", true, true},
	} {
		got, err := actorFor(tc.client, tc.given, tc.allowHuman)
		if err == nil && !record.ValidActor(got) {
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

// TestFraming: good lines reach the SDK as they are; every bad line is
// answered with a JSON-RPC error (its id when it has a readable one) and
// reported, and the lines after it still pass.
func TestFraming(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}`
	in := strings.Join([]string{
		ping, "", "not json", "{}", "[]", "42", "null",
		`{"jsonrpc":"1.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":5}`,
		`{"JSONRPC":"2.0","id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":5}`,
		`{"jsonrpc":"2.0","id":6,"error":5}`,
		deep,
		`{"jsonrpc":"2.0","id":"x","method":"p","params":{"s":"` + strings.Repeat("y", MaxLineBytes) + `"}}`,
		`{"jsonrpc":"2.0","id":8,"result":{}}`,
		`  {"jsonrpc":"2.0","method":"notifications/initialized"}  `,
	}, "\n")
	var out bytes.Buffer
	var bad []int
	fr := NewFraming(strings.NewReader(in), &out, func(line int, why string) { bad = append(bad, line) })
	got, err := io.ReadAll(fr.In())
	if err != nil {
		t.Fatal(err)
	}
	want := ping + "\n" + `{"jsonrpc":"2.0","id":8,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("lines passed (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, bad); d != "" {
		t.Errorf("lines refused (-want +got):\n%s", d)
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r struct {
			JSONRPC string
			ID      json.RawMessage
			Error   struct {
				Code    int
				Message string
			}
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.JSONRPC != "2.0" || r.Error.Code >= 0 || r.Error.Message == "" {
			t.Errorf("answer %q: not a JSON-RPC error (%v)", l, err)
		}
		ids = append(ids, string(r.ID))
	}
	wantIDs := []string{"null", "null", "null", "null", "null", "2", "null", "null", "null", "3", "4", "5", "6", "7", "null"}
	if d := cmp.Diff(wantIDs, ids); d != "" {
		t.Errorf("ids answered (-want +got):\n%s", d)
	}
}

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
