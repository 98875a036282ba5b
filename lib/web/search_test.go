package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/internal/golden"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
	"github.com/linkledger/linkledger/lib/record"
)

// searchLedger is a ledger whose items carry vectors of the fake model
// "hash-64": one about acetylcysteine (which the query "NAC" finds by
// meaning only), one about rye bread, and 22 notes on bread, enough for
// two pages.
func searchLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	docs := []ledgertest.Doc{
		{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress in the lungs."},
		{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter and a long rest."},
	}
	for i := range 22 {
		docs = append(docs, ledgertest.Doc{URL: fmt.Sprintf("https://m.test/bread/%d", i), Text: fmt.Sprintf("Bread note %d: flour, water, salt and time.", i)})
	}
	ledgertest.Index(t, st, "hash-64", docs...)
	st.Close()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// goldenSearches are the search pages kept in testdata/search/.
var goldenSearches = []string{
	"",
	"q=acetylcysteine",
	"q=NAC",
	"q=bread",
	"q=bread&page=2",
	"q=bread&type=article&archived=any",
}

// TestSearchPageWithoutEndpoint: with no embeddings endpoint configured
// (though the ledger holds vectors), the search page is byte for byte
// the page of the web app before it learned semantic ranking
// (testdata/search/*.html, written before that change).
func TestSearchPageWithoutEndpoint(t *testing.T) {
	ts := serveTest(t, Options{Ledger: searchLedger(t)})
	for i, q := range goldenSearches {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/search?"+q, "")))
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", q, res.StatusCode)
		}
		// the test server's port appears in no page, but say so if it does
		body = strings.ReplaceAll(body, url.QueryEscape(ts.URL), "SERVER")
		file := filepath.Join("testdata", "search", fmt.Sprintf("%d.html", i))
		if golden.Update() {
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if body != string(want) {
			t.Errorf("/search?%s differs from %s:\n%s", q, file, body)
		}
	}
}

// TestSearchRanking: with an embeddings endpoint the search page ranks
// as ll-find does, hybrid by default: "NAC" finds the item about
// acetylcysteine, which shares no word with it, unless the page asks for
// the lexical ranking; the page says which ranking it used, offers the
// choice, keeps it in its links and explains the fusion.
func TestSearchRanking(t *testing.T) {
	fake := httptest.NewServer(&embedfake.Server{})
	defer fake.Close()
	ts := serveTest(t, Options{Ledger: searchLedger(t), Embedder: ledger.QueryClient(&embed.Client{URL: fake.URL + "/v1", Model: "hash-64"})})
	nac := `href="/items/` + record.ItemID("https://m.test/nac") + `"`
	for _, tc := range []struct {
		query, ranked, selected string
		finds                   bool
	}{
		{"q=NAC", "hybrid", `<option value="">default ranking</option>`, true},
		{"q=NAC&mode=hybrid", "hybrid", `<option value="hybrid" selected>`, true},
		{"q=NAC&mode=semantic", "semantic", `<option value="semantic" selected>`, true},
		{"q=NAC&mode=lexical", "lexical", `<option value="lexical" selected>`, false},
	} {
		body := getSearch(t, ts, tc.query)
		if got := strings.Contains(body, nac); got != tc.finds {
			t.Errorf("%s: finds the item about acetylcysteine: %v, want %v", tc.query, got, tc.finds)
		}
		if !strings.Contains(body, `<p class="muted ranking">Ranked `+tc.ranked+`.</p>`) {
			t.Errorf("%s: the page does not say it ranked %s", tc.query, tc.ranked)
		}
		if !strings.Contains(body, `<select id="mode" name="mode" aria-label="Ranking">`) || !strings.Contains(body, tc.selected) {
			t.Errorf("%s: no ranking select with %s", tc.query, tc.selected)
		}
		if strings.Contains(body, `class="warning"`) {
			t.Errorf("%s: a warning on a search that ranked as asked", tc.query)
		}
		if tc.finds && !strings.Contains(body, "<dt>ranking</dt><dd>"+tc.ranked+"</dd>") {
			t.Errorf("%s: why ranked does not explain the fusion", tc.query)
		}
	}
	// the item found by meaning only: no lexical rank, a semantic one
	if body := getSearch(t, ts, "q=NAC"); !strings.Contains(body, "<dt>lexical rank</dt><dd>not found by its words</dd><dt>semantic rank</dt><dd>1 (similarity") {
		t.Errorf("why ranked of the item found by meaning:\n%s", body)
	}
	// the choice stays in the pages' links and in the pack saved from them
	body := getSearch(t, ts, "q=bread&mode=lexical")
	if !strings.Contains(body, "mode=lexical&amp;page=2") {
		t.Errorf("the next page's link leaves the ranking out")
	}
	if !strings.Contains(body, `<input type="hidden" name="mode" value="lexical">`) {
		t.Errorf("the pack form leaves the ranking out")
	}
}

// TestSearchPackKeepsMode: a pack saved from a search page keeps the
// search's ranking; a bad one is refused.
func TestSearchPackKeepsMode(t *testing.T) {
	fake := httptest.NewServer(&embedfake.Server{})
	defer fake.Close()
	l := searchLedger(t)
	ts := serveTest(t, Options{Ledger: l, Embedder: ledger.QueryClient(&embed.Client{URL: fake.URL + "/v1", Model: "hash-64"})})
	for _, mode := range []string{"hybrid", "lexical"} {
		res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/packs", "name=nac-"+mode+"&query=NAC&mode="+mode)))
		if res.StatusCode != 303 {
			t.Fatalf("create pack %s: %d", mode, res.StatusCode)
		}
		p, err := l.ShowPack(context.Background(), "nac-"+mode, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Options == nil || p.Options.Mode != mode {
			t.Errorf("pack nac-%s: options %+v", mode, p.Options)
		}
		if got := strings.Contains(string(p.Brief), `"url":"https://m.test/nac"`); got != (mode == "hybrid") {
			t.Errorf("pack nac-%s holds the item found by meaning: %v", mode, got)
		}
	}
	res, body := do(t, withCookie(mustReq(t, "POST", ts.URL+"/packs", "name=bad&query=NAC&mode=fuzzy")))
	if res.StatusCode != 400 || !strings.Contains(body, "mode &#34;fuzzy&#34;: want lexical, semantic or hybrid") {
		t.Errorf("a bad mode: %d\n%s", res.StatusCode, body)
	}
}

// TestSearchEndpointFails: an endpoint that fails, or answers after the
// client's timeout, leaves the lexical ranking and a warning on the page,
// never an error; "NAC" then finds nothing, "acetylcysteine" its item.
func TestSearchEndpointFails(t *testing.T) {
	fake := httptest.NewServer(&embedfake.Server{Slow: 3 * time.Second})
	defer fake.Close()
	l := searchLedger(t)
	nac := `href="/items/` + record.ItemID("https://m.test/nac") + `"`
	for _, tc := range []struct {
		path    string
		timeout time.Duration
		warning string
	}{
		{"/500/v1", 0, "answered HTTP 500: lexical ranking"},
		{"/slow/v1", 100 * time.Millisecond, "within 100ms: lexical ranking"},
	} {
		e := ledger.QueryClient(&embed.Client{URL: fake.URL + tc.path, Model: "hash-64", Timeout: tc.timeout})
		ts := serveTest(t, Options{Ledger: l, Embedder: e})
		for _, mode := range []string{"", "hybrid", "semantic"} {
			body := getSearch(t, ts, "q=NAC&mode="+mode)
			if strings.Contains(body, nac) {
				t.Errorf("%s mode %q: NAC found by meaning with a failing endpoint", tc.path, mode)
			}
			if !strings.Contains(body, `<p class="muted ranking">Ranked lexical.</p>`) {
				t.Errorf("%s mode %q: the page does not say it ranked lexically", tc.path, mode)
			}
			if !regexp.MustCompile(`<p class="warning" role="status">embeddings endpoint: [a-z_]+: [^<]*` + regexp.QuoteMeta(tc.warning) + `</p>`).MatchString(body) {
				t.Errorf("%s mode %q: no warning %q:\n%s", tc.path, mode, tc.warning, body)
			}
			if !strings.Contains(getSearch(t, ts, "q=acetylcysteine&mode="+mode), nac) {
				t.Errorf("%s mode %q: the lexical ranking misses acetylcysteine", tc.path, mode)
			}
		}
	}
}

// TestSearchBadMode: a mode that is not a ranking is a 400 saying what
// is wanted, escaped; a warning that names the configured model is
// escaped too; without an endpoint a mode asked for is a warning and the
// page offers no choice.
func TestSearchBadMode(t *testing.T) {
	l := searchLedger(t)
	ts := serveTest(t, Options{Ledger: l, Embedder: ledger.QueryClient(&embed.Client{URL: "http://127.0.0.1:1/v1", Model: "hash-64"})})
	for _, mode := range []string{"fuzzy", "HYBRID", "<script>alert(1)</script>"} {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/search?q=NAC&mode="+url.QueryEscape(mode), "")))
		if res.StatusCode != 400 {
			t.Errorf("mode %q: %d, want 400", mode, res.StatusCode)
		}
		if !strings.Contains(body, "want lexical, semantic or hybrid") || strings.Contains(body, "<script>alert") {
			t.Errorf("mode %q: the error page does not say what is wanted, or is not escaped:\n%s", mode, body)
		}
	}

	evil := `<img src=x onerror=alert(1)>`
	ts = serveTest(t, Options{Ledger: l, Embedder: ledger.QueryClient(&embed.Client{URL: "http://127.0.0.1:1/v1", Model: evil})})
	body := getSearch(t, ts, "q=NAC&mode=hybrid")
	if strings.Contains(body, evil) || !strings.Contains(body, "the ledger holds no vectors of model &lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("the warning naming the model is not escaped:\n%s", body)
	}

	ts = serveTest(t, Options{Ledger: l})
	body = getSearch(t, ts, "q=NAC&mode=hybrid")
	if !strings.Contains(body, `<p class="warning" role="status">--mode hybrid: no embeddings endpoint configured`) {
		t.Errorf("without an endpoint, mode=hybrid does not say it ranked lexically:\n%s", body)
	}
	if strings.Contains(body, `name="mode"`) || strings.Contains(body, "Ranked lexical") {
		t.Errorf("without an endpoint the page offers a ranking choice")
	}
}

// getSearch is the search page of query (a URL query), which must be 200.
func getSearch(t *testing.T, ts *httptest.Server, query string) string {
	t.Helper()
	res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/search?"+query, "")))
	if res.StatusCode != 200 {
		t.Fatalf("/search?%s: %d\n%s", query, res.StatusCode, body)
	}
	return body
}
