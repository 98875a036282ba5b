package web_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// longSite serves /long (a long essay: 160 paragraphs), /slow (held
// until release is closed) and /sample/N.
func longSite(release chan struct{}) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/long":
			var ps []string
			for i := 1; i <= 160; i++ {
				ps = append(ps, fmt.Sprintf("Paragraph %d opens with a plain line about tides. The passage number %d is the one a reader marks deep in the essay, far below the fold. It closes with a note on the moon.", i, i))
			}
			io.WriteString(w, article("A long essay on tides", ps...))
		case r.URL.Path == "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
			io.WriteString(w, article("A page that took its time", "Slow pages arrive in the end, and the inbox shows them when they do."))
		case strings.HasPrefix(r.URL.Path, "/sample/"):
			io.WriteString(w, article("Sample "+strings.TrimPrefix(r.URL.Path, "/sample/"), "A sample page with a sentence or two of text."))
		default:
			http.NotFound(w, r)
		}
	}))
}

// saveAndWait saves u through the ledger and waits until the worker of
// the app has parsed it; it returns the item's id.
func saveAndWait(t *testing.T, l *ledger.Ledger, u string) string {
	t.Helper()
	rec, err := l.Save(context.Background(), &record.Record{URL: u}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := l.Status(context.Background(), rec.ID)
		if err == nil && ledger.Ingest(st).Status == "parsed" {
			return rec.ID
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not parsed after 60 s", u)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestBrowserReaderKeepsPlace: deep in a long item, a person selects a
// passage and clicks Highlight, then pins it: the page stays where it
// was (scrollY unchanged, no new page), the mark is there.
func TestBrowserReaderKeepsPlace(t *testing.T) {
	exe := chromium(t)
	site := longSite(nil)
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	id := saveAndWait(t, l, site.URL+"/long")
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open), chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(a.base+"/items/"+id), chromedp.WaitVisible(chromedp.CSS("#text p")))
	passage := "The passage number 131 is the one a reader marks deep in the essay"
	selectText(t, ctx, passage)
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS("#selbar")))
	eval[bool](t, ctx, `window.__same = true`)
	y := eval[float64](t, ctx, `window.scrollY`)
	if y < 5000 {
		t.Fatalf("scrollY %v: the passage is not deep in the page", y)
	}
	t.Logf("the passage is at scrollY %.0f of %d", y, eval[int](t, ctx, `document.documentElement.scrollHeight`))
	run(t, ctx, chromedp.Click(chromedp.CSS(`#selbar button[data-type="highlight"]`)),
		chromedp.WaitVisible(chromedp.CSS("#text mark.highlight.human")))
	if got := eval[string](t, ctx, `document.querySelector('#text mark.highlight.human').textContent`); got != passage {
		t.Errorf("marked %q, want %q", got, passage)
	}
	if y2 := eval[float64](t, ctx, `window.scrollY`); math.Abs(y2-y) > 2 {
		t.Errorf("after Highlight scrollY %v, was %v", y2, y)
	}
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Error("Highlight loaded a new page")
	}
	run(t, ctx, chromedp.WaitVisible(chromedp.CSS("#toast")))
	if msg := eval[string](t, ctx, `document.getElementById('toast').textContent`); msg != "Annotation saved." {
		t.Errorf("the message: %q", msg)
	}
	shot(t, ctx, "reader-inplace")
	// pin it from the list beside the text (sticky, in view)
	run(t, ctx, chromedp.Click(chromedp.CSS(`#anns-box li.ann form[action$="/pin"] button`)),
		chromedp.WaitVisible(chromedp.CSS("#text mark.highlight.pinned")))
	if y2 := eval[float64](t, ctx, `window.scrollY`); math.Abs(y2-y) > 2 {
		t.Errorf("after pin scrollY %v, was %v", y2, y)
	}
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Error("pin loaded a new page")
	}
	rec, err := l.Show(context.Background(), id, ledger.ShowOptions{})
	if err != nil || len(rec.Annotations) != 1 || rec.Annotations[0].Text != passage || !rec.Annotations[0].Pinned || rec.Annotations[0].Actor != "human" {
		t.Errorf("stored: %+v %v", rec.Annotations, err)
	}
	// a cross-origin page's post (another local server, its own origin)
	// changes nothing: the fetch path is behind the same protection
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>evil</title><p>evil</p>`)
	}))
	defer evil.Close()
	run(t, ctx, chromedp.Navigate(evil.URL+"/"))
	eval[bool](t, ctx, fmt.Sprintf(`window.__r = ""; fetch(%q, {method: "POST", mode: "no-cors", credentials: "include",
		headers: {"Content-Type": "application/x-www-form-urlencoded", "Fragment": "reader"}, body: "type=highlight&quote=Paragraph+12+opens"}).then(r => window.__r = "sent " + r.type, e => window.__r = "failed " + e), true`,
		a.base+"/items/"+id+"/annotate"))
	var status string
	for i := 0; i < 100 && status == ""; i++ {
		time.Sleep(100 * time.Millisecond)
		status = eval[string](t, ctx, `window.__r`)
	}
	if status == "" {
		t.Fatal("the cross-origin fetch did not end")
	}
	if rec, _ := l.Show(context.Background(), id, ledger.ShowOptions{}); len(rec.Annotations) != 1 {
		t.Errorf("a cross-origin fetch (%s) added an annotation: %d", status, len(rec.Annotations))
	}
}

// TestBrowserInboxKeepsTyping: a person types a URL into the add form
// while an item waiting for the worker is ingested: the list shows it
// parsed without a reload, and what was typed is all there, still
// focused; the rest is typed and saved.
func TestBrowserInboxKeepsTyping(t *testing.T) {
	exe := chromium(t)
	release := make(chan struct{})
	site := longSite(release)
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Save(context.Background(), &record.Record{URL: site.URL + "/slow"}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open), chromedp.Navigate(a.base+"/"), chromedp.WaitVisible(chromedp.CSS(".item.pending")))
	eval[bool](t, ctx, `window.__same = true`)
	half := site.URL + "/sam"
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#add-url"), half), chromedp.SendKeys(chromedp.CSS("#add-note"), ""))
	run(t, ctx, chromedp.Focus(chromedp.CSS("#add-url")))
	close(release) // the worker's fetch ends: the item is parsed
	deadline := time.Now().Add(60 * time.Second)
	for !eval[bool](t, ctx, `document.querySelector('.item .state-parsed') !== null && document.querySelector('.item.pending') === null`) {
		if time.Now().After(deadline) {
			t.Fatalf("the inbox did not show the item parsed:\n%s", eval[string](t, ctx, `document.body.innerText`))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Fatal("the inbox reloaded")
	}
	if got := eval[string](t, ctx, `document.getElementById('add-url').value`); got != half {
		t.Errorf("the add form holds %q, want what was typed, %q", got, half)
	}
	if !eval[bool](t, ctx, `document.activeElement === document.getElementById('add-url')`) {
		t.Error("the add form lost the focus")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#counts').length`); n != 1 {
		t.Errorf("%d count sections", n)
	}
	shot(t, ctx, "inbox-live")
	run(t, ctx, chromedp.SendKeys(chromedp.CSS("#add-url"), "ple/7\n"), chromedp.WaitVisible(chromedp.CSS(".flash")))
	res, err := l.Find(context.Background(), ledger.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	saved := false
	for _, h := range res.Hits {
		saved = saved || h.URL == site.URL+"/sample/7"
	}
	if !saved {
		t.Errorf("the typed link was not saved: %d items", len(res.Hits))
	}
}

// TestBrowserReviewUndoAndTabs: a card shows its quote in its sentence;
// x rejects in place and u undoes it; two tabs show one annotation, the
// first confirms, the second's reject is refused with a message on its
// card and the annotation stays confirmed.
func TestBrowserReviewUndoAndTabs(t *testing.T) {
	exe := chromium(t)
	site := longSite(nil)
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bg := context.Background()
	id := saveAndWait(t, l, site.URL+"/long")
	hi, lo := 0.9, 0.5
	if _, err := l.Annotate(bg, id, []record.Annotation{
		{Type: record.AnnHighlight, Text: "passage number 7 is the one", Actor: "agent:r", Confidence: &hi},
		{Type: record.AnnHighlight, Text: "a note on the moon", Actor: "agent:r", Confidence: &lo},
	}, ledger.SaveOptions{Actor: "agent:r"}); err != nil {
		t.Fatal(err)
	}
	review := func(text string) string {
		rec, err := l.Show(bg, id, ledger.ShowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, an := range rec.Annotations {
			if an.Text == text {
				return an.Review
			}
		}
		t.Fatalf("no annotation %q", text)
		return ""
	}
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open), chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(a.base+"/review"), chromedp.WaitVisible(chromedp.CSS(".qitem.current")))
	if got := eval[string](t, ctx, `document.querySelector('.qitem.current blockquote').textContent`); got != "The passage number 7 is the one a reader marks deep in the essay, far below the fold." {
		t.Errorf("the card's context: %q", got)
	}
	shot(t, ctx, "review-context")
	eval[bool](t, ctx, `window.__same = true`)
	run(t, ctx, chromedp.KeyEvent("x"), chromedp.WaitVisible(chromedp.CSS(".qitem.decided.rejected")))
	if got := review("passage number 7 is the one"); got != "rejected" {
		t.Fatalf("after x: %q", got)
	}
	shot(t, ctx, "review-decided")
	run(t, ctx, chromedp.KeyEvent("u"), chromedp.WaitNotPresent(chromedp.CSS(".qitem.decided")))
	if got := review("passage number 7 is the one"); got != "" {
		t.Errorf("after u: %q, want undecided", got)
	}
	if !eval[bool](t, ctx, `window.__same === true`) {
		t.Error("deciding loaded a new page")
	}
	if got := eval[string](t, ctx, `document.querySelector('.qitem.current blockquote mark').textContent`); got != "passage number 7 is the one" {
		t.Errorf("after the undo the current card is %q", got)
	}

	// two pages on one annotation: a second window (its own browser
	// process: chromium's background tabs do not answer the test's
	// commands), signed in with the same link
	tab2 := browser(t, exe)
	run(t, tab2, chromedp.Navigate(a.open), chromedp.EmulateViewport(1100, 900), chromedp.Navigate(a.base+"/review"), chromedp.WaitVisible(chromedp.CSS(".qitem.current")))
	run(t, ctx, chromedp.Navigate(a.base+"/review"), chromedp.WaitVisible(chromedp.CSS(".qitem.current")))
	run(t, ctx, chromedp.KeyEvent("c"), chromedp.WaitVisible(chromedp.CSS(".qitem.decided.confirmed")))
	run(t, tab2, chromedp.KeyEvent("x"), chromedp.WaitVisible(chromedp.CSS(".qitem .card-error")))
	msg := eval[string](t, tab2, `document.querySelector('.qitem .card-error').textContent`)
	if !strings.Contains(msg, "changed since the page showed it") || !strings.Contains(msg, "confirmed by human") {
		t.Errorf("the second tab's message: %q", msg)
	}
	if got := review("passage number 7 is the one"); got != "confirmed" {
		t.Errorf("after the stale reject: %q, want confirmed", got)
	}
	shot(t, tab2, "review-stale")
	// at phone width, dark: a decided card with its Undo fits
	run(t, tab2, darkMode(true), chromedp.EmulateViewport(360, 780, chromedp.EmulateMobile), chromedp.Navigate(a.base+"/review"),
		chromedp.WaitVisible(chromedp.CSS(".qitem.current")), chromedp.KeyEvent("x"), chromedp.WaitVisible(chromedp.CSS(".qitem.decided.rejected")))
	if w := eval[int](t, tab2, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("the review page is %d px wide at 360", w)
	}
	shot(t, tab2, "review-decided-phone-dark")
	if got := review("a note on the moon"); got != "rejected" {
		t.Errorf("after x at 360 px: %q", got)
	}
}
