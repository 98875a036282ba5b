package web

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// cookieName is the session cookie the token is traded for.
const cookieName = "ll_session"

// csp is the Content Security Policy of every answer: our own origin only,
// no inline script or style, no framing, forms post to us only.
const csp = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// Handler is the app with its security layer, outermost first: security
// headers on every answer; the Host allowlist (403); cross-origin
// protection of state-changing requests (403); the token (401); bounded
// bodies; then the pages.
func (s *Server) Handler() http.Handler {
	var h http.Handler = s.routes()
	h = s.requireToken(h)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.plainError(w, http.StatusForbidden, "cross-origin request refused: forms of this app post from its own pages only")
	}))
	h = cop.Handler(h)
	h = s.onlyMethods(h)
	h = s.checkHost(h)
	return securityHeaders(h)
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", csp)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether host (a Host header) names this server on
// a loopback name: a page of another site that made its name resolve to
// 127.0.0.1 (DNS rebinding) sends its own name and is refused.
func (s *Server) allowedHost(host string) bool {
	port := strconv.Itoa(s.opt.Port)
	switch strings.ToLower(host) {
	case "127.0.0.1:" + port, "localhost:" + port, "[::1]:" + port:
		return true
	}
	return false
}

func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.allowedHost(r.Host) {
			s.plainError(w, http.StatusForbidden, "unknown Host: this app answers to 127.0.0.1, localhost and [::1] with its port only")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// onlyMethods allows GET, HEAD and POST; every state change is a POST
// (the routes say which).
func (s *Server) onlyMethods(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodPost:
		default:
			w.Header().Set("Allow", "GET, HEAD, POST")
			s.plainError(w, http.StatusMethodNotAllowed, "method not allowed")
			return
		}
		limit := int64(MaxFormBytes)
		if r.URL.Path == "/import" {
			limit = MaxImportBytes
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		next.ServeHTTP(w, r)
	})
}

func sameSecret(got, want string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// requireToken lets a request through with the session cookie; a GET with
// ?token= trades the token for the cookie and redirects to the same page
// without it (so it leaves the address bar and history). The capture form
// of the bookmarklet also accepts the capture token (bt), since a window
// opened from another site's page carries no SameSite=Strict cookie.
// Static assets (our CSS, script and icon, no data) need no token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/favicon.ico" {
			next.ServeHTTP(w, r)
			return
		}
		q := r.URL.Query()
		if tok := q.Get("token"); tok != "" && r.Method == http.MethodGet {
			if !sameSecret(tok, s.opt.Token) {
				s.plainError(w, http.StatusUnauthorized, "wrong token: open the address linkledger ui printed")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: s.opt.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(cookieName); err == nil && sameSecret(c.Value, s.opt.Token) {
			next.ServeHTTP(w, r)
			return
		}
		if r.URL.Path == "/capture" {
			bt := q.Get("bt")
			if r.Method == http.MethodPost {
				bt = r.PostFormValue("bt")
			}
			if bt != "" && sameSecret(bt, s.opt.CaptureToken) {
				next.ServeHTTP(w, r)
				return
			}
		}
		s.plainError(w, http.StatusUnauthorized, "no session: open the address linkledger ui printed (it carries the token)")
	})
}

// plainError answers with a short text page (no template: it must work
// before anything else is trusted).
func (s *Server) plainError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(strconv.Itoa(code) + " " + http.StatusText(code) + ": " + msg + "\n"))
}
