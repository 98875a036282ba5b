package web

// Served mode over a real loopback listener and a real ledger file: the
// device tokens are a map of the test's own (the lead wires the ledger's
// token API at merge), given to the server as Served.SignIn and
// Served.TokenScope.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// testTokens are device tokens: secret → name and scope; revoking deletes.
type testTokens struct {
	mu     sync.Mutex
	bySec  map[string][2]string
	checks int  // TokenScope calls
	broken bool // TokenScope fails (the ledger busy)
}

func (tk *testTokens) add(secret, name, scope string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	if tk.bySec == nil {
		tk.bySec = map[string][2]string{}
	}
	tk.bySec[secret] = [2]string{name, scope}
}

func (tk *testTokens) revoke(name string) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	for s, v := range tk.bySec {
		if v[0] == name {
			delete(tk.bySec, s)
		}
	}
}

func (tk *testTokens) signIn(_ context.Context, secret string) (string, string, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	v, ok := tk.bySec[secret]
	if !ok {
		return "", "", errors.New("unknown token")
	}
	return v[0], v[1], nil
}

func (tk *testTokens) scope(_ context.Context, name string) (string, bool, error) {
	tk.mu.Lock()
	defer tk.mu.Unlock()
	tk.checks++
	if tk.broken {
		return "", false, errors.New("database is locked")
	}
	for _, v := range tk.bySec {
		if v[0] == name {
			return v[1], true, nil
		}
	}
	return "", false, nil
}

const (
	writeSecret = "llt_write_0123456789abcdef0123456789abcdef"
	readSecret  = "llt_read_0123456789abcdef0123456789abcdef"
)

// served is a served-mode app on a real loopback listener.
type served struct {
	url    string // its public origin
	l      *ledger.Ledger
	tk     *testTokens
	mu     sync.Mutex
	logged []string
	clock  time.Time
}

func (sv *served) log() string {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return strings.Join(sv.logged, "\n")
}

// startServed starts the app in served mode on a fresh ledger with two
// tokens: agent:phone (write) and agent:tablet (read).
func startServed(t *testing.T, secure bool) *served {
	t.Helper()
	sv := &served{l: openLedger(t, filepath.Join(t.TempDir(), "ll.db")), tk: &testTokens{}, clock: time.Now()}
	sv.tk.add(writeSecret, "agent:phone", "write")
	sv.tk.add(readSecret, "agent:tablet", "read")
	ln := listen(t, "127.0.0.1:0")
	sv.url = "http://" + ln.Addr().String()
	srv, err := New(Options{Ledger: sv.l, Served: &Served{Origins: []string{sv.url}, Secure: secure, SignIn: sv.tk.signIn, TokenScope: sv.tk.scope},
		Now: func() time.Time { sv.mu.Lock(); defer sv.mu.Unlock(); return sv.clock },
		Logf: func(f string, a ...any) {
			sv.mu.Lock()
			defer sv.mu.Unlock()
			sv.logged = append(sv.logged, fmt.Sprintf(f, a...))
		}})
	if err != nil {
		t.Fatal(err)
	}
	ts := &http.Server{Handler: srv.Handler()}
	go ts.Serve(ln)
	t.Cleanup(func() { ts.Close() })
	return sv
}

// post sends a form as a browser does from the app's own page (Origin
// and Sec-Fetch-Site same-origin) unless hdr says otherwise ("" deletes).
func (sv *served) post(t *testing.T, hc *http.Client, path string, form url.Values, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", sv.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", sv.url)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// signInAs signs a new browser in with secret and returns it.
func (sv *served) signInAs(t *testing.T, secret string) *http.Client {
	t.Helper()
	hc := browser(t)
	res, body := sv.post(t, hc, "/signin", url.Values{"token": {secret}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-in: %d\n%s", res.StatusCode, body)
	}
	return hc
}

func (sv *served) items(t *testing.T) int {
	t.Helper()
	n, err := sv.l.ItemCount(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestServedSignIn: every page without a session is the token form (401);
// a wrong token is refused without being echoed or logged; the right one
// starts a session (HttpOnly, SameSite=Lax cookie, not the token) bound to
// the token's name, shown on the pages, and goes on to the page asked for.
func TestServedSignIn(t *testing.T) {
	sv := startServed(t, false)
	hc := browser(t)
	code, body := get(t, hc, sv.url+"/search?q=go")
	if code != http.StatusUnauthorized || !strings.Contains(body, `name="token"`) || !strings.Contains(body, `type="password"`) ||
		!strings.Contains(body, `name="next" value="/search?q=go"`) {
		t.Fatalf("no session: %d, want 401 with the token form going on to /search?q=go\n%s", code, body)
	}
	wrong := "llt_wrong_secret_never_shown_0123456789"
	res, body := sv.post(t, hc, "/signin", url.Values{"token": {wrong}})
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not accepted") {
		t.Errorf("wrong token: %d, want 401 saying so\n%s", res.StatusCode, body)
	}
	if strings.Contains(body, wrong) || strings.Contains(sv.log(), wrong) || len(res.Cookies()) != 0 {
		t.Errorf("a wrong token is echoed, logged or given a cookie:\n%s\nlog: %s", body, sv.log())
	}
	if !strings.Contains(sv.log(), "sign-in: failed from 127.0.0.1") {
		t.Errorf("the failure is not logged: %q", sv.log())
	}
	res, body = sv.post(t, hc, "/signin", url.Values{"token": {" " + writeSecret + "\n"}, "next": {"/search?q=go"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/search?q=go" {
		t.Fatalf("sign-in: %d to %q, want 303 to /search?q=go\n%s", res.StatusCode, res.Header.Get("Location"), body)
	}
	var c *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == "ll_session" {
			c = k
		}
	}
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Value == "" || strings.Contains(c.Value, writeSecret) {
		t.Fatalf("cookie %+v: want ll_session, HttpOnly, SameSite=Lax, not Secure on plain HTTP, not the token", c)
	}
	if strings.Contains(sv.log(), writeSecret) || !strings.Contains(sv.log(), "sign-in: agent:phone (write) from 127.0.0.1") {
		t.Errorf("log: %q", sv.log())
	}
	code, body = get(t, hc, sv.url+"/")
	if code != 200 || !strings.Contains(body, "<h1>Inbox</h1>") || !strings.Contains(body, "agent:phone · write") {
		t.Errorf("signed in: %d, want the inbox naming the token\n%s", code, body)
	}
	// an address outside the app is not followed after sign-in
	for _, next := range []string{"//evil.example/", "https://evil.example/", "/\\evil.example"} {
		res, _ = sv.post(t, browser(t), "/signin", url.Values{"token": {writeSecret}, "next": {next}})
		if loc := res.Header.Get("Location"); loc != "/" {
			t.Errorf("next %q: Location %q, want /", next, loc)
		}
	}
	// a loopback session of the same ledger is no served session
	id, _, err := sv.l.NewSession(context.Background(), 7474, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", sv.url+"/", nil)
	req.AddCookie(&http.Cookie{Name: "ll_session", Value: id})
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a loopback session in served mode: %v %v, want 401", res.Status, err)
	}
}

// TestServedTokenInURLRefused: a token in the address signs nothing in,
// on any page, and is not logged.
func TestServedTokenInURLRefused(t *testing.T) {
	sv := startServed(t, false)
	hc := browser(t)
	for _, p := range []string{"/?token=" + writeSecret, "/signin?token=" + writeSecret, "/search?q=x&token=" + writeSecret} {
		res, err := hc.Get(sv.url + p)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusBadRequest || len(res.Cookies()) != 0 || strings.Contains(string(b), writeSecret) {
			t.Errorf("%s: %d cookies %v, want 400 and no session\n%s", p, res.StatusCode, res.Cookies(), b)
		}
	}
	if strings.Contains(sv.log(), writeSecret) {
		t.Errorf("the token is logged: %q", sv.log())
	}
	if code, _ := get(t, hc, sv.url+"/"); code != http.StatusUnauthorized {
		t.Errorf("after a token in the address: %d, want 401", code)
	}
}

// TestServedReadScope: a read token reads every page but every write is
// 403 and changes nothing; a write token's writes are by its name.
func TestServedReadScope(t *testing.T) {
	sv := startServed(t, false)
	ctx := context.Background()
	rec, err := sv.l.Save(ctx, &record.Record{URL: "http://127.0.0.1:9/a", Title: "A page", Tags: []string{"t"}}, ledger.SaveOptions{Actor: "human"})
	if err != nil {
		t.Fatal(err)
	}
	id := rec.ID
	before, err := sv.l.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	ro := sv.signInAs(t, readSecret)
	for _, p := range []string{"/", "/library", "/search?q=page", "/review", "/highlights", "/packs", "/reuse", "/bookmarklet", "/items/" + id, "/items/" + id + "/history"} {
		if code, body := get(t, ro, sv.url+p); code != 200 {
			t.Errorf("read token, GET %s: %d\n%s", p, code, body)
		}
	}
	writes := map[string]url.Values{
		"/save":                         {"url": {"http://127.0.0.1:9/b"}},
		"/capture":                      {"url": {"http://127.0.0.1:9/c"}},
		"/items/" + id + "/annotate":    {"type": {"note"}, "note": {"a note"}},
		"/items/" + id + "/tags":        {"add": {"x"}, "tags": {"x"}},
		"/items/" + id + "/archive":     {"on": {"1"}},
		"/items/" + id + "/star":        {"on": {"1"}},
		"/items/" + id + "/read":        {"on": {"1"}},
		"/items/" + id + "/progress":    {"p": {"0.5"}},
		"/items/" + id + "/delete":      {},
		"/items/" + id + "/retry":       {},
		"/items/" + id + "/tags/review": {"tag": {"t"}},
		"/review/batch":                 {},
		"/packs":                        {"name": {"p"}, "query": {"page"}},
		"/import":                       {},
	}
	for p, form := range writes {
		res, body := sv.post(t, ro, p, form)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "read token") {
			t.Errorf("read token, POST %s: %d, want 403\n%s", p, res.StatusCode, body)
		}
	}
	after, err := sv.l.History(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if n := sv.items(t); n != 1 || len(after) != len(before) {
		t.Errorf("after the read token's posts: %d items, %d events (was 1, %d): something was written", n, len(after), len(before))
	}
	// sign-out is no write: a read session may end itself
	if res, _ := sv.post(t, ro, "/signout", nil); res.StatusCode != http.StatusSeeOther {
		t.Errorf("read token, sign-out: %d, want 303", res.StatusCode)
	}
	if code, _ := get(t, ro, sv.url+"/"); code != http.StatusUnauthorized {
		t.Errorf("after sign-out: %d, want 401", code)
	}

	rw := sv.signInAs(t, writeSecret)
	res, body := sv.post(t, rw, "/items/"+id+"/annotate", url.Values{"type": {"note"}, "note": {"by the phone"}, "actor": {"human"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("write token, annotate: %d\n%s", res.StatusCode, body)
	}
	if res, body := sv.post(t, rw, "/save", url.Values{"url": {"http://127.0.0.1:9/b"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("write token, save: %d\n%s", res.StatusCode, body)
	}
	got, err := sv.l.Show(ctx, id, ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range got.Annotations {
		if a.Text == "by the phone" {
			found = true
			if a.Actor != "agent:phone" {
				t.Errorf("the write token's note is by %q, want agent:phone (the token's name, whatever the form says)", a.Actor)
			}
		}
	}
	if !found || sv.items(t) != 2 {
		t.Errorf("write token: note found %v, %d items (want 2)", found, sv.items(t))
	}
	b, err := sv.l.Show(ctx, "http://127.0.0.1:9/b", ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := sv.l.History(ctx, b.ID)
	if err != nil || len(h) == 0 || h[0].Event == nil || h[0].Event.Actor != "agent:phone" {
		t.Errorf("the write token's save: history of %d events (%v), want its first event by agent:phone", len(h), err)
	}
}

// TestServedRevoke: revoking a token signs its browsers out at their next
// request (the sign-in page saying so; the session is deleted from the
// ledger, so the same cookie stays refused if a token of that name is
// added again).
func TestServedRevoke(t *testing.T) {
	sv := startServed(t, false)
	hc := sv.signInAs(t, writeSecret)
	u, _ := url.Parse(sv.url)
	var cookie string
	for _, c := range hc.Jar.Cookies(u) {
		if c.Name == "ll_session" {
			cookie = c.Value
		}
	}
	if code, _ := get(t, hc, sv.url+"/"); code != 200 {
		t.Fatalf("signed in: %d", code)
	}
	checks := sv.tk.checks
	sv.tk.revoke("agent:phone")
	code, body := get(t, hc, sv.url+"/")
	if code != http.StatusUnauthorized || !strings.Contains(body, "was revoked") || !strings.Contains(body, `name="token"`) {
		t.Fatalf("after revoke: %d, want 401 with the sign-in form saying the token was revoked\n%s", code, body)
	}
	if sv.tk.checks <= checks {
		t.Errorf("the token was not checked on the request")
	}
	if res, _ := sv.post(t, hc, "/save", url.Values{"url": {"http://127.0.0.1:9/z"}}); res.StatusCode != http.StatusUnauthorized || sv.items(t) != 0 {
		t.Errorf("a revoked token's save: %d, %d items; want 401, none", res.StatusCode, sv.items(t))
	}
	if _, _, ok, err := sv.l.TokenSession(context.Background(), cookie, time.Now()); ok || err != nil {
		t.Errorf("the revoked token's session is still in the ledger (%v)", err)
	}
	sv.tk.add("llt_new_secret_0123456789abcdef01234567", "agent:phone", "write")
	req, _ := http.NewRequest("GET", sv.url+"/", nil)
	req.AddCookie(&http.Cookie{Name: "ll_session", Value: cookie})
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old session after a new token of the same name: %v %v, want 401", res.Status, err)
	}
}

// TestServedScopeNarrowed: a session never has more than its token has
// now (a token whose scope went down to read cannot write through a
// session signed in with write).
func TestServedScopeNarrowed(t *testing.T) {
	sv := startServed(t, false)
	hc := sv.signInAs(t, writeSecret)
	sv.tk.add(writeSecret, "agent:phone", "read")
	if res, _ := sv.post(t, hc, "/save", url.Values{"url": {"http://127.0.0.1:9/n"}}); res.StatusCode != http.StatusForbidden || sv.items(t) != 0 {
		t.Errorf("save after the scope went to read: %d, %d items; want 403, none", res.StatusCode, sv.items(t))
	}
}

// TestServedCrossOrigin: another origin's requests are refused: posts
// with a foreign Origin, a cross-site Sec-Fetch-Site, or neither header
// (403, nothing saved, no session from a cross-site sign-in); a foreign
// Host (DNS rebinding); a cross-site subresource or fetch of a page. A
// cross-site top-level navigation (a link, the bookmarklet's window) reads.
func TestServedCrossOrigin(t *testing.T) {
	sv := startServed(t, false)
	hc := sv.signInAs(t, writeSecret)
	form := url.Values{"url": {"http://127.0.0.1:9/x"}}
	for _, hdr := range [][]string{
		{"Origin", "http://evil.example", "Sec-Fetch-Site", ""},
		{"Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"},
		{"Origin", "null", "Sec-Fetch-Site", ""},
		{"Origin", "", "Sec-Fetch-Site", "cross-site"},
		{"Origin", "", "Sec-Fetch-Site", "same-site"},
		{"Origin", "", "Sec-Fetch-Site", ""},
		{"Origin", strings.Replace(sv.url, "http:", "https:", 1), "Sec-Fetch-Site", ""},
	} {
		for _, p := range []string{"/save", "/capture"} {
			res, body := sv.post(t, hc, p, form, hdr...)
			if res.StatusCode != http.StatusForbidden {
				t.Errorf("POST %s with %q: %d, want 403\n%s", p, hdr, res.StatusCode, body)
			}
		}
		res, _ := sv.post(t, browser(t), "/signin", url.Values{"token": {writeSecret}}, hdr...)
		if res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
			t.Errorf("cross-origin sign-in with %q: %d %v, want 403 and no cookie", hdr, res.StatusCode, res.Cookies())
		}
	}
	if n := sv.items(t); n != 0 {
		t.Fatalf("cross-origin posts saved %d items", n)
	}
	// what chromium sends from the app's own form (its Referrer-Policy
	// makes the Origin "null"): Sec-Fetch-Site decides
	if res, body := sv.post(t, hc, "/save", form, "Origin", "null", "Sec-Fetch-Site", "same-origin"); res.StatusCode != http.StatusSeeOther || sv.items(t) != 1 {
		t.Errorf("a same-origin post with Origin null: %d, %d items; want 303, 1\n%s", res.StatusCode, sv.items(t), body)
	}
	gets := []struct {
		hdr  []string
		want int
	}{
		{[]string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "image"}, 403},
		{[]string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty", "Origin", "http://evil.example"}, 403},
		{[]string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}, 403},
		{[]string{"Sec-Fetch-Site", "cross-site", "Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}, 200},
		{[]string{"Sec-Fetch-Site", "same-origin", "Sec-Fetch-Mode", "cors", "Sec-Fetch-Dest", "empty"}, 200},
	}
	for _, g := range gets {
		req, _ := http.NewRequest("GET", sv.url+"/status.json", nil)
		for i := 0; i < len(g.hdr); i += 2 {
			req.Header.Set(g.hdr[i], g.hdr[i+1])
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != g.want {
			t.Errorf("GET with %q: %d, want %d", g.hdr, res.StatusCode, g.want)
		}
	}
	for _, host := range []string{"evil.example", "localhost" + sv.url[strings.LastIndex(sv.url, ":"):], "127.0.0.1"} {
		req, _ := http.NewRequest("GET", sv.url+"/signin", nil)
		req.Host = host
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("Host %q: %d, want 403", host, res.StatusCode)
		}
	}
}

// TestServedSignInRateLimited: past 10 failed sign-ins in 10 minutes an
// address gets 429, even with a good token, and no session; the window's
// end lets it in again.
func TestServedSignInRateLimited(t *testing.T) {
	sv := startServed(t, false)
	hc := browser(t)
	for i := 0; i < signInFailures; i++ {
		if res, _ := sv.post(t, hc, "/signin", url.Values{"token": {fmt.Sprintf("guess-%d-0123456789", i)}}); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d, want 401", i+1, res.StatusCode)
		}
	}
	res, body := sv.post(t, hc, "/signin", url.Values{"token": {writeSecret}})
	if res.StatusCode != http.StatusTooManyRequests || len(res.Cookies()) != 0 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "Too many failed sign-ins") {
		t.Fatalf("after %d failures: %d %v, want 429 with Retry-After and no session\n%s", signInFailures, res.StatusCode, res.Cookies(), body)
	}
	if !strings.Contains(sv.log(), "too many failed attempts") {
		t.Errorf("the refusal is not logged: %q", sv.log())
	}
	sv.mu.Lock()
	sv.clock = sv.clock.Add(signInWindow + time.Second)
	sv.mu.Unlock()
	if res, _ := sv.post(t, hc, "/signin", url.Values{"token": {writeSecret}}); res.StatusCode != http.StatusSeeOther {
		t.Errorf("after the window: %d, want 303", res.StatusCode)
	}
}

// TestFailLimiterBounded: the limiter keeps at most its cap of addresses
// and counts each on its own.
func TestFailLimiterBounded(t *testing.T) {
	l := newFailLimiter(3, time.Minute, 100)
	now := time.Now()
	for i := 0; i < 1000; i++ {
		l.fail(fmt.Sprintf("10.0.%d.%d", i/256, i%256), now)
	}
	if len(l.m) > 100 {
		t.Errorf("%d addresses kept, cap 100", len(l.m))
	}
	for i := 0; i < 3; i++ {
		l.fail("192.0.2.1", now)
	}
	if l.blocked("192.0.2.1", now) == 0 || l.blocked("192.0.2.2", now) != 0 {
		t.Errorf("blocked: the address that failed 3 times %v, another %v", l.blocked("192.0.2.1", now), l.blocked("192.0.2.2", now))
	}
	if l.blocked("192.0.2.1", now.Add(time.Minute)) != 0 {
		t.Errorf("still blocked after the window")
	}
}

// TestServedSecureCookie: on TLS (or behind a TLS proxy) the cookie is
// Secure with the __Host- prefix.
func TestServedSecureCookie(t *testing.T) {
	sv := startServed(t, true)
	res, _ := sv.post(t, browser(t), "/signin", url.Values{"token": {writeSecret}})
	var c *http.Cookie
	for _, k := range res.Cookies() {
		c = k
	}
	if res.StatusCode != http.StatusSeeOther || c == nil || c.Name != "__Host-ll_session" || !c.Secure || !c.HttpOnly || c.Path != "/" || c.Domain != "" {
		t.Errorf("secure sign-in: %d cookie %+v, want __Host-ll_session, Secure, HttpOnly, Path=/, no Domain", res.StatusCode, c)
	}
}

// TestServedBookmarklet: the bookmarklet page shows the public origin and
// its script opens that origin's capture form, with no token in it.
func TestServedBookmarklet(t *testing.T) {
	sv := startServed(t, false)
	hc := sv.signInAs(t, writeSecret)
	code, body := get(t, hc, sv.url+"/bookmarklet")
	if code != 200 || !strings.Contains(body, `id="bookmarklet-origin">`+sv.url+`<`) {
		t.Fatalf("bookmarklet: %d, want the public origin shown\n%s", code, body)
	}
	if !strings.Contains(body, "window.open(&#39;"+sv.url+"/capture?url=") || strings.Contains(body, "bt=") || strings.Contains(body, "token=") {
		t.Errorf("the bookmarklet must open %s/capture with no token:\n%s", sv.url, body)
	}
}

// TestServedOptionsChecked: New refuses served mode without its functions
// or with an origin that is not scheme://host[:port].
func TestServedOptionsChecked(t *testing.T) {
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	tk := &testTokens{}
	for _, origins := range [][]string{nil, {"127.0.0.1:7474"}, {"ftp://x.example"}, {"https://x.example/app"}, {"https://u@x.example"},
		{"javascript:alert(1)"}, {"https://x.example?q=1"}, {"https://x.exa'mple"}} {
		if _, err := New(Options{Ledger: l, Served: &Served{Origins: origins, SignIn: tk.signIn, TokenScope: tk.scope}}); err == nil {
			t.Errorf("origins %q accepted", origins)
		}
	}
	if _, err := New(Options{Ledger: l, Served: &Served{Origins: []string{"https://x.example"}}}); err == nil {
		t.Error("served mode without SignIn and TokenScope accepted")
	}
	if _, err := New(Options{Ledger: l, Served: &Served{Origins: []string{"https://x.example", "http://100.64.1.2:7475/"}, SignIn: tk.signIn, TokenScope: tk.scope}}); err != nil {
		t.Errorf("good origins refused: %v", err)
	}
}

// TestServedLedgerTokens: served mode over the ledger's own device tokens
// (LedgerTokens, as linkledger serve wires it): a human:DEVICE token
// writes as human and an agent:NAME token as itself (ledger.TokenActor);
// a read token cannot write; revoking ends the sessions at once, so a
// token of the same name made again does not bring an old browser back.
func TestServedLedgerTokens(t *testing.T) {
	ctx := context.Background()
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	phone, err := l.AddToken(ctx, "human:phone", "write")
	if err != nil {
		t.Fatal(err)
	}
	box, _ := l.AddToken(ctx, "agent:box", "write")
	tablet, _ := l.AddToken(ctx, "human:tablet", "read")
	rec, err := l.Save(ctx, &record.Record{URL: "http://127.0.0.1:9/a", Title: "A"}, ledger.SaveOptions{Actor: "human"})
	if err != nil {
		t.Fatal(err)
	}
	ln := listen(t, "127.0.0.1:0")
	sv := &served{url: "http://" + ln.Addr().String(), l: l}
	signIn, scope := LedgerTokens(l)
	srv, err := New(Options{Ledger: l, Served: &Served{Origins: []string{sv.url}, SignIn: signIn, TokenScope: scope}})
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv.Handler()}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	for _, c := range []struct{ secret, note, actor string }{{phone, "from the phone", "human"}, {box, "from the box", "agent:box"}} {
		hc := sv.signInAs(t, c.secret)
		if res, body := sv.post(t, hc, "/items/"+rec.ID+"/annotate", url.Values{"type": {"note"}, "note": {c.note}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("annotate: %d\n%s", res.StatusCode, body)
		}
	}
	got, err := l.Show(ctx, rec.ID, ledger.ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	actors := map[string]string{}
	for _, a := range got.Annotations {
		actors[a.Text] = a.Actor
	}
	if actors["from the phone"] != "human" || actors["from the box"] != "agent:box" {
		t.Errorf("actors %v: want human for human:phone, agent:box for agent:box", actors)
	}
	ro := sv.signInAs(t, tablet)
	if res, _ := sv.post(t, ro, "/save", url.Values{"url": {"http://127.0.0.1:9/b"}}); res.StatusCode != http.StatusForbidden || sv.items(t) != 1 {
		t.Errorf("a read token's save: %d, %d items; want 403, 1", res.StatusCode, sv.items(t))
	}
	hc := sv.signInAs(t, phone)
	if code, _ := get(t, hc, sv.url+"/"); code != 200 {
		t.Fatalf("signed in: %d", code)
	}
	if err := l.RevokeToken(ctx, "human:phone"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddToken(ctx, "human:phone", "write"); err != nil {
		t.Fatal(err)
	}
	if code, body := get(t, hc, sv.url+"/"); code != http.StatusUnauthorized || !strings.Contains(body, `name="token"`) {
		t.Errorf("after revoke and a new token of the same name: %d, want the sign-in page (401)", code)
	}
	if res, _ := sv.post(t, browser(t), "/signin", url.Values{"token": {phone}}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked secret signs in: %d", res.StatusCode)
	}
}

// TestServedTokenCheckFails: when the token cannot be checked (the ledger
// busy) the request is a 500 that writes nothing, and the session is not
// ended: the next request, with the ledger back, is signed in.
func TestServedTokenCheckFails(t *testing.T) {
	sv := startServed(t, false)
	hc := sv.signInAs(t, writeSecret)
	sv.tk.mu.Lock()
	sv.tk.broken = true
	sv.tk.mu.Unlock()
	if code, _ := get(t, hc, sv.url+"/"); code != http.StatusInternalServerError {
		t.Errorf("token check failing: %d, want 500", code)
	}
	if res, _ := sv.post(t, hc, "/save", url.Values{"url": {"http://127.0.0.1:9/busy"}}); res.StatusCode != http.StatusInternalServerError || sv.items(t) != 0 {
		t.Errorf("a save while the token check fails: %d, %d items; want 500, none", res.StatusCode, sv.items(t))
	}
	sv.tk.mu.Lock()
	sv.tk.broken = false
	sv.tk.mu.Unlock()
	if code, body := get(t, hc, sv.url+"/"); code != 200 {
		t.Errorf("after the ledger is back: %d, want the inbox (still signed in)\n%s", code, body)
	}
}
