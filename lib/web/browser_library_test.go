package web_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// libraryLedger stores, in a new ledger at db, 25 short items on two
// sites and one long essay (tall enough to scroll), all parsed; it
// returns the essay's id.
func libraryLedger(t *testing.T, db string) string {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < 25; i++ {
		host := "birds.example"
		if i%3 == 0 {
			host = "www.coast.example"
		}
		u := fmt.Sprintf("https://%s/heron-%02d", host, i)
		rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle,
			Title: fmt.Sprintf("Heron note %02d", i), Excerpt: fmt.Sprintf("Note %02d on herons: where they wade, what they eat, and when they leave the marsh.", i),
			Tags: []string{"birds"}}
		rec.Chunks = []record.Chunk{{Index: 0, Text: fmt.Sprintf("Heron note %02d. ", i) + strings.Repeat("Herons wade in shallow water and wait. ", 40), Tokens: 320}}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.SaveRecord(ctx, &record.Record{ID: rec.ID, URL: u, Tags: []string{"birds", fmt.Sprintf("batch%d", i%2)}}, spec.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	u := "https://essays.example/the-sandpiper"
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle,
		Title: "The sandpiper's long year", Excerpt: "A long essay on a small bird that flies from the Arctic to the south and back every year."}
	for c := 0; c < 12; c++ {
		var ps []string
		for p := 0; p < 8; p++ {
			ps = append(ps, fmt.Sprintf("Paragraph %d. The sandpiper runs along the tide line, probing the wet sand for worms, and lifts off as one flock when a gull passes overhead.", c*8+p))
		}
		rec.Chunks = append(rec.Chunks, record.Chunk{Index: c, Text: strings.Join(ps, "\n\n"), Tokens: 300})
	}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// TestBrowserLibrary: a person pages through the library (26 items, two
// pages), opens the long essay (it becomes read), stars it in place
// without losing the place, reads down, leaves and comes back to the
// same place; finds it in Starred and Read; archives it, then searches
// words only it holds: the search says only archived items match and its
// link shows it; the Archive view lists it. Screenshots of the library
// and the archive at 1280 and 360 px and in dark mode.
func TestBrowserLibrary(t *testing.T) {
	exe := chromium(t)
	db := filepath.Join(t.TempDir(), "ll.db")
	essay := libraryLedger(t, db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base := "http://" + addr
	link, _ := uiAt(t, db, addr)
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	run(t, ctx, chromedp.EmulateViewport(1280, 900))

	// the library, by the menu; two pages, every item once
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`nav a[href="/library"]`))))
	ids := func() []string {
		return eval[[]string](t, ctx, `Array.from(document.querySelectorAll("li.libitem")).map(li => li.dataset.id)`)
	}
	one := ids()
	if len(one) != 20 {
		t.Fatalf("library page 1: %d items, want 20", len(one))
	}
	shot(t, ctx, "library")
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`a[rel="next"]`))))
	two := ids()
	if len(two) != 6 {
		t.Fatalf("library page 2: %d items, want 6", len(two))
	}
	seen := map[string]bool{}
	for _, id := range append(one, two...) {
		if seen[id] {
			t.Errorf("%s on both pages", id)
		}
		seen[id] = true
	}
	if !seen[essay] {
		t.Fatalf("the essay is on neither page")
	}
	// a site is a link to its items
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`a.site[href*="coast.example"]`))))
	if n := len(ids()); n != 9 {
		t.Errorf("site coast.example: %d items, want 9", n)
	}

	// open the essay from the library: it becomes read
	run(t, ctx, chromedp.Navigate(base+"/library?show=unread&q=sandpiper"), chromedp.WaitVisible(chromedp.CSS(`li.libitem`)))
	run(t, ctx, navigates(chromedp.Click(`li.libitem[data-id="`+essay+`"] h2 a`)))
	waitFor(t, ctx, `document.getElementById("readstate").textContent === "Mark unread"`)

	// read halfway down, then star it: the place stays
	eval[bool](t, ctx, `window.scrollTo(0, (document.documentElement.scrollHeight - innerHeight) * 0.6); true`)
	y := eval[float64](t, ctx, `window.scrollY`)
	if y < 500 {
		t.Fatalf("the essay is not tall enough to scroll: scrollY %v", y)
	}
	// (the Item card, with the button, stays in view beside the text)
	if !eval[bool](t, ctx, `(r => r.top >= 0 && r.bottom <= innerHeight)(document.getElementById("star").getBoundingClientRect())`) {
		t.Fatalf("the star button is not in view halfway down the essay")
	}
	eval[bool](t, ctx, `window.__same = true`)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#star`)))
	waitFor(t, ctx, `document.getElementById("star").getAttribute("aria-pressed") === "true"`)
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Errorf("starring reloaded the page")
	}
	if y2 := eval[float64](t, ctx, `window.scrollY`); y2 != y {
		t.Errorf("starring moved the page from %v to %v", y, y2)
	}
	shot(t, ctx, "reader-starred")
	time.Sleep(2500 * time.Millisecond) // the throttled progress report
	run(t, ctx, chromedp.Navigate(base+"/library?show=starred"), chromedp.WaitVisible(chromedp.CSS(`li.libitem`)))
	if got := ids(); len(got) != 1 || got[0] != essay {
		t.Errorf("starred: %v, want the essay only", got)
	}
	if !eval[bool](t, ctx, `document.querySelector("li.libitem .starmark") !== null`) {
		t.Errorf("the starred item has no star mark")
	}
	run(t, ctx, chromedp.Navigate(base+"/library?show=read"), chromedp.WaitVisible(chromedp.CSS(`li.libitem`)))
	if got := ids(); len(got) != 1 || got[0] != essay {
		t.Errorf("read: %v, want the essay only", got)
	}
	// back in the reader: the same place
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`li.libitem h2 a`))))
	waitFor(t, ctx, `window.scrollY > 0`)
	if y3 := eval[float64](t, ctx, `window.scrollY`); y3 < y*0.9 || y3 > y*1.1 {
		t.Errorf("reopened at scrollY %v, want about %v", y3, y)
	}

	// archive it (the reader's button); its words then match only archived items
	// (the reader posts it in place: the button turns to Unarchive, no navigation)
	run(t, ctx, chromedp.Click(chromedp.CSS(`form[action$="/archive"] button`)))
	waitFor(t, ctx, `document.querySelector('form[action$="/archive"] button').textContent.includes("Unarchive")`)
	run(t, ctx, chromedp.Navigate(base+"/search?q=sandpiper+tide"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	body := eval[string](t, ctx, `document.body.innerText`)
	if !strings.Contains(body, "Only archived items match") || strings.Contains(body, "Nothing matched") {
		t.Fatalf("search for the archived essay's words:\n%s", body)
	}
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`#show-archived`))))
	if got := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("li.result")).map(li => li.dataset.id)`); len(got) != 1 || got[0] != essay {
		t.Errorf("the archived matches: %v, want the essay", got)
	}
	// the Archive view
	run(t, ctx, chromedp.Navigate(base+"/library"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`nav.tabs a[href="/library?show=archived"]`))))
	if got := ids(); len(got) != 1 || got[0] != essay {
		t.Errorf("archive: %v, want the essay", got)
	}
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Archive" {
		t.Errorf("archive view's heading %q", h)
	}
	shot(t, ctx, "library-archive")
	// the library's words find it with an offer to show the archive
	run(t, ctx, chromedp.Navigate(base+"/library?q=sandpiper"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	if s := eval[string](t, ctx, `document.body.innerText`); !strings.Contains(s, "Only archived items match") {
		t.Errorf("library words of an archived item:\n%s", s)
	}

	// phone width and dark mode
	for _, v := range []struct {
		path, name string
		w          int64
		dark       bool
	}{
		{"/library", "library-phone", 360, false},
		{"/library?show=archived", "library-archive-phone", 360, false},
		{"/library", "library-dark", 1280, true},
		{"/library?show=archived", "library-archive-dark-phone", 360, true},
	} {
		run(t, ctx, chromedp.EmulateViewport(v.w, 800), darkMode(v.dark))
		run(t, ctx, chromedp.Navigate(base+v.path), chromedp.WaitVisible(chromedp.CSS(`h1`)))
		if wide := eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`); wide {
			t.Errorf("%s at %d px scrolls sideways", v.path, v.w)
		}
		shot(t, ctx, v.name)
	}
}

// waitFor waits until the script js is true (at most 20 s).
func waitFor(t *testing.T, ctx context.Context, js string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !eval[bool](t, ctx, js) {
		if time.Now().After(deadline) {
			t.Fatalf("not true after 20 s: %s\n%s", js, eval[string](t, ctx, `document.body.innerText`))
		}
		time.Sleep(100 * time.Millisecond)
	}
}
