package web

import (
	"net/http"
	"strings"
	"testing"
)

// TestFavicon: the address a browser asks for on its own answers our icon
// (it was a 404), with or without the session cookie, still behind the
// Host allowlist; every page links the same icon.
func TestFavicon(t *testing.T) {
	ts, _ := newTestServer(t)
	for _, req := range []*http.Request{mustReq(t, "GET", ts.URL+"/favicon.ico", ""), withCookie(mustReq(t, "GET", ts.URL+"/favicon.ico", ""))} {
		res, body := do(t, req)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
			t.Errorf("/favicon.ico: %d %q %.40q", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		if !strings.Contains(res.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Errorf("/favicon.ico without the security headers: %v", res.Header)
		}
	}
	req := mustReq(t, "GET", ts.URL+"/favicon.ico", "")
	req.Host = "evil.example"
	if res, _ := do(t, req); res.StatusCode != http.StatusForbidden {
		t.Errorf("/favicon.ico for another Host: %d, want 403", res.StatusCode)
	}
	_, home := do(t, withCookie(mustReq(t, "GET", ts.URL+"/", "")))
	if !strings.Contains(home, `<link rel="icon" href="/static/favicon.svg"`) {
		t.Error("the page links no icon")
	}
	if res, body := do(t, mustReq(t, "GET", ts.URL+"/static/favicon.svg", "")); res.StatusCode != http.StatusOK || !strings.HasPrefix(body, "<svg") {
		t.Errorf("/static/favicon.svg: %d", res.StatusCode)
	}
}
