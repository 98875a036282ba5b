package web_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/ledgertest"
	"github.com/linkledger/linkledger/lib/record"
)

// TestBrowserSearchRanking: `linkledger ui` started with an embeddings
// endpoint (the fake, by LINKLEDGER_EMBED_URL and _MODEL) ranks its
// search hybrid: a person types "NAC" and finds the item about
// acetylcysteine, which shares no word with it; then picks "lexical" in
// the ranking select with the keyboard, searches again, and it is gone;
// with the endpoint gone the page shows the lexical results and why.
func TestBrowserSearchRanking(t *testing.T) {
	exe := chromium(t)
	fake := httptest.NewServer(&embedfake.Server{})
	defer fake.Close()
	a := startUI(t, "LINKLEDGER_EMBED_URL="+fake.URL+"/v1", "LINKLEDGER_EMBED_MODEL=hash-64")
	st, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Index(t, st, "hash-64",
		ledgertest.Doc{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress in the lungs."},
		ledgertest.Doc{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter and a long rest."})
	st.Close()
	nac := record.ItemID("https://m.test/nac")

	ctx := browser(t, exe)
	run(t, ctx,
		chromedp.Navigate(a.open),
		chromedp.Navigate(a.base+"/search"),
		chromedp.SendKeys(chromedp.CSS("#q"), "NAC"),
		navigates(chromedp.Click(chromedp.CSS(`form.search button`))),
		chromedp.WaitVisible(chromedp.CSS(".result")),
	)
	ids := func() []string {
		return eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.result')).map(e => e.getAttribute('data-id'))`)
	}
	if got := ids(); len(got) == 0 || got[0] != nac {
		t.Errorf("hybrid: results %v, want %s first", got, nac)
	}
	if got := eval[string](t, ctx, `document.querySelector('.ranking').textContent`); got != "Ranked hybrid." {
		t.Errorf("hybrid: ranking line %q", got)
	}
	run(t, ctx, chromedp.Click(chromedp.CSS(`.result .why summary`)))
	shot(t, ctx, "search-ranking")

	// the select, as a person picks with the keyboard: focus it, type "l"
	run(t, ctx,
		chromedp.SendKeys(chromedp.CSS("#mode"), "l"),
		navigates(chromedp.Click(chromedp.CSS(`form.search button`))),
		chromedp.WaitVisible(chromedp.CSS(".ranking")),
	)
	if loc := eval[string](t, ctx, `location.search`); !strings.Contains(loc, "mode=lexical") {
		t.Errorf("lexical: the address %q does not keep the ranking", loc)
	}
	for _, id := range ids() {
		if id == nac {
			t.Errorf("lexical: NAC finds the item about acetylcysteine")
		}
	}
	if got := eval[string](t, ctx, `document.querySelector('.ranking').textContent`); got != "Ranked lexical." {
		t.Errorf("lexical: ranking line %q", got)
	}
	if got := eval[string](t, ctx, `document.querySelector('#mode').value`); got != "lexical" {
		t.Errorf("lexical: the select shows %q", got)
	}

	// the endpoint gone: the lexical results and the warning
	fake.Close()
	run(t, ctx, chromedp.Navigate(a.base+"/search?q=acetylcysteine+NAC"), chromedp.WaitVisible(chromedp.CSS(".warning")))
	if got := ids(); len(got) != 1 || got[0] != nac {
		t.Errorf("endpoint gone: results %v, want the lexical match %s", got, nac)
	}
	if got := eval[string](t, ctx, `document.querySelector('.warning').textContent`); !strings.HasPrefix(got, "embeddings endpoint: connection: cannot reach the embeddings endpoint 127.0.0.1:") || !strings.HasSuffix(got, ": lexical ranking") {
		t.Errorf("endpoint gone: warning %q", got)
	}
	shot(t, ctx, "search-ranking-warning")

	// the select and the warning fit a phone's width
	run(t, ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateMobile), chromedp.Navigate(a.base+"/search?q=acetylcysteine+NAC&mode=hybrid"), chromedp.WaitVisible(chromedp.CSS(".warning")))
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("the search page is %d px wide at 360", w)
	}
	shot(t, ctx, "search-ranking-phone")
}
