package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// TestBrowserStructure: a page with every structure, saved through the
// add form and ingested by the worker, reads in the real browser with its
// headings, lists, code lines, table, figure and quote, with a highlight
// across a paragraph break, an overlapping lowlight and a note's quote
// marked; at 360 px nothing spills out of the page, and dark mode keeps
// the code and table readable. Screenshots: reader-structure*.png.
func TestBrowserStructure(t *testing.T) {
	exe := chromium(t)
	page, err := os.ReadFile("testdata/structure.html")
	if err != nil {
		t.Fatal(err)
	}
	var imageAsked bool
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ingest fetches the image to store it (it gets this HTML, no
		// image, and the reader shows the alt text); the browser must not
		if r.URL.Path == "/img/chart.png" && !strings.HasPrefix(r.UserAgent(), "linkledger/") {
			imageAsked = true
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open),
		chromedp.Navigate(a.base+"/"),
		chromedp.SendKeys(chromedp.CSS("#add-url"), site.URL+"/sorts"),
		navigates(chromedp.Click(chromedp.CSS(`form[action="/save"] button`))),
		chromedp.WaitVisible(chromedp.CSS(".flash")),
	)
	until(t, ctx, a.base+"/", `.item .state-parsed`)
	id := eval[string](t, ctx, `document.querySelector('.item[data-id]').getAttribute('data-id')`)
	if _, err := l.Annotate(context.Background(), id, []record.Annotation{
		{Type: record.AnnHighlight, Text: "hides most of that noise.\n\nThat is why the median", Actor: "human"},
		{Type: record.AnnLowlight, Text: "That is why the median was used throughout", Actor: "agent:r"},
		{Type: record.AnnNote, Text: "check this\n\n> copy it before each run", Actor: "human"},
	}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}

	run(t, ctx, chromedp.EmulateViewport(1100, 900), chromedp.Navigate(a.base+"/items/"+id), chromedp.WaitVisible(chromedp.CSS("#text .doc")))
	checks := map[string]string{
		"headings":          `[...document.querySelectorAll('#text h2, #text h3, #text h4')].map(h => h.tagName + ':' + h.textContent).join('|')`,
		"ordered items":     `String(document.querySelectorAll('#text ol > li').length)`,
		"list items":        `String(document.querySelectorAll('#text ul > li').length)`,
		"code lines":        `String(document.querySelector('#text pre code').textContent.split('\n').length)`,
		"table cells":       `String(document.querySelectorAll('#text table th, #text table td').length)`,
		"figure":            `document.querySelector('#text figure figcaption').textContent`,
		"quote":             `document.querySelector('#text blockquote').textContent.trim().slice(0, 26)`,
		"formula":           `[...document.querySelectorAll('#text p code')].map(c => c.textContent).join('|')`,
		"highlight parts":   `String(document.querySelectorAll('#text mark.highlight').length)`,
		"lowlight in it":    `String(document.querySelectorAll('#text mark.highlight > mark.lowlight.inner').length)`,
		"note's quote":      `document.querySelector('#text mark.note') ? document.querySelector('#text mark.note').textContent : ''`,
		"page scripts":      `String([...document.scripts].filter(s => !s.src).length)`,
		"javascript: links": `String([...document.querySelectorAll('#text a')].filter(a => !a.href.startsWith('http')).length)`,
		"inline handlers":   `String([...document.querySelectorAll('#text *')].filter(e => [...e.attributes].some(x => x.name.startsWith('on'))).length)`,
	}
	want := map[string]string{
		"headings":          "H2:The setup|H3:The code|H2:Results|H4:A note on variance",
		"ordered items":     "3",
		"list items":        "2",
		"code lines":        "6",
		"table cells":       "12",
		"figure":            "Figure 1: median times of the three sorts, lower is better.",
		"quote":             "Premature optimisation is ",
		"formula":           `n \log n`,
		"highlight parts":   "2",
		"lowlight in it":    "1",
		"note's quote":      "copy it before each run",
		"page scripts":      "0",
		"javascript: links": "0",
		"inline handlers":   "0",
	}
	for name, js := range checks {
		if got := eval[string](t, ctx, js); got != want[name] {
			t.Errorf("%s: %q, want %q", name, got, want[name])
		}
	}
	eval[bool](t, ctx, `document.querySelector('#text blockquote').scrollIntoView(), true`)
	shot(t, ctx, "reader-structure")

	// phone width: the table and code scroll inside their boxes
	run(t, ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateMobile), chromedp.Navigate(a.base+"/items/"+id), chromedp.WaitVisible(chromedp.CSS("#text .doc")))
	if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
		t.Errorf("the structured reader is %d px wide at 360", w)
	}
	eval[bool](t, ctx, `document.querySelector('#text h3').scrollIntoView(), true`)
	shot(t, ctx, "reader-structure-phone")
	run(t, ctx, darkMode(true), chromedp.Navigate(a.base+"/items/"+id), chromedp.WaitVisible(chromedp.CSS("#text .doc")))
	eval[bool](t, ctx, `document.querySelector('#text h2:nth-of-type(2)').scrollIntoView(), true`)
	pre := eval[string](t, ctx, `getComputedStyle(document.querySelector('#text pre')).backgroundColor + ' ' + getComputedStyle(document.querySelector('#text pre')).color`)
	if strings.Contains(pre, "rgb(243, 244, 241) rgb(29, 31, 33)") || !strings.Contains(pre, "rgb(32, 35, 40)") {
		t.Errorf("dark mode code block colours %s, want the dark card", pre)
	}
	shot(t, ctx, "reader-structure-dark")
	run(t, ctx, darkMode(false), chromedp.EmulateViewport(1100, 900))
	if imageAsked {
		t.Errorf("the reader loaded the page's image from its site")
	}
}
