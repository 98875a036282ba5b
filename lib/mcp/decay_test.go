package mcp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestFindFollowsDecayPolicy: the find tool (no decay argument) follows
// the ledger's decay policy: the default, then a stored one.
func TestFindFollowsDecayPolicy(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	url := "https://decay.test/owls"
	text := "owls hunt at night (an owls guess)"
	rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle, Title: "Owls",
		Text: &text, Checksum: "sha256:owls", Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 4}}}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	c := 0.3
	if _, err := st.Annotate(ctx, url, []record.Annotation{{Type: "highlight", Text: "owls guess", Confidence: &c}}, ledger.SaveOptions{Actor: "agent:a"}); err != nil {
		t.Fatal(err)
	}
	now = now.AddDate(1, 0, 0)

	cs := connectTest(t, st, Options{})
	highlights := func() []string {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{"query": "owls"}})
		if err != nil || res.IsError {
			t.Fatalf("find: %v %+v", err, res)
		}
		raw, _ := json.Marshal(res.StructuredContent)
		var out FindOutput
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, it := range out.Items {
			for _, h := range it.Highlights {
				got = append(got, h.Text)
			}
		}
		return got
	}
	if diff := cmp.Diff([]string{}, highlights()); diff != "" {
		t.Errorf("default policy (-want +got):\n%s", diff)
	}
	if _, err := st.SetDecay(ctx, spec.DecayPolicy{}, spec.ActorHuman); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"owls guess"}, highlights()); diff != "" {
		t.Errorf("stored policy off (-want +got):\n%s", diff)
	}
}
