package web_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/web"
)

// deviceTokens are the test's device tokens (secret → name, scope), given
// to the served app as its SignIn and TokenScope (the lead wires the
// ledger's token API at merge).
type deviceTokens struct {
	mu sync.Mutex
	m  map[string][2]string
}

func (d *deviceTokens) signIn(_ context.Context, secret string) (string, string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.m[secret]; ok {
		return v[0], v[1], nil
	}
	return "", "", errors.New("unknown token")
}

func (d *deviceTokens) scope(_ context.Context, name string) (string, bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, v := range d.m {
		if v[0] == name {
			return v[1], true, nil
		}
	}
	return "", false, nil
}

func (d *deviceTokens) revoke(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for s, v := range d.m {
		if v[0] == name {
			delete(d.m, s)
		}
	}
}

// TestBrowserServed: the web app in served mode (as linkledger serve
// mounts it) in chromium: a person pastes a write token on the sign-in
// page and sees the inbox, named after the token; the bookmarklet's
// script, run on a page of another origin, opens the server's capture
// form signed in and saves as the token's name; a browser signed in with a
// read token reads the inbox but its save is refused and writes nothing;
// revoking the read token signs that browser out at its next page.
func TestBrowserServed(t *testing.T) {
	exe := chromium(t)
	ctx0 := context.Background()
	l, err := ledger.Open(ctx0, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if _, err := l.Save(ctx0, &record.Record{URL: "http://127.0.0.1:9/saved-before", Title: "Saved on the laptop", Tags: []string{"reading"}}, ledger.SaveOptions{Actor: "human"}); err != nil {
		t.Fatal(err)
	}
	const writeTok, readTok = "llt_phone_6b1f0c2d9e8a7b6c5d4e3f2a1b0c9d8e", "llt_tablet_0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	tokens := &deviceTokens{m: map[string][2]string{writeTok: {"agent:phone", "write"}, readTok: {"agent:tablet", "read"}}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://" + ln.Addr().String()
	srv, err := web.New(web.Options{Ledger: l, Served: &web.Served{Origins: []string{origin}, SignIn: tokens.signIn, TokenScope: tokens.scope}})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	// a page of another origin, where the bookmarklet is clicked
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>Elephant tusks</title><p id="text">Tusks are teeth that grow through life.</p>`))
	}))
	t.Cleanup(other.Close)

	ctx := browser(t, exe)
	run(t, ctx, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(`#token`))
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Sign in" {
		t.Fatalf("without a session: %q, want the sign-in page", h)
	}
	if typ := eval[string](t, ctx, `document.getElementById("token").type`); typ != "password" {
		t.Errorf("the token field is %q, want password (not shown as typed)", typ)
	}
	shot(t, ctx, "served-signin")
	run(t, ctx, chromedp.SendKeys(`#token`, writeTok), navigates(chromedp.Click(`form.signin-token button`)), chromedp.WaitVisible(`h1`))
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Inbox" {
		t.Fatalf("after signing in with a token: %q, want the inbox", h)
	}
	if who := eval[string](t, ctx, `document.getElementById("whoami").textContent`); who != "agent:phone · write" {
		t.Errorf("signed in as %q, want agent:phone · write", who)
	}
	if !strings.Contains(eval[string](t, ctx, `document.body.innerText`), "Saved on the laptop") {
		t.Errorf("the inbox does not show the saved item")
	}
	if loc := eval[string](t, ctx, `location.href`); strings.Contains(loc, "llt_") || eval[string](t, ctx, `document.cookie`) != "" {
		t.Errorf("the token is in the address (%s) or the cookie is readable by script", loc)
	}
	shot(t, ctx, "served-inbox")

	// the bookmarklet saves to this server from another origin's page
	run(t, ctx, chromedp.Navigate(origin+"/bookmarklet"), chromedp.WaitVisible(`#bookmarklet`))
	href, err := url.PathUnescape(eval[string](t, ctx, `document.getElementById("bookmarklet").getAttribute("href")`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(href, "javascript:") || !strings.Contains(href, "'"+origin+"/capture?url=") {
		t.Fatalf("bookmarklet %q: want a script opening %s/capture", href, origin)
	}
	run(t, ctx, chromedp.Navigate(other.URL+"/tusks"), chromedp.WaitVisible(chromedp.CSS("#text")))
	selectText(t, ctx, "grow through life")
	// the bookmarklet's own script, its window opened in this tab
	code := strings.TrimPrefix(href, "javascript:")
	click := chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		// after the evaluation returns: a navigation during it loses its result
		_, err := chromedp.Evaluate[bool](`window.open = function(u){ location.href = u; return null }; setTimeout(function(){ `+code+` }, 0); true`)(c, tg)
		return err
	})
	run(t, ctx, navigates(click), chromedp.WaitVisible(`#c-save`))
	if u := eval[string](t, ctx, `document.querySelector("input[name=url]").value`); u != other.URL+"/tusks" {
		t.Errorf("the capture form has url %q, want the page's", u)
	}
	run(t, ctx, navigates(chromedp.Click(`#c-save`)), chromedp.WaitVisible(`h1`))
	rec, err := l.Show(ctx0, other.URL+"/tusks", ledger.ShowOptions{})
	if err != nil {
		t.Fatalf("the bookmarklet's save is not in the ledger: %v\n%s", err, eval[string](t, ctx, `document.body.innerText`))
	}
	if len(rec.Annotations) != 1 || rec.Annotations[0].Actor != "agent:phone" || rec.Annotations[0].Text != "grow through life" {
		t.Errorf("the bookmarklet's highlight: %+v, want one by agent:phone", rec.Annotations)
	}

	// a read token reads but cannot save
	run(t, ctx, navigates(chromedp.Navigate(origin+"/")), navigates(chromedp.Click(`form.signout button`)), chromedp.WaitVisible(`#token`))
	run(t, ctx, chromedp.SendKeys(`#token`, readTok), navigates(chromedp.Click(`form.signin-token button`)), chromedp.WaitVisible(`#add-url`))
	if who := eval[string](t, ctx, `document.getElementById("whoami").textContent`); who != "agent:tablet · read" {
		t.Errorf("signed in as %q, want agent:tablet · read", who)
	}
	before, _ := l.ItemCount(ctx0)
	run(t, ctx, chromedp.SendKeys(`#add-url`, "http://127.0.0.1:9/from-the-tablet"), navigates(chromedp.Click(`form.quickadd button`)), chromedp.WaitVisible(`h1`))
	body := eval[string](t, ctx, `document.body.innerText`)
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Read-only" || !strings.Contains(body, "read token (agent:tablet)") {
		t.Errorf("a read token's save shows %q:\n%s", h, body)
	}
	if after, _ := l.ItemCount(ctx0); after != before {
		t.Errorf("a read token's save wrote: %d items, was %d", after, before)
	}
	shot(t, ctx, "served-read-refused")

	// revoked: the next page is the sign-in page
	tokens.revoke("agent:tablet")
	run(t, ctx, chromedp.Navigate(origin+"/"), chromedp.WaitVisible(`h1`))
	body = eval[string](t, ctx, `document.body.innerText`)
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h != "Sign in" || !strings.Contains(body, "was revoked") {
		t.Errorf("after revoking the token: %q:\n%s", h, body)
	}
	shot(t, ctx, "served-revoked")
	// on a phone's width the sign-in page has no horizontal scroll
	run(t, ctx, chromedp.EmulateViewport(360, 740), chromedp.Navigate(origin+"/signin"), chromedp.WaitVisible(`#token`))
	if wide := eval[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`); wide {
		t.Errorf("the sign-in page scrolls sideways at 360 px")
	}
	shot(t, ctx, "served-signin-phone")
}
