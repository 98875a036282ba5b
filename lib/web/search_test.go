package web

import (
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/embed/embedtest"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/store"
)

var updateGolden = flag.Bool("update-golden", false, "write the search pages' golden files to testdata/search/")

// searchLedger is a ledger whose items carry vectors of the fake model
// "hash-64": one about acetylcysteine (which the query "NAC" finds by
// meaning only), one about rye bread, and 22 notes on bread, enough for
// two pages.
func searchLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	st, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := []embedtest.Doc{
		{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress in the lungs."},
		{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter and a long rest."},
	}
	for i := range 22 {
		docs = append(docs, embedtest.Doc{URL: fmt.Sprintf("https://m.test/bread/%d", i), Text: fmt.Sprintf("Bread note %d: flour, water, salt and time.", i)})
	}
	embedtest.Index(t, st, "hash-64", docs...)
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
		golden := filepath.Join("testdata", "search", fmt.Sprintf("%d.html", i))
		if *updateGolden {
			if err := os.WriteFile(golden, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if body != string(want) {
			t.Errorf("/search?%s differs from %s:\n%s", q, golden, body)
		}
	}
}
