package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
)

// TestPackRefreshKeepsRanking: the web app refreshes a pack saved in
// hybrid mode with its endpoint, so the item found by meaning only stays;
// without an endpoint the refresh is lexical, the flash says so and the
// log says why.
func TestPackRefreshKeepsRanking(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Index(t, st, "hash-64",
		ledgertest.Doc{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress."},
		ledgertest.Doc{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter."})
	st.Close()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	fake := httptest.NewServer(&embedfake.Server{})
	defer fake.Close()
	ok := &embed.Client{URL: fake.URL + "/v1", Model: "hash-64", Attempts: 1}
	o := ledger.DefaultPackOptions()
	o.MaxItems, o.MaxPointers, o.Mode = 1, 0, "hybrid"
	if _, err := l.SavePack(ctx, "nac", "NAC", o, ledger.PackWriteOptions{Embedder: ok}); err != nil {
		t.Fatal(err)
	}
	// the pack holds one item at most, and no pointer: its brief names
	// the item or none
	holdsNAC := func() bool {
		t.Helper()
		p, err := l.ShowPack(ctx, "nac", 0)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Contains(string(p.Brief), `"url":"https://m.test/nac"`)
	}
	var mu sync.Mutex
	var logged strings.Builder
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&logged, format+"\n", args...)
	}

	ts := serveTest(t, Options{Ledger: l, Embedder: ok, Logf: logf})
	res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/packs/nac/refresh", "x=1")))
	if res.StatusCode != 303 || res.Header.Get("Location") != "/packs/nac?done=refreshed" {
		t.Errorf("refresh with the endpoint: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if !holdsNAC() {
		t.Errorf("refresh with the endpoint: the item found by meaning left")
	}

	ts = serveTest(t, Options{Ledger: l, Logf: logf})
	res, _ = do(t, withCookie(mustReq(t, "POST", ts.URL+"/packs/nac/refresh", "x=1")))
	if loc := res.Header.Get("Location"); res.StatusCode != 303 || loc != "/packs/nac?done=refreshed-lexical" {
		t.Fatalf("refresh without an endpoint: %d %s", res.StatusCode, loc)
	}
	if holdsNAC() {
		t.Errorf("refresh without an endpoint: the item found by meaning only is still there")
	}
	if !strings.Contains(logged.String(), "pack nac: warning: --mode hybrid: no embeddings endpoint configured") {
		t.Errorf("log: %q", logged.String())
	}
	_, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/packs/nac?done=refreshed-lexical", "")))
	if !strings.Contains(body, "Pack refreshed, ranked lexically") {
		t.Errorf("the pack page does not say it was ranked lexically:\n%s", body)
	}
}

// The pack page shows each entry's passages: the answering sentence,
// whole (issue 28).
func TestPackPageShowsPassages(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Index(t, st, "hash-64",
		ledgertest.Doc{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress in the liver. Rye bread needs a sour starter."})
	st.Close()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	o := ledger.DefaultPackOptions()
	if _, err := l.SavePack(ctx, "nac", "acetylcysteine oxidative stress", o, ledger.PackWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	ts := serveTest(t, Options{Ledger: l})
	_, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/packs/nac", "")))
	if !strings.Contains(body, `<p class="snippet passage">Acetylcysteine lowers oxidative stress in the liver.`) {
		t.Fatalf("the pack page has no passage:\n%s", body)
	}
}
