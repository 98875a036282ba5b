package web

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

// cookieNameOf is the session cookie's name on the test server ts.
func cookieNameOf(ts *httptest.Server) string {
	u, _ := url.Parse(ts.URL)
	return cookiePrefix + u.Port()
}

// sessionCookieOf is the session cookie res sets for ts (nil: none).
func sessionCookieOf(t *testing.T, res *http.Response, ts *httptest.Server) *http.Cookie {
	t.Helper()
	for _, c := range res.Cookies() {
		if c.Name == cookieNameOf(ts) {
			return c
		}
	}
	return nil
}

// openLedger opens (or creates) the ledger at path for the test.
func openLedger(t testing.TB, path string) *ledger.Ledger {
	t.Helper()
	l, err := ledger.Open(context.Background(), path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// serveOn serves opt on ln (a real loopback listener the caller chose,
// so a restart can listen on the same port) with token as the run's
// token; it returns the server and its base URL.
func serveOn(t *testing.T, opt Options, ln net.Listener, token string) *httptest.Server {
	t.Helper()
	opt.Port = ln.Addr().(*net.TCPAddr).Port
	opt.Token, opt.CaptureToken = token, "capturecapturecapture0123456789"
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv.Handler()}}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts
}

func listen(t *testing.T, addr string) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// browser is a client with a cookie jar: like a browser's, it keeps the
// cookies of 127.0.0.1 for every port. It follows no redirect.
func browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func get(t *testing.T, hc *http.Client, u string) (int, string) {
	t.Helper()
	res, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestSessionCookiePerPort: the token starts a session whose cookie is
// named after the port; two servers on two ports (one ledger) keep their
// sessions side by side in one cookie jar, and a session made on one port
// is refused by the other even under the other's cookie name.
func TestSessionCookiePerPort(t *testing.T) {
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	a := serveOn(t, Options{Ledger: l}, listen(t, "127.0.0.1:0"), testToken)
	b := serveOn(t, Options{Ledger: l}, listen(t, "127.0.0.1:0"), "fedcba9876543210fedcba9876543210")
	hc := browser(t)
	if code, _ := get(t, hc, a.URL+"/?token="+testToken); code != http.StatusSeeOther {
		t.Fatalf("sign-in on a: %d", code)
	}
	if code, _ := get(t, hc, b.URL+"/?token=fedcba9876543210fedcba9876543210"); code != http.StatusSeeOther {
		t.Fatalf("sign-in on b: %d", code)
	}
	u, _ := url.Parse(a.URL)
	names := map[string]string{}
	for _, c := range hc.Jar.Cookies(u) {
		names[c.Name] = c.Value
	}
	if len(names) != 2 || names[cookieNameOf(a)] == "" || names[cookieNameOf(b)] == "" {
		t.Fatalf("cookies %v: want one per port (%s, %s)", names, cookieNameOf(a), cookieNameOf(b))
	}
	for _, ts := range []*httptest.Server{a, b} {
		if code, body := get(t, hc, ts.URL+"/"); code != 200 || !strings.Contains(body, "<h1>Inbox</h1>") {
			t.Errorf("%s after both sign-ins: %d", ts.URL, code)
		}
	}
	// a's session replayed to b under b's name: refused (same ledger)
	req := mustReq(t, "GET", b.URL+"/", "")
	req.AddCookie(&http.Cookie{Name: cookieNameOf(b), Value: names[cookieNameOf(a)]})
	if res, _ := do(t, req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a's session on b: %d, want 401", res.StatusCode)
	}
}

// TestTokenIsNoSession: the token (the sign-in link's) is not a session:
// as a cookie, under the port's name or the old one, it is refused.
func TestTokenIsNoSession(t *testing.T) {
	ts, _ := newTestServer(t)
	for _, name := range []string{cookieNameOf(ts), "ll_session"} {
		req := mustReq(t, "GET", ts.URL+"/", "")
		req.AddCookie(&http.Cookie{Name: name, Value: testToken})
		if res, _ := do(t, req); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("the token as cookie %s: %d, want 401", name, res.StatusCode)
		}
	}
}

// TestPostWithoutOriginRefused: a valid session cookie replayed without
// Origin and Sec-Fetch-Site (curl, another program) changes nothing.
func TestPostWithoutOriginRefused(t *testing.T) {
	ts, l := newTestServer(t)
	c, _ := sessions.Load(strings.TrimPrefix(ts.URL, "http://"))
	for _, p := range []string{"/save", "/import", "/packs", "/signout"} {
		req := mustReq(t, "POST", ts.URL+p, "url="+url.QueryEscape("https://example.com/replayed")+"&name=p&query=x")
		req.AddCookie(c.(*http.Cookie))
		res, body := do(t, req)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "neither an Origin nor a Sec-Fetch-Site") {
			t.Errorf("POST %s without Origin: %d, want 403 saying why\n%s", p, res.StatusCode, body)
		}
	}
	got, err := l.Find(context.Background(), ledger.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hits) != 0 {
		t.Errorf("%d items saved by posts without Origin", len(got.Hits))
	}
	// the session still works (the sign-out above was refused too), and
	// with an Origin of ours the same post saves
	if res, body := do(t, withCookie(mustReq(t, "POST", ts.URL+"/save", "url="+url.QueryEscape("https://example.com/replayed")))); res.StatusCode != http.StatusSeeOther {
		t.Errorf("POST with our Origin: %d\n%s", res.StatusCode, body)
	}
}

// TestSessionSurvivesRestart: a session made by one server is valid for
// the next server on the same ledger and port (a new run token), and the
// cookie is persistent (an expiry 30 days on).
func TestSessionSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ll.db")
	l1, err := ledger.Open(context.Background(), path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ln := listen(t, "127.0.0.1:0")
	addr := ln.Addr().String()
	first := serveOn(t, Options{Ledger: l1}, ln, testToken)
	hc := browser(t)
	res, err := hc.Get(first.URL + "/?token=" + testToken)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	c := sessionCookieOf(t, res, first)
	if c == nil || c.MaxAge < 29*24*3600 || time.Until(c.Expires) < 29*24*time.Hour {
		t.Fatalf("cookie %+v: want a persistent one, about 30 days", c)
	}
	first.Close()
	l1.Close()
	second := serveOn(t, Options{Ledger: openLedger(t, path)}, listen(t, addr), "fedcba9876543210fedcba9876543210")
	if code, body := get(t, hc, second.URL+"/"); code != 200 || !strings.Contains(body, "<h1>Inbox</h1>") {
		t.Errorf("after the restart: %d, want the inbox\n%s", code, body)
	}
	// the old run's token no longer signs in
	if code, body := get(t, browser(t), second.URL+"/?token="+testToken); code != http.StatusUnauthorized || !strings.Contains(body, "not valid") {
		t.Errorf("the last run's token: %d, want 401 saying the link is not valid", code)
	}
}

// TestSessionExpires: a session is refused once its 30 days are over.
func TestSessionExpires(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	ts := serveOn(t, Options{Ledger: l, Now: func() time.Time { return now }}, listen(t, "127.0.0.1:0"), testToken)
	hc := browser(t)
	get(t, hc, ts.URL+"/?token="+testToken)
	now = now.Add(ledger.SessionTTL - time.Second)
	if code, _ := get(t, hc, ts.URL+"/"); code != 200 {
		t.Errorf("a second before expiry: %d", code)
	}
	now = now.Add(time.Second)
	if code, body := get(t, hc, ts.URL+"/"); code != http.StatusUnauthorized || !strings.Contains(body, "<h1>Sign in</h1>") {
		t.Errorf("at expiry: %d, want the sign-in page", code)
	}
}

// TestSignOut: signing out ends the session in the ledger (a copy of the
// cookie is refused too) and clears the cookie.
func TestSignOut(t *testing.T) {
	ts, _ := newTestServer(t)
	hc := browser(t)
	get(t, hc, ts.URL+"/?token="+testToken)
	u, _ := url.Parse(ts.URL)
	kept := hc.Jar.Cookies(u)
	if len(kept) != 1 {
		t.Fatalf("cookies %v", kept)
	}
	req := mustReq(t, "POST", ts.URL+"/signout", "")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signin?out=1" {
		t.Fatalf("sign-out: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	if left := hc.Jar.Cookies(u); len(left) != 0 {
		t.Errorf("cookies after sign-out: %v", left)
	}
	req = mustReq(t, "GET", ts.URL+"/", "")
	req.AddCookie(kept[0])
	if res, _ := do(t, req); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the signed-out session replayed: %d, want 401", res.StatusCode)
	}
	if code, body := get(t, hc, ts.URL+"/signin?out=1"); code != 200 || !strings.Contains(body, "Signed out.") {
		t.Errorf("the sign-in page after sign-out: %d\n%s", code, body)
	}
}

// TestSignInLink: a sign-in link made for a port (linkledger ui
// --sign-in-link) signs in once, on that port only, within its 10 minutes.
func TestSignInLink(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	ts := serveOn(t, Options{Ledger: l, Now: func() time.Time { return now }}, listen(t, "127.0.0.1:0"), testToken)
	port, _ := strconv.Atoi(strings.TrimPrefix(cookieNameOf(ts), cookiePrefix))
	ctx := context.Background()
	tok, err := l.NewSignIn(ctx, port, now)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := l.NewSignIn(ctx, port+1, now)
	late, _ := l.NewSignIn(ctx, port, now.Add(-ledger.SignInTTL))
	hc := browser(t)
	if code, _ := get(t, hc, ts.URL+"/?token="+tok); code != http.StatusSeeOther {
		t.Errorf("the sign-in link: %d, want 303", code)
	}
	if code, _ := get(t, hc, ts.URL+"/"); code != 200 {
		t.Errorf("after the sign-in link: %d", code)
	}
	for name, tk := range map[string]string{"used again": tok, "another port's": other, "expired": late} {
		if code, body := get(t, browser(t), ts.URL+"/?token="+tk); code != http.StatusUnauthorized || !strings.Contains(body, "not valid") {
			t.Errorf("a sign-in link %s: %d, want 401 saying it is not valid", name, code)
		}
	}
}

// TestSignInPage: a page asked for without a session is the sign-in page
// (401) saying how to get a link for this server, not a bare text; the
// JSON status and posts get a short 401.
func TestSignInPage(t *testing.T) {
	ts, _ := newTestServer(t)
	res, body := do(t, mustReq(t, "GET", ts.URL+"/items/ll_0123456789abcdef", ""))
	if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("no session: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	port := strings.TrimPrefix(cookieNameOf(ts), cookiePrefix)
	for _, want := range []string{"<h1>Sign in</h1>", "linkledger ui --sign-in-link --addr 127.0.0.1:" + port, "30 days"} {
		if !strings.Contains(body, want) {
			t.Errorf("the sign-in page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `action="/signout"`) || strings.Contains(body, `href="/search"`) {
		t.Errorf("the sign-in page shows the app's menu")
	}
	if res, body := do(t, mustReq(t, "GET", ts.URL+"/status.json", "")); res.StatusCode != http.StatusUnauthorized || strings.Contains(body, "<html") {
		t.Errorf("status.json without a session: %d\n%s", res.StatusCode, body)
	}
}
