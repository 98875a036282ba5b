package web_test

// Browser tests: the real chromium, driven with chromedp, acting as a
// person does (typing, clicking, selecting with the mouse, pressing keys)
// against the real `linkledger ui` (run in process with the in-process
// filters, so its background worker ingests pages of a local server).
// They skip only when no chromium binary is installed (make setup
// installs it). Screenshots of each page are taken on every run; with
// -update they are written to docs/ui/.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/chromedp/cdproto/cdp"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/linkledger/inprocess"
	"github.com/linkledger/linkledger/lib/internal/golden"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// chromium finds the installed browser; chromedp never downloads one.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium binary on PATH: the browser tests need it (make setup installs it)")
	return ""
}

const sentence = "Local-first tools keep a person's reading close at hand."

// pages is the local site the worker fetches from.
type pages struct {
	*httptest.Server
	flakyOK atomic.Bool
}

func article(title string, paras ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html><html><head><title>%s</title></head><body><article><h1>%s</h1>", title, title)
	for _, p := range paras {
		fmt.Fprintf(&b, "<p>%s</p>", p)
	}
	b.WriteString("</article></body></html>")
	return b.String()
}

func newPages() *pages {
	p := &pages{}
	filler := "Readers save links for later and rarely return to them, which is why a ledger keeps the text and the marks together in one place."
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch {
		case r.URL.Path == "/post":
			io.WriteString(w, article("Why local-first reading matters",
				"Links pile up faster than anyone reads them. "+sentence+" Agents can read the same text without fetching it again.",
				filler, filler+" A second paragraph adds to the argument.",
				"Highlights made by a person and by an agent are told apart, so a reviewer knows whose judgement a mark is."))
		case r.URL.Path == "/flaky":
			if !p.flakyOK.Load() {
				http.Error(w, "not yet", http.StatusNotFound)
				return
			}
			io.WriteString(w, article("A page that came back", filler, filler+" It was missing at first."))
		case strings.HasPrefix(r.URL.Path, "/sample/"):
			n := strings.TrimPrefix(r.URL.Path, "/sample/")
			io.WriteString(w, article("Walrus sample "+n, "The walrus sample number "+n+" is about tusks and ice. "+filler))
		case r.URL.Path == "/evil":
			io.WriteString(w, article(`<script>window.__pwned=1</script>`, filler))
		default:
			http.NotFound(w, r)
		}
	}))
	return p
}

// app is a running `linkledger ui`.
type app struct {
	base, open string
	db         string
}

// startUI starts `linkledger ui` on a fresh ledger, with the environment
// and extra, KEY=VALUE settings that take precedence.
func startUI(t *testing.T, extra ...string) *app {
	t.Helper()
	db := filepath.Join(t.TempDir(), "ll.db")
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb bytes.Buffer
	done := make(chan int, 1)
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: pw, Stderr: &errb, Getenv: func(k string) string {
		if k == "LINKLEDGER_DB" {
			return db
		}
		for _, kv := range extra {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return os.Getenv(k)
	}, Getwd: os.Getwd}
	go func() {
		done <- linkledger.Run(ctx, inprocess.Filters(), env, []string{"linkledger", "ui", "--addr", "127.0.0.1:0"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("linkledger ui printed no URL: %v", err)
	}
	go io.Copy(io.Discard, pr)
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("linkledger ui exit %d", code)
		}
		if t.Failed() {
			t.Logf("linkledger ui stderr:\n%s", errb.String())
		}
	})
	u, _ := url.Parse(strings.TrimSpace(line))
	return &app{base: "http://" + u.Host, open: strings.TrimSpace(line), db: db}
}

// browser starts chromium headless with a fresh profile and no network
// beyond loopback.
func browser(t *testing.T, exe string) context.Context {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Headless, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-pings", true),
		// no name resolves: the tests only open 127.0.0.1
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1100, 900),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// run runs actions with a time limit.
func run(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		c2, cancel2 := context.WithTimeout(ctx, 5*time.Second)
		defer cancel2()
		loc, _ := chromedp.Run(c2, chromedp.Location())
		body, _ := chromedp.Run(c2, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		t.Fatalf("browser: %v\nat %s:\n%s", err, loc, body)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("eval %s: %v", js, err)
	}
	return v
}

// until reloads url until the page has an element matching css.
func until(t *testing.T, ctx context.Context, u, css string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		run(t, ctx, chromedp.Navigate(u))
		if eval[bool](t, ctx, fmt.Sprintf(`document.querySelector(%q) !== null`, css)) {
			return
		}
		if time.Now().After(deadline) {
			body := eval[string](t, ctx, `document.body.innerText`)
			t.Fatalf("%s: no %s after 60 s:\n%s", u, css, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// shot takes a screenshot of the viewport: a PNG that decodes, written to
// docs/ui/NAME.png with -update.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	b, err := chromedp.Run(c, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil || img.Bounds().Dx() < 300 {
		t.Fatalf("screenshot %s: not a page-sized PNG: %v", name, err)
	}
	if golden.Update() {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "ui", name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// navigates runs the steps (a click, a key) and waits for the new page
// they load: the old document is marked, and gone once the new one is
// ready.
func navigates(steps ...chromedp.Action[chromedp.Void]) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Evaluate[bool](`window.__old = true`)(ctx, t); err != nil {
			return err
		}
		for _, st := range steps {
			if _, err := st(ctx, t); err != nil {
				return err
			}
		}
		for {
			fresh, err := chromedp.Evaluate[bool](`window.__old !== true && document.readyState === "complete"`)(ctx, t)
			if err == nil && fresh {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

func buttonsLeft(p *input.DispatchMouseEventParams) {
	p.Button = input.MouseButtonLeft
	p.Buttons = 1
}

// selectText selects s in the reader's text with the mouse: press at its
// first character, drag to its last, release.
func selectText(t *testing.T, ctx context.Context, s string) {
	t.Helper()
	js := fmt.Sprintf(`(function(s){
		const w = document.createTreeWalker(document.getElementById('text'), NodeFilter.SHOW_TEXT);
		let n;
		while ((n = w.nextNode())) {
			const i = n.data.indexOf(s);
			if (i < 0) continue;
			n.parentElement.scrollIntoView({block: 'center'});
			const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + s.length);
			const rs = r.getClientRects(); const a = rs[0], b = rs[rs.length - 1];
			return [a.left + 1, a.top + a.height / 2, b.right - 1, b.top + b.height / 2];
		}
		return [];
	})(%q)`, s)
	xy := eval[[]float64](t, ctx, js)
	if len(xy) != 4 {
		t.Fatalf("%q is not in the reader's text", s)
	}
	run(t, ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[1], buttonsLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (xy[0]+xy[2])/2, (xy[1]+xy[3])/2, buttonsLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[2], xy[3], buttonsLeft),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[2], xy[3], buttonsLeft, chromedp.ClickCount(1)),
	)
}

func darkMode(on bool) chromedp.Action[chromedp.Void] {
	v := "light"
	if on {
		v = "dark"
	}
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: v}}})
		return err
	})
}

func TestBrowser(t *testing.T) {
	exe := chromium(t)
	site := newPages()
	defer site.Close()
	a := startUI(t)
	l, err := ledger.Open(context.Background(), a.db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bg := context.Background()
	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(a.open))

	// Chromium compiles pattern with the v flag; an invalid one is ignored
	// (any name passed the form)
	t.Run("the pack name pattern is checked", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(a.base+"/packs"))
		js := `(() => { const i = document.querySelector('#pn'); const r = []; for (const v of ["bad name", "a/b", "my-topic_2.0"]) { i.value = v; r.push(i.validity.patternMismatch); } return r.join(","); })()`
		if got := eval[string](t, ctx, js); got != "true,true,false" {
			t.Errorf("patternMismatch for bad name, a/b, my-topic_2.0: %s, want true,true,false", got)
		}
	})

	var itemID string
	t.Run("save with the add form, ingested in the background", func(t *testing.T) {
		run(t, ctx,
			chromedp.Navigate(a.base+"/"),
			chromedp.SendKeys(chromedp.CSS("#add-url"), site.URL+"/post"),
			chromedp.SendKeys(chromedp.CSS("#add-tags"), "reading"),
			navigates(chromedp.Click(chromedp.CSS(`form[action="/save"] button`))),
			chromedp.WaitVisible(chromedp.CSS(".flash")),
		)
		until(t, ctx, a.base+"/", `.item .state-parsed`)
		itemID = eval[string](t, ctx, `document.querySelector('.item[data-id]').getAttribute('data-id')`)
		title := eval[string](t, ctx, `document.querySelector('.item[data-id] a').textContent`)
		if title != "Why local-first reading matters" {
			t.Errorf("inbox shows %q, want the parsed title", title)
		}
		shot(t, ctx, "inbox")
	})

	t.Run("select a sentence in the reader and highlight it", func(t *testing.T) {
		run(t, ctx,
			navigates(chromedp.Click(chromedp.CSS(`.item[data-id] a`))),
			chromedp.WaitVisible(chromedp.CSS("#text p")),
		)
		selectText(t, ctx, sentence)
		run(t, ctx, chromedp.WaitVisible(chromedp.CSS("#selbar")))
		if q := eval[string](t, ctx, `document.getElementById('quote').value`); q != sentence {
			t.Fatalf("selection gave %q, want %q", q, sentence)
		}
		// in place (inplace.js): no new page, the mark swapped in
		run(t, ctx,
			chromedp.Click(chromedp.CSS(`#selbar button[data-type="highlight"]`)),
			chromedp.WaitVisible(chromedp.CSS("mark.highlight.human")),
		)
		if got := eval[string](t, ctx, `document.querySelector('mark.highlight.human').textContent`); got != sentence {
			t.Errorf("marked %q, want %q", got, sentence)
		}
		// ll-find's service call finds it, by human
		res, err := l.Find(bg, ledger.FindOptions{Query: "local-first reading", Actor: "human"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, h := range res.Hits {
			if h.ID != itemID || h.Hit == nil {
				continue
			}
			for _, hl := range h.Hit.Highlights {
				if hl.Text == sentence && hl.Actor == "human" {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("find does not show the highlight by human: %+v", res.Hits)
		}
		shot(t, ctx, "reader")
	})

	t.Run("review queue by keyboard", func(t *testing.T) {
		good, bad := "Agents can read the same text without fetching it again.", "Links pile up faster than anyone reads them."
		hi, lo := 0.9, 0.6
		if _, err := l.Annotate(bg, itemID, []record.Annotation{
			{Type: record.AnnHighlight, Text: good, Actor: "agent:test", Confidence: &hi},
			{Type: record.AnnHighlight, Text: bad, Actor: "agent:test", Confidence: &lo},
		}, ledger.SaveOptions{Actor: "agent:test"}); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, chromedp.Navigate(a.base+"/review"), chromedp.WaitVisible(chromedp.CSS(".qitem.current")))
		shot(t, ctx, "review")
		if first := eval[string](t, ctx, `document.querySelector('.qitem.current blockquote mark').textContent`); first != good {
			t.Fatalf("first in the queue %q, want the best, %q", first, good)
		}
		run(t, ctx, chromedp.KeyEvent("?"), chromedp.WaitVisible(chromedp.CSS("#keyhelp")), chromedp.KeyEvent("?"))
		// decided in place: the card says so, the next one is current
		run(t, ctx, chromedp.KeyEvent("c"), chromedp.WaitVisible(chromedp.CSS(".qitem.decided.confirmed")))
		if cur := eval[string](t, ctx, `document.querySelector('.qitem.current blockquote mark').textContent`); cur != bad {
			t.Fatalf("after c the current one is %q, want %q", cur, bad)
		}
		run(t, ctx, chromedp.KeyEvent("x"), chromedp.WaitVisible(chromedp.CSS(".qitem.decided.rejected")))
		show, err := l.Show(bg, itemID, ledger.ShowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		states := map[string]string{}
		for _, an := range show.Annotations {
			states[an.Text] = an.Review
		}
		if states[good] != "confirmed" || states[bad] != "rejected" {
			t.Errorf("review states %v", states)
		}
		// the rejected one leaves find
		res, err := l.Find(bg, ledger.FindOptions{Query: "links pile"})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.Hit == nil {
				continue
			}
			for _, hl := range h.Hit.Highlights {
				if hl.Text == bad {
					t.Errorf("find still serves the rejected highlight")
				}
			}
		}
	})

	t.Run("promote an agent tag", func(t *testing.T) {
		if _, err := l.Tag(bg, itemID, []string{"local-first"}, nil, ledger.SaveOptions{Actor: "agent:test"}); err != nil {
			t.Fatal(err)
		}
		run(t, ctx, chromedp.Navigate(a.base+"/items/"+itemID), chromedp.WaitVisible(chromedp.CSS(".tag.agent")))
		run(t, ctx, chromedp.Click(chromedp.CSS(`.tag.agent button[aria-label="Promote tag local-first"]`)),
			chromedp.WaitNotPresent(chromedp.CSS(`.tag.agent button[aria-label="Promote tag local-first"]`)))
		show, err := l.Show(bg, itemID, ledger.ShowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ok := false
		for _, tg := range show.Tagged {
			if tg.Tag == "local-first" && tg.Review == "confirmed" {
				ok = true
			}
		}
		if !ok {
			t.Errorf("tag not confirmed: %+v", show.Tagged)
		}
	})

	t.Run("a failed item retried", func(t *testing.T) {
		run(t, ctx,
			chromedp.Navigate(a.base+"/"),
			chromedp.SendKeys(chromedp.CSS("#add-url"), site.URL+"/flaky"),
			navigates(chromedp.Click(chromedp.CSS(`form[action="/save"] button`))),
			chromedp.WaitVisible(chromedp.CSS(".flash")),
		)
		until(t, ctx, a.base+"/", `.item.failed form button`)
		if msg := eval[string](t, ctx, `document.querySelector('.item.failed .error').textContent`); !strings.Contains(msg, "404") {
			t.Errorf("the failed item shows %q, want the real error", msg)
		}
		if n := eval[string](t, ctx, `document.querySelector('.item.failed p.muted').textContent`); !strings.HasPrefix(n, "1 attempt") || strings.HasPrefix(n, "1 attempts") {
			t.Errorf("the failed item's count reads %q, want 1 attempt", n)
		}
		shot(t, ctx, "inbox-failed")
		site.flakyOK.Store(true)
		run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`.item.failed form button`))), chromedp.WaitVisible(chromedp.CSS(".flash")))
		deadline := time.Now().Add(60 * time.Second)
		for {
			st, err := l.Status(bg, site.URL+"/flaky")
			if err != nil {
				t.Fatal(err)
			}
			if ledger.Ingest(st).Status == "parsed" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not ingested after the retry: %+v", st)
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("search with filters and stable paging", func(t *testing.T) {
		for i := 1; i <= 25; i++ {
			rec := &record.Record{URL: fmt.Sprintf("%s/sample/%d", site.URL, i)}
			if i%2 == 1 {
				rec.Tags = []string{"odd"}
			}
			if _, err := l.Save(bg, rec, ledger.SaveOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(120 * time.Second)
		for {
			c, err := l.StateCounts(bg)
			if err != nil {
				t.Fatal(err)
			}
			if c["saved"] == 0 && c["parsed"] >= 26 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("samples not ingested: %v", c)
			}
			time.Sleep(300 * time.Millisecond)
		}
		run(t, ctx,
			chromedp.Navigate(a.base+"/search"),
			chromedp.SendKeys(chromedp.CSS("#q"), "walrus tusks"),
			navigates(chromedp.Click(chromedp.CSS(`form.search button`))),
			chromedp.WaitVisible(chromedp.CSS(".result")),
		)
		ids := func() []string {
			return eval[[]string](t, ctx, `Array.from(document.querySelectorAll('.result')).map(e => e.getAttribute('data-id'))`)
		}
		page1 := ids()
		if len(page1) != 20 {
			t.Fatalf("page 1 has %d results, want 20", len(page1))
		}
		if n := eval[int](t, ctx, `document.querySelectorAll('.result mark').length`); n == 0 {
			t.Errorf("no matched word is marked")
		}
		shot(t, ctx, "search")
		run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`a[rel="next"]`))), chromedp.WaitVisible(chromedp.CSS(".result")))
		page2 := ids()
		if len(page2) != 5 {
			t.Errorf("page 2 has %d results, want 5", len(page2))
		}
		seen := map[string]bool{}
		for _, id := range page1 {
			seen[id] = true
		}
		for _, id := range page2 {
			if seen[id] {
				t.Errorf("page 2 repeats %s of page 1", id)
			}
		}
		// a tag filter, typed into the filters
		run(t, ctx,
			chromedp.Navigate(a.base+"/search?q=walrus"),
			chromedp.Click(chromedp.CSS(`form.search summary`)),
			chromedp.SendKeys(chromedp.CSS(`input[name="tags"]`), "odd"),
			navigates(chromedp.Click(chromedp.CSS(`form.search button`))),
			chromedp.WaitVisible(chromedp.CSS(".result")),
		)
		if got := len(ids()); got != 13 {
			loc := eval[string](t, ctx, `location.href`)
			t.Errorf("tag odd: %d results, want 13 (at %s)", got, loc)
		}
		if eval[bool](t, ctx, `document.querySelector('a[rel="next"]') !== null`) {
			t.Errorf("13 results have a next page")
		}
	})

	t.Run("highlights, packs, reuse, bookmarklet pages", func(t *testing.T) {
		run(t, ctx, chromedp.Navigate(a.base+"/highlights?actor=human"), chromedp.WaitVisible(chromedp.CSS(".anns li")))
		if got := eval[string](t, ctx, `document.querySelector('.anns li blockquote').textContent`); got != sentence {
			t.Errorf("highlights by people: first %q", got)
		}
		shot(t, ctx, "highlights")
		run(t, ctx,
			chromedp.Navigate(a.base+"/packs"),
			chromedp.SendKeys(chromedp.CSS("#pn"), "walrus-pack"),
			chromedp.SendKeys(chromedp.CSS("#pq"), "walrus"),
			navigates(chromedp.Click(chromedp.CSS(`form[action="/packs"] button`))),
			chromedp.WaitVisible(chromedp.CSS(".result")),
		)
		shot(t, ctx, "pack")
		run(t, ctx, navigates(chromedp.Click(chromedp.CSS(`form[action$="/refresh"] button`))), chromedp.WaitVisible(chromedp.CSS(".flash")))
		// a pack cites nothing: no share is shown, and the page says why
		run(t, ctx, chromedp.Navigate(a.base+"/reuse"), chromedp.WaitVisible(chromedp.CSS("#reuse-figure")))
		if got := eval[string](t, ctx, `document.querySelector('#reuse-figure').textContent`); !strings.HasPrefix(got, "No citations yet, so no reuse share to show: 1 pack names a task but cites nothing.") {
			t.Errorf("reuse after a pack: %q", got)
		}
		shot(t, ctx, "reuse")
		run(t, ctx, chromedp.Navigate(a.base+"/bookmarklet"), chromedp.WaitVisible(chromedp.CSS("#bookmarklet")))
		href := eval[string](t, ctx, `document.getElementById('bookmarklet').getAttribute('href')`)
		if !strings.HasPrefix(href, "javascript:") || !strings.Contains(href, "/capture?bt=") {
			t.Errorf("bookmarklet href %q", href)
		}
		shot(t, ctx, "bookmarklet")
	})

	t.Run("capture from the bookmarklet's window", func(t *testing.T) {
		// what the bookmarklet opens, in a fresh browser context (no cookie)
		href := eval[string](t, ctx, `document.getElementById('bookmarklet').getAttribute('href')`)
		start := strings.Index(href, "http://")
		end := strings.Index(href[start:], "&url=")
		capture := href[start:start+end] + "&url=" + url.QueryEscape(site.URL+"/sample/99") + "&title=Captured&sel=" + url.QueryEscape("tusks and ice")
		fresh := browser(t, exe)
		run(t, fresh, chromedp.Navigate(capture), chromedp.WaitVisible(chromedp.CSS("#c-save")))
		shot(t, fresh, "capture")
		run(t, fresh, chromedp.SendKeys(chromedp.CSS("#c-tags"), "captured"), navigates(chromedp.Click(chromedp.CSS("#c-save"))), chromedp.WaitVisible(chromedp.CSS("#close-window")))
		show, err := l.Show(bg, site.URL+"/sample/99", ledger.ShowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(show.Annotations) != 1 || show.Annotations[0].Text != "tusks and ice" || show.Annotations[0].Actor != "human" || len(show.Tags) == 0 {
			t.Errorf("captured item: %+v", show)
		}
		// the capture token opens nothing else
		run(t, fresh, chromedp.Navigate(a.base+"/"))
		if body := eval[string](t, fresh, `document.body.innerText`); !strings.Contains(body, "Sign in") || strings.Contains(body, "Captured") {
			t.Errorf("the inbox without a session: %q", body)
		}
	})

	t.Run("script in a title, highlight or note does not run", func(t *testing.T) {
		evil := `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">`
		rec, err := l.Save(bg, &record.Record{URL: site.URL + "/evil", Title: evil, Note: evil, Tags: []string{"evil"},
			Annotations: []record.Annotation{{Type: record.AnnNote, Text: evil, Actor: "agent:x"}}}, ledger.SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		until(t, ctx, a.base+"/items/"+rec.ID, `.state-parsed`)
		if _, err := l.Annotate(bg, rec.ID, []record.Annotation{{Type: record.AnnHighlight, Text: evil, Actor: "agent:x"}}, ledger.SaveOptions{Actor: "agent:x"}); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("a highlight not in the text is refused: %v", err)
		}
		for _, p := range []string{"/", "/items/" + rec.ID, "/highlights?type=note", "/review", "/search?q=pwned"} {
			run(t, ctx, chromedp.Navigate(a.base+p))
			if eval[bool](t, ctx, `window.__pwned === 1`) {
				t.Errorf("%s: stored script ran", p)
			}
		}
		run(t, ctx, chromedp.Navigate(a.base+"/items/"+rec.ID))
		if txt := eval[string](t, ctx, `document.querySelector('h1').textContent`); !strings.Contains(txt, "<script>") {
			t.Errorf("the title is not shown as text: %q", txt)
		}
	})

	t.Run("narrow and dark", func(t *testing.T) {
		run(t, ctx, chromedp.EmulateViewport(360, 780, chromedp.EmulateMobile), chromedp.Navigate(a.base+"/items/"+itemID), chromedp.WaitVisible(chromedp.CSS("#text")))
		if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
			t.Errorf("the reader is %d px wide at 360", w)
		}
		shot(t, ctx, "reader-phone")
		run(t, ctx, chromedp.EmulateViewport(1100, 900), darkMode(true), chromedp.Navigate(a.base+"/"))
		if bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`); bg == "rgb(253, 253, 251)" {
			t.Errorf("dark mode keeps the light background")
		}
		shot(t, ctx, "inbox-dark")
		run(t, ctx, darkMode(false))
	})
}
