package web_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/exporter"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// exportTitle is a page title written to break out of Markdown.
const exportTitle = "# Owned <script>x</script> [click](javascript:alert(1))"

// TestBrowserInboxSearchAndExport: a person types a query into the
// inbox's own search box and lands on its results; filters the
// highlights page by a tag and downloads those highlights as Markdown;
// downloads one item's highlights from the reader. The files are the ones
// chromium saved, under the names it took from the answers.
func TestBrowserInboxSearchAndExport(t *testing.T) {
	exe := chromium(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/quokka":
			io.WriteString(w, article("The quokka's island", "Ten thousand quokkas live on Rottnest Island and smile at visitors.", "Nobody feeds them, by law."))
		case "/owned":
			io.WriteString(w, article(html.EscapeString(exportTitle), "A hostile page still has a sentence worth keeping.", "And a second one."))
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bg := context.Background()
	quokka, err := l.Save(bg, &record.Record{URL: site.URL + "/quokka", Tags: []string{"animals"}}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owned, err := l.Save(bg, &record.Record{URL: site.URL + "/owned", Tags: []string{"evil"}}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(120 * time.Second)
	for {
		c, err := l.StateCounts(bg)
		if err != nil {
			t.Fatal(err)
		}
		if c["parsed"] == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ingested: %v", c)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for id, text := range map[string]string{quokka.ID: "Ten thousand quokkas live on Rottnest Island", owned.ID: "A hostile page still has a sentence worth keeping."} {
		if _, err := l.Annotate(bg, id, []record.Annotation{{Type: record.AnnHighlight, Text: text, Actor: "human"}}, ledger.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	ctx := browser(t, exe)
	dir := t.TempDir()
	run(t, ctx, chromedp.Navigate(a.open))

	t.Run("the inbox has a search box", func(t *testing.T) {
		run(t, ctx,
			chromedp.Navigate(a.base+"/"),
			chromedp.SendKeys(chromedp.CSS("#inbox-q"), "quokkas"),
		)
		shot(t, ctx, "inbox-search")
		run(t, ctx,
			navigates(chromedp.SendKeys(chromedp.CSS("#inbox-q"), "\r")),
			chromedp.WaitVisible(chromedp.CSS(".result")),
		)
		if loc := eval[string](t, ctx, `location.pathname + location.search`); loc != "/search?q=quokkas" {
			t.Errorf("the inbox's search went to %s", loc)
		}
		ids := eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.result')).map(e => e.getAttribute('data-id'))`)
		if len(ids) != 1 || ids[0] != quokka.ID {
			t.Errorf("results %v, want %s alone", ids, quokka.ID)
		}
		if q := eval[string](t, ctx, `document.querySelector('#q').value`); q != "quokkas" {
			t.Errorf("the search page's box shows %q", q)
		}
	})

	// download clicks the link at css and returns the file chromium saved:
	// its name (the one it took from the answer) and content.
	download := func(t *testing.T, css string) (string, string) {
		t.Helper()
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		begin := chromedp.Events(c, cdpbrowser.DownloadWillBegin)
		progress := chromedp.Events(c, cdpbrowser.DownloadProgress)
		yes := true
		run(t, ctx,
			chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
					Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir, EventsEnabled: &yes})
				return err
			}),
			chromedp.Click(chromedp.CSS(css)),
		)
		var name string
		for ev, err := range begin {
			if err != nil {
				t.Fatalf("no download began: %v", err)
			}
			name = ev.SuggestedFilename
			break
		}
		for ev, err := range progress {
			if err != nil {
				t.Fatalf("download did not finish: %v", err)
			}
			if ev.State == cdpbrowser.DownloadProgressStateCompleted {
				break
			}
			if ev.State == cdpbrowser.DownloadProgressStateCanceled {
				t.Fatalf("download cancelled")
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("the downloaded file: %v", err)
		}
		return name, string(b)
	}

	t.Run("highlights filtered by a tag, downloaded", func(t *testing.T) {
		run(t, ctx,
			chromedp.Navigate(a.base+"/highlights"),
			chromedp.SendKeys(chromedp.CSS(`input[name="tag"]`), "evil"),
			navigates(chromedp.Click(chromedp.CSS(`form.filters button`))),
			chromedp.WaitVisible(chromedp.CSS("#export-all")),
		)
		shot(t, ctx, "highlights-export")
		name, md := download(t, "#export-all")
		if name != "linkledger-highlights.md" {
			t.Errorf("saved as %q", name)
		}
		for _, want := range []string{
			"# Highlights\n\nThe highlights with tag \"evil\", exported from linkledger at ",
			"## \\# Owned \\<script\\>x\\</script\\> \\[click\\](javascript:alert(1))\n\nSource: [http://127.0.0.1:",
			"- A hostile page still has a sentence worth keeping.  \n  — human, ",
		} {
			if !strings.Contains(md, want) {
				t.Errorf("the file lacks %q:\n%s", want, md)
			}
		}
		if strings.Contains(md, "quokka") {
			t.Errorf("the file has a highlight the filter leaves out:\n%s", md)
		}
	})

	t.Run("one item's highlights from the reader", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(a.base+"/items/"+quokka.ID), chromedp.WaitVisible(chromedp.CSS("#export-item")))
		name, md := download(t, "#export-item")
		if want := exporter.FileName("The quokka's island", quokka.ID); name != want {
			t.Errorf("saved as %q, want %q", name, want)
		}
		if !strings.HasPrefix(md, "# Highlights: The quokka's island\n") || !strings.Contains(md, "- Ten thousand quokkas live on Rottnest Island  \n  — human, ") || strings.Contains(md, "hostile") {
			t.Errorf("the item's file:\n%s", md)
		}
	})

	// the History page at a desktop's and a phone's width: no word of
	// the when, what and who columns or of a detail's label is broken
	// over two lines (they were, with overflow-wrap: anywhere)
	t.Run("history keeps words whole", func(t *testing.T) {
		if _, err := l.Tag(bg, quokka.ID, []string{"marsupials"}, nil, ledger.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		broken := `(() => { const out = []; for (const el of document.querySelectorAll('.history td:nth-child(-n+3), .history dt')) {
			const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT); let n;
			while ((n = w.nextNode())) { const re = /\S+/g; let m;
				while ((m = re.exec(n.data))) { const r = document.createRange(); r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
					const tops = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top))); if (tops.size > 1) out.push(m[0]); } } }
			return out; })()`
		for _, width := range []int64{1100, 360} {
			run(t, ctx, chromedp.EmulateViewport(width, 900), chromedp.Navigate(a.base+"/items/"+quokka.ID+"/history"), chromedp.WaitVisible(chromedp.CSS(".history")))
			if got := eval[[]string](t, ctx, broken); len(got) > 0 {
				t.Errorf("at %d px these words are broken over two lines: %q", width, got)
			}
			if got := eval[string](t, ctx, `document.querySelector('.history').innerText`); !strings.Contains(got, "tag “marsupials” added") || strings.Contains(got, "{}") {
				t.Errorf("at %d px the history says:\n%s", width, got)
			}
			if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > int(width) {
				t.Errorf("the history page is %d px wide at %d", w, width)
			}
			shot(t, ctx, fmt.Sprintf("history-%d", width))
		}
	})

	// a pack made in the browser cites nothing: the Reuse page says so
	// and shows no share
	t.Run("reuse after a pack", func(t *testing.T) {
		run(t, ctx,
			chromedp.EmulateViewport(1100, 900),
			chromedp.Navigate(a.base+"/packs"),
			chromedp.SendKeys(chromedp.CSS("#pn"), "quokka-pack"),
			chromedp.SendKeys(chromedp.CSS("#pq"), "quokkas"),
			navigates(chromedp.Click(chromedp.CSS(`form[action="/packs"] button`))),
			chromedp.Navigate(a.base+"/reuse"),
			chromedp.WaitVisible(chromedp.CSS("#reuse-figure")),
		)
		if got := eval[string](t, ctx, `document.querySelector('#reuse-figure').textContent`); got != "No citations yet, so no reuse share to show: 1 pack names a task but cites nothing. Of 2 items saved, none was cited yet." {
			t.Errorf("reuse: %q", got)
		}
		if eval[bool](t, ctx, `document.querySelector('#share-bar') !== null`) {
			t.Error("reuse shows a share bar with no citation")
		}
		shot(t, ctx, "reuse-uncited")
	})
}
