package web

import (
	"html"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

// TestSearchFindRequest: the search page reads since, until, archived,
// type, status and mode through ledger.FindRequest: it takes the spellings
// ll-find and the MCP tools take, and refuses a bad value (archived=yes,
// which it used to ignore, included) with the find request's message.
func TestSearchFindRequest(t *testing.T) {
	ts := serveTest(t, Options{Ledger: searchLedger(t)})
	for _, tc := range []struct {
		q    string
		hits bool
	}{
		{"q=rye&since=7d", true},
		{"q=rye&since=today&until=2999-01-02T00:00:00Z", true},
		{"q=rye&since=2000-01-01&until=2000-01-02", false},
		{"q=rye&until=1y", false},
		{"q=rye&archived=any&since=12h", true},
		{"q=rye&archived=no", true},
		{"q=rye&archived=only", false},
	} {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/search?"+tc.q, "")))
		if res.StatusCode != 200 {
			t.Errorf("%s: %d\n%s", tc.q, res.StatusCode, body)
			continue
		}
		if got := strings.Contains(body, "https://m.test/rye"); got != tc.hits {
			t.Errorf("%s: finds the rye item %v, want %v", tc.q, got, tc.hits)
		}
	}
	for _, r := range []ledger.FindRequest{{Since: "tomorrow"}, {Until: "2 weeks"}, {Since: "-1d"}, {Archived: "yes"}, {Type: "video"}, {Status: "done"}, {Mode: "fuzzy"}} {
		_, want := r.Options(ledger.FindOptions{}, time.Now())
		v := url.Values{"q": {"rye"}, "since": {r.Since}, "until": {r.Until}, "archived": {r.Archived}, "type": {r.Type}, "status": {r.Status}, "mode": {r.Mode}}
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/search?"+v.Encode(), "")))
		if res.StatusCode != 400 || !strings.Contains(body, html.EscapeString(want.Error())) {
			t.Errorf("%+v: %d; want 400 saying %q:\n%s", r, res.StatusCode, want, body)
		}
	}
}
