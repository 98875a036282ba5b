package web

import (
	"context"
	"crypto/sha256"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestGETNeverWrites (issue 31): the pages a browser GETs — the inbox,
// the search (with its filters and an item fetched years ago, which a
// search with a stale threshold would mark for re-fetch), the library,
// an item, the review queue and the highlights — leave the database and
// its write-ahead log byte for byte as they were: a GET reads only.
func TestGETNeverWrites(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	text := "Herons wade in shallow water and wait for fish."
	old := &record.Record{URL: "https://birds.test/heron", CanonicalURL: "https://birds.test/heron", ID: record.ItemID("https://birds.test/heron"),
		SourceType: record.SourceArticle, Title: "Heron", Text: &text, Tags: []string{"birds"},
		Fetch:  &record.FetchInfo{Status: 200, FetchedAt: "2019-01-02T03:04:05Z"},
		Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 10}}}
	if _, err := l.Index(ctx, old, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Save(ctx, recordWith("https://birds.test/egret", "Egrets wade too"), ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	files := func() [2][32]byte {
		var sums [2][32]byte
		for i, p := range []string{l.Path(), l.Path() + "-wal"} {
			b, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			sums[i] = sha256.Sum256(b)
		}
		return sums
	}
	before := files()
	for _, p := range []string{"/", "/search?q=heron", "/search?q=wade&archived=any&since=2000-01-01",
		"/search?q=heron&until=2100-01-01", "/library", "/items/" + old.ID, "/review", "/highlights"} {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+p, "")))
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
		if strings.HasPrefix(p, "/search?q=heron") && !strings.Contains(body, "birds.test/heron") {
			t.Errorf("GET %s does not list the heron item", p)
		}
	}
	if files() != before {
		t.Errorf("the GETs changed the database or its write-ahead log")
	}
	// the check sees a write: one POST changes the files
	req := withCookie(mustReq(t, "POST", ts.URL+"/save", "url=https%3A%2F%2Fbirds.test%2Fstork"))
	if res, _ := do(t, req); res.StatusCode >= 400 {
		t.Fatalf("POST /save: %d", res.StatusCode)
	}
	if files() == before {
		t.Errorf("a POST that saves left the files unchanged: the check sees nothing")
	}
}
