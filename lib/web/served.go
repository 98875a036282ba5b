package web

// Served mode (docs/ui.md "Served mode"): the web app mounted at "/" by
// linkledger serve on an address other devices reach. A person signs in by
// pasting a device token on the sign-in page; the session that starts is
// bound to the token's name (the actor of every write it makes) and scope,
// and every request re-checks the token, so revoking it signs the browser
// out at its next request. The Host and Origin checks are against the
// public origins the server is reached at instead of loopback names.

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

// Served are the settings of served mode. The lead's wiring gives SignIn
// and TokenScope over the ledger's token API (CheckToken, Tokens); lib/web
// takes them as functions so it depends on no server package.
type Served struct {
	// Origins are the public origins the app is reached at
	// (scheme://host[:port], e.g. "https://ledger.example.net" or
	// "http://100.64.1.2:7475" on a tailnet); the first is the one the
	// bookmarklet saves to. Requests must name one of their hosts in Host,
	// and a request that says where it comes from (Origin) must come from
	// one of them exactly.
	Origins []string
	// Secure marks the session cookie Secure (and names it with the
	// __Host- prefix): set it when the server is on TLS or says it is
	// behind a TLS-terminating proxy.
	Secure bool
	// SignIn checks a device token a person pasted and returns its name
	// and scope ("read", "write" or "admin"); an error means no sign-in
	// (unknown or revoked token). It is never called with a token longer
	// than MaxTokenBytes.
	SignIn func(ctx context.Context, secret string) (name, scope string, err error)
	// TokenScope returns the current scope of the token name, and false
	// when it was revoked (or never was): called on every request of a
	// session. An error (the ledger busy) answers that request with 500
	// and signs no one out. LedgerTokens gives both over a ledger.
	TokenScope func(ctx context.Context, name string) (scope string, ok bool, err error)
}

// MaxTokenBytes bounds a token pasted on the sign-in page: a longer one is
// refused without being checked.
const MaxTokenBytes = 512

// Sign-in attempts that fail are limited per client address: after
// signInFailures failures within signInWindow, the address gets 429 until
// the window of its first failure ends. At most signInAddrs addresses are
// remembered (an old one is forgotten to make room).
const (
	signInFailures = 10
	signInWindow   = 10 * time.Minute
	signInAddrs    = 4096
)

// scopeRank orders the scopes of a token: read < write < admin; anything
// else is 0 (no access).
func scopeRank(s string) int {
	switch s {
	case "read":
		return 1
	case "write":
		return 2
	case "admin":
		return 3
	}
	return 0
}

// servedState is what a Server in served mode keeps beside its options.
type servedState struct {
	origins map[string]bool // "scheme://host[:port]", lower-case
	hosts   map[string]bool // what Host may say, lower-case
	first   string          // the bookmarklet's origin
	fails   *failLimiter
}

// newServed checks opt and returns the state it needs.
func newServed(opt *Served) (*servedState, error) {
	if opt.SignIn == nil || opt.TokenScope == nil {
		return nil, errors.New("web: served mode needs SignIn and TokenScope")
	}
	if len(opt.Origins) == 0 {
		return nil, errors.New("web: served mode needs the public origin it is reached at (e.g. https://ledger.example.net)")
	}
	st := &servedState{origins: map[string]bool{}, hosts: map[string]bool{}, fails: newFailLimiter(signInFailures, signInWindow, signInAddrs)}
	for _, o := range opt.Origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || !plainHost(u.Host) {
			return nil, errors.New("web: public origin " + strconv.Quote(o) + ": want scheme://host[:port], e.g. https://ledger.example.net")
		}
		host := strings.ToLower(u.Host)
		origin := u.Scheme + "://" + host
		st.origins[origin] = true
		st.hosts[host] = true
		if u.Port() == "" { // a client may name the default port
			if u.Scheme == "https" {
				st.hosts[host+":443"] = true
			} else {
				st.hosts[host+":80"] = true
			}
		}
		if st.first == "" {
			st.first = origin
		}
	}
	return st, nil
}

// plainHost reports whether h (host[:port] of an origin) has only the
// characters of a DNS name, an IP address and a port: the bookmarklet's
// script is built from it.
func plainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-:[]", c) >= 0) {
			return false
		}
	}
	return true
}

// identity is who a served-mode session is: the token's name and its
// scope now.
type identity struct{ Name, Scope string }

type identityKey struct{}

func identityFrom(ctx context.Context) (identity, bool) {
	id, ok := ctx.Value(identityKey{}).(identity)
	return id, ok
}

// actor is who a write of r is by: in a served-mode session the token's
// actor (ledger.TokenActor: agent:NAME for an agent:NAME token, human for
// a human:DEVICE one, as on /mcp; docs/ui.md "Served mode"), human in
// linkledger ui.
func actor(r *http.Request) string {
	if id, ok := identityFrom(r.Context()); ok {
		return ledger.TokenActor(id.Name)
	}
	return human
}

// LedgerTokens returns Served.SignIn and Served.TokenScope over the device
// tokens of l (linkledger token add): SignIn is l.CheckToken, TokenScope
// looks the name up in l.Tokens (read afresh on every call, so a revoked
// token fails at the next request).
func LedgerTokens(l *ledger.Ledger) (signIn func(context.Context, string) (string, string, error), tokenScope func(context.Context, string) (string, bool, error)) {
	signIn = func(ctx context.Context, secret string) (string, string, error) {
		t, err := l.CheckToken(ctx, secret)
		if err != nil {
			return "", "", err
		}
		return t.Name, t.Scope, nil
	}
	tokenScope = func(ctx context.Context, name string) (string, bool, error) {
		ts, err := l.Tokens(ctx)
		if err != nil {
			return "", false, err
		}
		for _, t := range ts {
			if t.Name == name {
				return t.Scope, true, nil
			}
		}
		return "", false, nil
	}
	return signIn, tokenScope
}

// readOnly reports whether r is of a session whose token cannot write.
func readOnly(r *http.Request) bool {
	id, ok := identityFrom(r.Context())
	return ok && scopeRank(id.Scope) < scopeRank("write")
}

// servedCookie is the session cookie's name in served mode: with the
// __Host- prefix when it is Secure, so a browser keeps it for this host
// only, never set by a sibling domain or over plain HTTP.
func (s *Server) servedCookie() string {
	if s.opt.Served.Secure {
		return "__Host-ll_session"
	}
	return "ll_session"
}

// servedHost reports whether host (a Host header) is one of the public
// origins' hosts.
func (s *Server) servedHost(host string) bool { return s.served.hosts[strings.ToLower(host)] }

// servedOrigin refuses a request another site's page made. A browser
// says where a request comes from in Sec-Fetch-Site, which decides when
// present: same-origin and none pass; same-site and cross-site pass only
// for a GET or HEAD that is a top-level navigation (a link followed, the
// bookmarklet's window), which writes nothing. Without it (an older
// browser), an Origin header must be one of the public origins ("null"
// too is refused; this app's Referrer-Policy makes a browser send "null"
// on its own form posts, but such a browser sends Sec-Fetch-Site). A POST
// must also carry one of the two headers (requireBrowserPost).
func (s *Server) servedOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok := true
		switch site := r.Header.Get("Sec-Fetch-Site"); site {
		case "same-origin", "none":
		case "":
			if o := r.Header.Get("Origin"); o != "" && !s.served.origins[strings.ToLower(o)] {
				ok = false
			}
		default:
			ok = (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.Header.Get("Sec-Fetch-Mode") == "navigate"
			if dest := r.Header.Get("Sec-Fetch-Dest"); dest != "" && dest != "document" {
				ok = false
			}
		}
		if !ok {
			s.plainError(w, http.StatusForbidden, "cross-origin request refused: this app answers its own pages only")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// requireTokenSession is requireSession in served mode: static assets and
// the sign-in page need no session; POST /signin signs in with a pasted
// token; any other request needs a session cookie whose token is still
// valid (checked on every request: a revoked token ends its sessions and
// shows the sign-in page); a POST other than sign-out needs a token that
// may write (403 otherwise, nothing written). A token in the address is
// refused: tokens are pasted into the form only.
func (s *Server) requireTokenSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Has("token") {
			s.logf("refused a token in the address of %s from %s", r.URL.Path, clientAddr(r))
			s.plainError(w, http.StatusBadRequest, "a token in the address is refused: paste it on the sign-in page (/signin), which posts it")
			return
		}
		switch {
		case strings.HasPrefix(r.URL.Path, "/static/") || r.URL.Path == "/favicon.ico":
			next.ServeHTTP(w, r)
			return
		case r.URL.Path == "/signin" && r.Method == http.MethodPost:
			s.tokenSignIn(w, r)
			return
		case r.URL.Path == "/signin":
			s.signInPage(w, r, http.StatusOK, "")
			return
		case r.URL.Path == "/signout" && r.Method == http.MethodPost:
			s.signOut(w, r)
			return
		}
		ctx := r.Context()
		c, err := r.Cookie(s.servedCookie())
		if err != nil {
			s.noSession(w, r, "")
			return
		}
		name, scope, ok, err := s.opt.Ledger.TokenSession(ctx, c.Value, s.now())
		if err != nil {
			s.logf("session: %v", err)
			s.plainError(w, http.StatusInternalServerError, "the session could not be checked")
			return
		}
		if !ok {
			s.clearCookie(w)
			s.noSession(w, r, "")
			return
		}
		now, valid, err := s.opt.Served.TokenScope(ctx, name)
		if err != nil {
			s.logf("session: checking token %q: %v", name, err)
			s.plainError(w, http.StatusInternalServerError, "the session's token could not be checked")
			return
		}
		if !valid || scopeRank(now) == 0 {
			n, err := s.opt.Ledger.EndTokenSessions(ctx, name)
			if err != nil {
				s.logf("session: %v", err)
			}
			s.logf("token %q is revoked: ended %d session(s) of it", name, n)
			s.clearCookie(w)
			s.noSession(w, r, "The token this browser signed in with was revoked: sign in with another.")
			return
		}
		if scopeRank(now) < scopeRank(scope) { // never more than at sign-in
			scope = now
		}
		r = r.WithContext(context.WithValue(ctx, identityKey{}, identity{Name: name, Scope: scope}))
		if r.Method == http.MethodPost && readOnly(r) {
			s.render(w, r, http.StatusForbidden, "error", view{Title: "Read-only", Data: "This browser signed in with a read token (" + name + "): it can read every page but change nothing. Sign in with a write token to save, annotate, tag or review."})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// noSession answers a request without a valid session: the sign-in page
// (401) for a page, a short 401 otherwise.
func (s *Server) noSession(w http.ResponseWriter, r *http.Request, why string) {
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.URL.Path != "/status.json" {
		s.signInPage(w, r, http.StatusUnauthorized, why)
		return
	}
	s.plainError(w, http.StatusUnauthorized, "no session: sign in on /signin with a device token")
}

func (s *Server) clearCookie(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: s.servedCookie(), Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		Secure: s.opt.Served.Secure, SameSite: http.SameSiteLaxMode})
}

// tokenSignIn checks the token posted by the sign-in form and starts a
// session bound to its name and scope. A failure shows the form again
// (401) with a fixed text, never the token; failures are counted per
// client address (429 past the limit) and logged without the token.
func (s *Server) tokenSignIn(w http.ResponseWriter, r *http.Request) {
	addr := clientAddr(r)
	now := s.now()
	if wait := s.served.fails.blocked(addr, now); wait > 0 {
		s.logf("sign-in: refused from %s: too many failed attempts", addr)
		w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
		s.signInPage(w, r, http.StatusTooManyRequests, "Too many failed sign-ins from this address: try again in "+minutes(wait)+".")
		return
	}
	secret := strings.TrimSpace(r.PostFormValue("token"))
	var name, scope string
	err := errors.New("no token")
	if secret != "" && len(secret) <= MaxTokenBytes {
		name, scope, err = s.opt.Served.SignIn(r.Context(), secret)
	}
	if err == nil && (name == "" || scopeRank(scope) == 0) {
		err = errors.New("no name or scope")
	}
	if err != nil {
		n := s.served.fails.fail(addr, now)
		s.logf("sign-in: failed from %s (%d in %s)", addr, n, signInWindow)
		s.signInPage(w, r, http.StatusUnauthorized, "That token was not accepted: it is unknown or revoked. Paste the whole token that linkledger token add printed.")
		return
	}
	s.served.fails.forget(addr)
	id, exp, err := s.opt.Ledger.NewTokenSession(r.Context(), name, scope, now)
	if err != nil {
		s.logf("sign-in: %v", err)
		s.plainError(w, http.StatusInternalServerError, "the session could not be stored")
		return
	}
	s.logf("sign-in: %s (%s) from %s", name, scope, addr)
	http.SetCookie(w, &http.Cookie{Name: s.servedCookie(), Value: id, Path: "/", Expires: exp,
		MaxAge: int(exp.Sub(now).Seconds()), HttpOnly: true, Secure: s.opt.Served.Secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, localPath(r.PostFormValue("next")), http.StatusSeeOther)
}

// localPath is p when it is a path of this app (what the sign-in page
// carries in "next"), else "/".
func localPath(p string) string {
	if p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\r\n") {
		return "/"
	}
	u, err := url.Parse(p)
	if err != nil || u.Scheme != "" || u.Host != "" || u.Query().Has("token") {
		return "/"
	}
	return u.RequestURI()
}

func minutes(d time.Duration) string {
	m := int(d.Minutes()) + 1
	if m == 1 {
		return "a minute"
	}
	return strconv.Itoa(m) + " minutes"
}

// clientAddr is the IP address of r's peer (a proxy in front of the
// server counts as one client: the limit is then shared, which still
// bounds guessing; forwarded headers are not trusted).
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// failLimiter counts failed sign-ins per client address within a window.
type failLimiter struct {
	mu     sync.Mutex
	max    int
	window time.Duration
	cap    int
	m      map[string]*failCount
}

type failCount struct {
	since time.Time
	n     int
}

func newFailLimiter(max int, window time.Duration, cap int) *failLimiter {
	return &failLimiter{max: max, window: window, cap: cap, m: map[string]*failCount{}}
}

// blocked returns how long addr must wait before its next attempt (0: it
// may try now).
func (l *failLimiter) blocked(addr string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.m[addr]
	if c == nil {
		return 0
	}
	if end := c.since.Add(l.window); !now.Before(end) {
		delete(l.m, addr)
		return 0
	} else if c.n >= l.max {
		return end.Sub(now)
	}
	return 0
}

// fail counts one failure of addr and returns its count in the window.
func (l *failLimiter) fail(addr string, now time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.m[addr]
	if c != nil && !now.Before(c.since.Add(l.window)) {
		c = nil
	}
	if c == nil {
		if len(l.m) >= l.cap {
			l.sweep(now)
		}
		c = &failCount{since: now}
		l.m[addr] = c
	}
	c.n++
	return c.n
}

// sweep forgets the addresses whose window ended, and one more when none
// did, to keep the map within its cap.
func (l *failLimiter) sweep(now time.Time) {
	for a, c := range l.m {
		if !now.Before(c.since.Add(l.window)) {
			delete(l.m, a)
		}
	}
	if len(l.m) >= l.cap {
		for a := range l.m {
			delete(l.m, a)
			break
		}
	}
}

func (l *failLimiter) forget(addr string) {
	l.mu.Lock()
	delete(l.m, addr)
	l.mu.Unlock()
}
