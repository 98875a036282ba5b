package web

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// TestReusePageAfterPack: a pack made from the search page records no
// citation; the Reuse page said 0% and "a pack records them". It now says
// no share can be shown, and why, until something is cited; then it shows
// the share of stats (issue 30).
func TestReusePageAfterPack(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	rec, err := l.Save(ctx, &record.Record{URL: "https://example.com/walrus", Title: "Walrus"}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/packs", url.Values{"name": {"walrus-pack"}, "query": {"walrus"}}.Encode())))
	if res.StatusCode != 303 {
		t.Fatalf("create pack: %d", res.StatusCode)
	}
	get := func() string {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/reuse", "")))
		if res.StatusCode != 200 {
			t.Fatalf("reuse: %d", res.StatusCode)
		}
		return body
	}
	page := get()
	for _, bad := range []string{"or a pack records them", "0%", `id="share-bar"`} {
		if strings.Contains(page, bad) {
			t.Errorf("reuse after a pack has %q", bad)
		}
	}
	for _, want := range []string{"A pack records no citations", "No citations yet, so no reuse share to show: 1 pack names a task but cites nothing."} {
		if !strings.Contains(page, want) {
			t.Errorf("reuse after a pack lacks %q", want)
		}
	}
	// the pack's task cites its source: the share of stats, and the
	// pack is no longer uncited
	if _, err := l.Cite(ctx, rec.ID, ledger.CiteOptions{Task: "walrus-pack", Actor: "agent:w"}); err != nil {
		t.Fatal(err)
	}
	page = get()
	if !strings.Contains(page, "Of <b>1</b> task, <b>0</b> reused a stored source: <b>0%</b>") || !strings.Contains(page, "1 citation;") || strings.Contains(page, "reuse-uncited") {
		t.Errorf("reuse after a citation:\n%s", page)
	}
}
