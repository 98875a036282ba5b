package web

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// csp is the Content Security Policy of every answer: our own origin only,
// no inline script or style, no framing, forms post to us only.
const csp = "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; object-src 'none'"

// Handler is the app with its security layer, outermost first: security
// headers on every answer; the Host allowlist (403); cross-origin
// protection of state-changing requests, and no state change without
// Origin or Sec-Fetch-Site (403); the session (401, the sign-in page);
// bounded bodies; then the pages.
func (s *Server) Handler() http.Handler {
	var h http.Handler = s.routes()
	if s.served != nil {
		h = s.requireTokenSession(h)
	} else {
		h = s.requireSession(h)
	}
	h = s.requireBrowserPost(h)
	if s.served != nil {
		h = s.servedOrigin(h)
	}
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
	if s.served != nil {
		return s.servedHost(host)
	}
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
			if s.served != nil {
				s.plainError(w, http.StatusForbidden, "unknown Host: this app answers to the host of its public address only")
				return
			}
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

// sessionCookie is the name of this server's session cookie: browsers
// send the cookies of 127.0.0.1 to every port, so each port has its own
// name and two servers on two ports do not overwrite each other's.
func (s *Server) sessionCookie() string {
	if s.served != nil {
		return s.servedCookie()
	}
	return cookiePrefix + strconv.Itoa(s.opt.Port)
}

// cookiePrefix begins every session cookie's name; the port follows.
const cookiePrefix = "ll_session_"

func (s *Server) now() time.Time {
	if s.opt.Now != nil {
		return s.opt.Now()
	}
	return time.Now()
}

// requireBrowserPost refuses a POST that carries neither Origin nor
// Sec-Fetch-Site: every browser sends one of them with a form post, so a
// request without both is a replayed cookie (curl, another program), and
// Go's cross-origin protection lets such requests through.
func (s *Server) requireBrowserPost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Origin") == "" && r.Header.Get("Sec-Fetch-Site") == "" {
			s.plainError(w, http.StatusForbidden, "a change must come from this app's own pages in a browser: the request has neither an Origin nor a Sec-Fetch-Site header")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireSession lets a request through with a valid session cookie (its
// id checked against the ledger: made for this port, not expired). A GET
// with ?token= (the run's token that linkledger ui printed, or a sign-in
// link's one-time token) starts a session: the cookie is set and the
// browser is sent to the same page without the token (so it leaves the
// address bar and history). The token is never a session itself. The
// capture form of the bookmarklet also accepts the capture token (bt),
// since a window opened from another site's page carries no
// SameSite=Strict cookie. Static assets (our CSS, script and icon, no data),
// the sign-in page and the sign-out need no session; any other page
// without one shows the sign-in page (401).
func (s *Server) requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/favicon.ico":
			next.ServeHTTP(w, r)
			return
		case r.URL.Path == "/signin" && r.Method != http.MethodPost:
			s.signInPage(w, r, http.StatusOK, "")
			return
		case r.URL.Path == "/signout" && r.Method == http.MethodPost:
			s.signOut(w, r)
			return
		}
		ctx := r.Context()
		q := r.URL.Query()
		if tok := q.Get("token"); tok != "" && r.Method == http.MethodGet {
			ok := sameSecret(tok, s.opt.Token)
			if !ok {
				var err error
				if ok, err = s.opt.Ledger.UseSignIn(ctx, tok, s.opt.Port, s.now()); err != nil {
					s.logf("sign-in: %v", err)
					s.plainError(w, http.StatusInternalServerError, "the sign-in could not be checked")
					return
				}
			}
			if !ok {
				s.signInPage(w, r, http.StatusUnauthorized, "This sign-in link is not valid: a link from linkledger ui --sign-in-link works once and for 10 minutes, and the link linkledger ui prints works while that run lasts.")
				return
			}
			id, exp, err := s.opt.Ledger.NewSession(ctx, s.opt.Port, s.now())
			if err != nil {
				s.logf("sign-in: %v", err)
				s.plainError(w, http.StatusInternalServerError, "the session could not be stored")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.sessionCookie(), Value: id, Path: "/", Expires: exp,
				MaxAge: int(exp.Sub(s.now()).Seconds()), HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(s.sessionCookie()); err == nil {
			ok, err := s.opt.Ledger.SessionValid(ctx, c.Value, s.opt.Port, s.now())
			if err != nil {
				s.logf("session: %v", err)
				s.plainError(w, http.StatusInternalServerError, "the session could not be checked")
				return
			}
			if ok {
				next.ServeHTTP(w, r)
				return
			}
		}
		if r.URL.Path == "/capture" {
			bt := q.Get("bt")
			if r.Method == http.MethodPost {
				bt = r.PostFormValue("bt")
			}
			if bt != "" && sameSecret(bt, s.opt.CaptureToken) {
				if !s.captureAllowed(w, r) {
					return
				}
				next.ServeHTTP(w, r.WithContext(captureOnly(r.Context())))
				return
			}
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			if r.URL.Path != "/status.json" {
				s.signInPage(w, r, http.StatusUnauthorized, "")
				return
			}
		}
		s.plainError(w, http.StatusUnauthorized, "no session: sign in with the link linkledger ui printed, or one from linkledger ui --sign-in-link")
	})
}

// plainError answers with a short text page (no template: it must work
// before anything else is trusted).
func (s *Server) plainError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(strconv.Itoa(code) + " " + http.StatusText(code) + ": " + msg + "\n"))
}
