package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

const testToken = "0123456789abcdef0123456789abcdef"

// newTestServer serves a fresh ledger through the whole security layer
// on a loopback httptest server; it returns the server and the ledger.
func newTestServer(t *testing.T) (*httptest.Server, *ledger.Ledger) {
	t.Helper()
	l, err := ledger.Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return serveTest(t, Options{Ledger: l}), l
}

// serveTest serves opt (its port and tokens set here) as newTestServer
// does.
func serveTest(t *testing.T, opt Options) *httptest.Server {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	port := ts.Listener.Addr().(interface{ String() string }).String()
	_, p, _ := strings.Cut(port, ":")
	opt.Port, _ = strconv.Atoi(p)
	opt.Token, opt.CaptureToken = testToken, "capturecapturecapture0123456789"
	srv, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = srv.Handler()
	ts.Start()
	t.Cleanup(ts.Close)
	host := strings.TrimPrefix(ts.URL, "http://")
	sessions.Store(host, signIn(t, ts.Config.Handler, opt.Port))
	t.Cleanup(func() { sessions.Delete(host) })
	return ts
}

// sessions are the session cookies of the test servers, by host:port.
var sessions sync.Map

// signIn opens the sign-in link of the app h on port and returns the
// session cookie it sets.
func signIn(t testing.TB, h http.Handler, port int) *http.Cookie {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/?token="+testToken, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	for _, c := range w.Result().Cookies() {
		if c.Name == cookiePrefix+strconv.Itoa(port) && c.Value != "" {
			return c
		}
	}
	t.Fatalf("sign-in: %d, no session cookie\n%s", w.Code, w.Body.String())
	return nil
}

// signedIn is h with a session: every request gets its cookie (for
// benchmarks, which call the handler directly).
func signedIn(t testing.TB, h http.Handler, port int) http.Handler {
	c := signIn(t, h, port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.AddCookie(c)
		h.ServeHTTP(w, r)
	})
}

// client does not follow redirects, so each answer is seen as it is.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	res, err := client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, string(b)
}

// withCookie adds the session cookie of the test server req goes to and,
// as a browser's form post does, an Origin of that server.
func withCookie(req *http.Request) *http.Request {
	c, ok := sessions.Load(req.URL.Host)
	if !ok {
		panic("withCookie: no session for " + req.URL.Host)
	}
	req.AddCookie(c.(*http.Cookie))
	if req.Method == http.MethodPost {
		req.Header.Set("Origin", "http://"+req.URL.Host)
	}
	return req
}

func TestTokenTradedForCookie(t *testing.T) {
	ts, _ := newTestServer(t)
	req, _ := http.NewRequest("GET", ts.URL+"/search?q=go&token="+testToken, nil)
	res, _ := do(t, req)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d, want 303", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); loc != "/search?q=go" {
		t.Errorf("Location %q: the token must leave the address", loc)
	}
	c := sessionCookieOf(t, res, ts)
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Value == testToken || c.Value == "" {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, a session id that is not the token", c)
	}
	req = mustReq(t, "GET", ts.URL+"/", "")
	req.AddCookie(c)
	res, body := do(t, req)
	if res.StatusCode != 200 || !strings.Contains(body, "<h1>Inbox</h1>") {
		t.Errorf("with the cookie: %d\n%s", res.StatusCode, body)
	}
}

func mustReq(t *testing.T, method, u, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return req
}

func TestNoTokenIs401(t *testing.T) {
	ts, _ := newTestServer(t)
	for _, tc := range []struct{ method, path, cookie string }{
		{"GET", "/", ""},
		{"GET", "/search?q=x", ""},
		{"GET", "/status.json", ""},
		{"GET", "/?token=wrongwrongwrongwrongwrongwrong12", ""},
		{"GET", "/", testToken[:31] + "0"},
		{"POST", "/save", ""},
		{"GET", "/capture?bt=nope", ""},
	} {
		req := mustReq(t, tc.method, ts.URL+tc.path, "")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if tc.cookie != "" {
			req.AddCookie(&http.Cookie{Name: cookieNameOf(ts), Value: tc.cookie})
		}
		if res, body := do(t, req); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s %s: %d, want 401\n%s", tc.method, tc.path, res.StatusCode, body)
		}
	}
	// the capture form opens with the capture token alone
	if res, _ := do(t, mustReq(t, "GET", ts.URL+"/capture?bt=capturecapturecapture0123456789&url=https://example.com/", "")); res.StatusCode != 200 {
		t.Errorf("capture with its token: %d", res.StatusCode)
	}
	// and only the capture form
	if res, _ := do(t, mustReq(t, "GET", ts.URL+"/?bt=capturecapturecapture0123456789", "")); res.StatusCode != 401 {
		t.Errorf("home with the capture token: %d, want 401", res.StatusCode)
	}
}

func TestWrongHostIs403(t *testing.T) {
	ts, _ := newTestServer(t)
	u, _ := url.Parse(ts.URL)
	_, port, _ := strings.Cut(u.Host, ":")
	for host, want := range map[string]int{
		"evil.example:" + port: 403, "127.0.0.1": 403, "localhost:1": 403, "127.0.0.2:" + port: 403,
		"127.0.0.1:" + port: 200, "localhost:" + port: 200, "LOCALHOST:" + port: 200, "[::1]:" + port: 200,
	} {
		req := withCookie(mustReq(t, "GET", ts.URL+"/", ""))
		req.Host = host
		if res, _ := do(t, req); res.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, res.StatusCode, want)
		}
	}
}

func TestCrossOriginPostIs403(t *testing.T) {
	ts, l := newTestServer(t)
	form := "url=" + url.QueryEscape("https://example.com/a")
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"cross-site fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site other origin", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"other Origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"same origin", map[string]string{"Sec-Fetch-Site": "same-origin"}, 303},
	} {
		req := withCookie(mustReq(t, "POST", ts.URL+"/save", form))
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		if res, body := do(t, req); res.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, res.StatusCode, tc.want, body)
		}
	}
	res, err := l.Find(context.Background(), ledger.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 {
		t.Errorf("%d items saved, want 1 (the same-origin post only)", len(res.Hits))
	}
}

func TestStateChangesArePostOnly(t *testing.T) {
	ts, _ := newTestServer(t)
	for _, p := range []string{"/save", "/import", "/items/ll_0123456789abcdef/delete/x", "/packs/x/refresh"} {
		if res, _ := do(t, withCookie(mustReq(t, "GET", ts.URL+p, ""))); res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 405 or 404", p, res.StatusCode)
		}
	}
	if res, _ := do(t, withCookie(mustReq(t, "GET", ts.URL+"/save", ""))); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /save: %d, want 405", res.StatusCode)
	}
	if res, _ := do(t, withCookie(mustReq(t, "DELETE", ts.URL+"/items/ll_0123456789abcdef", ""))); res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d, want 405", res.StatusCode)
	}
}

func TestSecurityHeaders(t *testing.T) {
	ts, _ := newTestServer(t)
	for _, p := range []string{"/", "/nope", "/static/app.css"} {
		res, _ := do(t, withCookie(mustReq(t, "GET", ts.URL+p, "")))
		h := res.Header
		if !strings.Contains(h.Get("Content-Security-Policy"), "default-src 'self'") || h.Get("X-Frame-Options") != "DENY" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", p, h)
		}
	}
	// headers also on a refused request
	req := mustReq(t, "GET", ts.URL+"/", "")
	req.Host = "evil.example"
	if res, _ := do(t, req); res.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("403 without headers")
	}
}

func TestBodiesBounded(t *testing.T) {
	ts, _ := newTestServer(t)
	big := "note=" + strings.Repeat("a", MaxFormBytes+10) + "&url=https://example.com/"
	res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/save", big)))
	if res.StatusCode < 400 {
		t.Errorf("over-long form: %d, want an error", res.StatusCode)
	}
}

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:7474": true, "127.0.0.1:0": true, "[::1]:8080": true, "localhost:7474": true, "127.9.9.9:1": true,
		"0.0.0.0:7474": false, ":7474": false, "192.168.1.5:7474": false, "example.com:80": false, "[::]:7474": false,
		"127.0.0.1": false, "127.0.0.1:99999": false, "127.0.0.1:http": false,
	} {
		if err := CheckAddr(addr); (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}

func TestWebOnlySave(t *testing.T) {
	ts, l := newTestServer(t)
	for _, u := range []string{"file:///etc/passwd", "/etc/passwd", "javascript:alert(1)", "ftp://x/y", "notes.txt", "~/notes/a"} {
		req := withCookie(mustReq(t, "POST", ts.URL+"/save", "url="+url.QueryEscape(u)))
		if res, _ := do(t, req); res.StatusCode != http.StatusBadRequest {
			t.Errorf("save %q: %d, want 400", u, res.StatusCode)
		}
	}
	// the remote faces' one rule (ledger.RemoteURL, issue 31): a host with
	// a path is a web link, as MCP's save and linkledger save take it
	req := withCookie(mustReq(t, "POST", ts.URL+"/save", "url="+url.QueryEscape("example.com/page")))
	if res, body := do(t, req); res.StatusCode >= 400 {
		t.Fatalf("save example.com/page: %d\n%s", res.StatusCode, body)
	}
	rec, err := l.Status(context.Background(), "https://example.com/page")
	if err != nil || rec.CanonicalURL != "https://example.com/page" {
		t.Errorf("example.com/page saved as %+v (%v), want https://example.com/page", rec, err)
	}
}

// TestEscaped: stored text with markup is shown as text on every page.
func TestEscaped(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	evil := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	rec, err := l.Save(ctx, recordWith("https://example.com/evil", evil), ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/", "/items/" + rec.ID, "/search?q=script", "/highlights", "/highlights?type=note", "/capture?bt=capturecapturecapture0123456789&title=" + url.QueryEscape(evil)} {
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+p, "")))
		if res.StatusCode != 200 {
			t.Errorf("%s: %d", p, res.StatusCode)
		}
		if strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") {
			t.Errorf("%s: markup not escaped:\n%s", p, body)
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") && p != "/search?q=script" && p != "/highlights" {
			t.Errorf("%s: the text is not shown escaped", p)
		}
	}
}

// TestCaptureTokenOnlyCaptures: the bookmarklet's token is readable by
// the page it is clicked on, so it opens the capture form and saves from
// it, nothing else (issue 27 point 10): not traded for a session, no other
// page or write; a capture post that says nothing of where it comes from
// (no Origin, no Sec-Fetch-Site: a script that learned the token) is
// refused and saves nothing; the answer to a save does not say whether the
// link was saved before.
func TestCaptureTokenOnlyCaptures(t *testing.T) {
	ts, l := newTestServer(t)
	const bt = "capturecapturecapture0123456789"
	ctx := context.Background()
	rec, err := l.Save(ctx, &record.Record{URL: "https://example.com/known"}, ledger.SaveOptions{Actor: human})
	if err != nil {
		t.Fatal(err)
	}
	// not traded for a session, and nothing but /capture
	if res, _ := do(t, mustReq(t, "GET", ts.URL+"/?token="+bt, "")); res.StatusCode != 401 {
		t.Errorf("capture token as ?token=: %d, want 401", res.StatusCode)
	}
	for _, tc := range []struct{ method, path string }{
		{"GET", "/items/" + rec.ID + "?bt=" + bt},
		{"GET", "/search?q=known&bt=" + bt},
		{"GET", "/status.json?bt=" + bt},
		{"GET", "/bookmarklet?bt=" + bt},
		{"POST", "/save"},
		{"POST", "/items/" + rec.ID + "/annotate"},
		{"POST", "/items/" + rec.ID + "/tags"},
	} {
		req := mustReq(t, tc.method, ts.URL+tc.path, "bt="+bt+"&url=https://example.com/x&text=mine&type=note&add=x")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		if res, body := do(t, req); res.StatusCode != 401 {
			t.Errorf("%s %s with the capture token: %d, want 401\n%s", tc.method, tc.path, res.StatusCode, body)
		}
	}
	form := "bt=" + bt + "&url=" + url.QueryEscape("https://example.com/known") + "&sel=" + url.QueryEscape("a passage") + "&tags=t1"
	// a post with the token but no sign of a browser form: refused
	res, body := do(t, mustReq(t, "POST", ts.URL+"/capture", form))
	// (refused by the rule for every POST without either header, or by the
	// capture token's own rule: either says why)
	if res.StatusCode != 403 || !(strings.Contains(body, "the bookmarklet's token saves only from its capture window in a browser") || strings.Contains(body, "neither an Origin nor a Sec-Fetch-Site")) {
		t.Errorf("capture post without Origin or Sec-Fetch-Site: %d %q, want 403", res.StatusCode, body)
	}
	show, err := l.Show(ctx, rec.ID, ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(show.Annotations) != 0 || len(show.Tags) != 0 {
		t.Fatalf("a refused capture saved: %+v %v", show.Annotations, show.Tags)
	}
	// from the capture window (same origin, as a browser says): saved, and
	// the answer does not say the link was known
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "same-origin"}, {"Origin": ts.URL}} {
		req := mustReq(t, "POST", ts.URL+"/capture", form)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, body = do(t, req)
		if res.StatusCode != 200 || !strings.Contains(body, "<h1>Saved</h1>") || strings.Contains(body, "Already saved") {
			t.Errorf("capture post %v: %d\n%s", h, res.StatusCode, body)
		}
	}
	show, err = l.Show(ctx, rec.ID, ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(show.Annotations) != 1 || show.Annotations[0].Text != "a passage" || len(show.Tags) != 1 {
		t.Errorf("captured: %+v %v", show.Annotations, show.Tags)
	}
	// with the person's session the answer says it was known
	req := withCookie(mustReq(t, "POST", ts.URL+"/capture", form))
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if res, body := do(t, req); res.StatusCode != 200 || !strings.Contains(body, "Already saved") {
		t.Errorf("capture with the session: %d\n%s", res.StatusCode, body)
	}
}
