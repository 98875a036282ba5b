package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestTagStars: the tag tool's star argument stars and unstars an item
// (alone or with tags), as the agent that asks, and find's is:starred
// finds it; without star, tag is as before.
func TestTagStars(t *testing.T) {
	ctx := context.Background()
	st, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, u := range []string{"https://a.test/one", "https://a.test/two"} {
		if _, err := st.SaveRecord(ctx, &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "Page " + u}, spec.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	starredIDs := func() string {
		raw, text, isErr := callSemantic(t, st, nil, "find", map[string]any{"query": "is:starred"})
		if isErr {
			t.Fatalf("find: %s", text)
		}
		return raw
	}
	raw, text, isErr := callSemantic(t, st, nil, "tag", map[string]any{"item": "https://a.test/one", "star": true})
	if isErr || !strings.Contains(raw, `"action":"star"`) || !strings.Contains(raw, `"starred_at":"`) {
		t.Fatalf("tag star: %s %s", raw, text)
	}
	if got := starredIDs(); !strings.Contains(got, record.ItemID("https://a.test/one")) || strings.Contains(got, record.ItemID("https://a.test/two")) {
		t.Errorf("find is:starred after star: %s", got)
	}
	db, closeDB, err := ledgertest.DB(ctx, st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer closeDB()
	var actor string
	if err := db.Get(&actor, `SELECT actor FROM events WHERE action = 'starred'`); err != nil || actor != "agent:test" {
		t.Errorf("starred by %q (%v), want agent:test", actor, err)
	}
	raw, text, isErr = callSemantic(t, st, nil, "tag", map[string]any{"item": "https://a.test/one", "add": []string{"x"}, "star": false})
	if isErr || !strings.Contains(raw, `"tags_added":["x"]`) || !strings.Contains(raw, `"action":"unstar"`) {
		t.Fatalf("tag add and unstar: %s %s", raw, text)
	}
	if got := starredIDs(); strings.Contains(got, record.ItemID("https://a.test/one")) {
		t.Errorf("find is:starred after unstar: %s", got)
	}
	if raw, text, isErr := callSemantic(t, st, nil, "tag", map[string]any{"item": "https://a.test/two", "add": []string{"y"}}); isErr || strings.Contains(raw, `"change"`) {
		t.Errorf("tag without star: %s %s", raw, text)
	}
}
