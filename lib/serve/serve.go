// Package serve is the served ledger of `linkledger serve`
// (docs/several-machines.md): one HTTP handler over one open ledger for
// every device and agent, each with a bearer token of its own
// (lib/ledger's tokens). It mounts MCP over streamable HTTP at /mcp (the
// official Go SDK's handler, stateless, over lib/mcp's server), and the
// handlers other packages give it (the front command's JSON API at
// /api/v1/, the web app at /), behind one authentication middleware and
// one set of limits.
//
// Every request but the web app's carries `Authorization: Bearer TOKEN`;
// the token is checked against the ledger on every request (a revoked
// token fails on the next one) and its name and scope go into the
// request's context (IdentityFrom). A token in the URL is refused and
// never logged. Failed attempts are counted per client address: past
// MaxFailures in a minute the address is refused (429) for a minute, and
// each is said on stderr without the token.
package serve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/net/netutil"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
)

// Limits of the served address.
const (
	// MaxMCPBody caps one /mcp request body (a JSON-RPC message or batch):
	// a save or annotate is a few KiB; larger is refused with 413.
	MaxMCPBody = 1 << 20
	// MaxConns caps the connections open at once; more wait for one to
	// end (the kernel's backlog holds them).
	MaxConns = 256
	// MaxFailures is how many failed token attempts an address may make
	// in FailWindow before it is refused for FailWindow.
	MaxFailures = 10
	// FailWindow is the window of MaxFailures and the time an address is
	// refused after it.
	FailWindow = time.Minute
	// maxTracked bounds the addresses the failure counter remembers.
	maxTracked = 4096
	// maxAuthHeader bounds the Authorization header read.
	maxAuthHeader = 256
)

// Identity is who a request is from: its token's name (agent:NAME or
// human:DEVICE) and scope (read, write or admin).
type Identity struct {
	Name  string
	Scope string
}

// Actor is the actor of the writes made with the identity
// (ledger.TokenActor: the name for agent:NAME, human for human:DEVICE).
func (i Identity) Actor() string { return ledger.TokenActor(i.Name) }

type identityKey struct{}

// IdentityFrom is the identity the middleware put in a request's context.
func IdentityFrom(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// WithIdentity returns ctx carrying id (for handlers' tests).
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// Options are the served handler's settings.
type Options struct {
	// Ledger is the open ledger (writer): tokens are checked on it, and
	// the MCP server writes to it.
	Ledger *ledger.Ledger
	// MCP are the MCP server's options (Reader, Worker, Embedder, ...);
	// Caller is set by New: the request's token.
	MCP mcp.Options
	// API, when set, is mounted at /api/v1/ behind the token middleware
	// (the front command's JSON API); its handlers read IdentityFrom.
	API http.Handler
	// Web, when set, is mounted at / as it is: it authenticates its own
	// requests (sign-in page, session cookie). nil: / answers 404 with a
	// line saying where the web app is.
	Web http.Handler
	// BehindProxy says a TLS-terminating proxy is in front: a client's
	// address for the failure counter is the last X-Forwarded-For entry
	// (the one the proxy added), and the SDK's localhost Host check is
	// off (the proxy's Host is not localhost).
	BehindProxy bool
	// Logf says what was refused, on stderr (never a token); nil: nothing.
	Logf func(format string, args ...any)
	// Now is the clock of the failure counter (nil: time.Now).
	Now func() time.Time
}

// Handler is the served handler.
type Handler struct {
	opt   Options
	mux   *http.ServeMux
	fails *failures
}

// New returns the served handler.
func New(opt Options) *Handler {
	if opt.Logf == nil {
		opt.Logf = func(string, ...any) {}
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	h := &Handler{opt: opt, mux: http.NewServeMux(), fails: newFailures(opt.Now)}
	mo := opt.MCP
	mo.Caller = mcpCaller
	srv := mcp.New(opt.Ledger, mo).SDK()
	mh := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{
		Stateless:                  true,
		JSONResponse:               true,
		MaxRequestBodyBytes:        MaxMCPBody,
		DisableLocalhostProtection: opt.BehindProxy,
	})
	// the SDK reads the token's name and scope from its TokenInfo, which
	// only its own middleware can set: it is fed the identity the
	// middleware above already checked
	fromIdentity := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		id, ok := IdentityFrom(ctx)
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: id.Name, Scopes: []string{id.Scope}}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.opt.Logf("%s: refused a cross-origin %s %s (Origin %q)", h.clientAddr(r), r.Method, r.URL.Path, trim(r.Header.Get("Origin"), 100))
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	h.mux.Handle("/mcp", cop.Handler(h.bearer(capBody(MaxMCPBody, fromIdentity(mh)))))
	if opt.API != nil {
		h.mux.Handle("/api/v1/", cop.Handler(h.bearer(opt.API)))
	}
	if opt.Web != nil {
		h.mux.Handle("/", opt.Web)
	} else {
		h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			if hasTokenInQuery(r) {
				h.refuseQueryToken(w, r)
				return
			}
			http.Error(w, "linkledger serve: MCP is at /mcp (Authorization: Bearer TOKEN); the web app is not served here yet", http.StatusNotFound)
		})
	}
	return h
}

// ServeHTTP serves a request.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// mcpCaller is lib/mcp's Caller: the token the SDK passed on with the
// call (set by fromIdentity in New).
func mcpCaller(req *sdk.CallToolRequest) (string, string, bool) {
	if req == nil || req.Extra == nil || req.Extra.TokenInfo == nil || len(req.Extra.TokenInfo.Scopes) != 1 {
		return "", "", false
	}
	ti := req.Extra.TokenInfo
	if ledger.ValidTokenName(ti.UserID) != nil {
		return "", "", false
	}
	return ledger.TokenActor(ti.UserID), ti.Scopes[0], true
}

// capBody refuses a body over n bytes (413 from the reader's error, or at
// once from Content-Length).
func capBody(n int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > n {
			http.Error(w, fmt.Sprintf("request body over %d bytes", n), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, n)
		next.ServeHTTP(w, r)
	})
}

// queryTokenNames are the query parameters a token could be passed in.
var queryTokenNames = []string{"token", "access_token", "bearer", "authorization", "api_key", "apikey"}

// hasTokenInQuery reports whether the URL seems to carry a token: a
// parameter named as one, or any value starting with the token prefix.
func hasTokenInQuery(r *http.Request) bool {
	if r.URL.RawQuery == "" {
		return false
	}
	if strings.Contains(r.URL.RawQuery, ledger.TokenPrefix) {
		return true
	}
	q := r.URL.Query()
	for _, n := range queryTokenNames {
		for k := range q {
			if strings.EqualFold(k, n) {
				return true
			}
		}
	}
	return false
}

func (h *Handler) refuseQueryToken(w http.ResponseWriter, r *http.Request) {
	// the URL (with its query) is never logged: it holds the token
	h.opt.Logf("%s: refused a token in the URL of %s %s (send it in an Authorization: Bearer header; the token may have been logged by a proxy: revoke it)", h.clientAddr(r), r.Method, r.URL.Path)
	http.Error(w, "a token in the URL is refused: send it in an Authorization: Bearer header (and revoke this one: URLs end up in logs)", http.StatusBadRequest)
}

// bearer is the token middleware: Authorization: Bearer TOKEN, checked
// on the ledger, or 401; an address past MaxFailures gets 429.
func (h *Handler) bearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hasTokenInQuery(r) {
			h.refuseQueryToken(w, r)
			return
		}
		addr := h.clientAddr(r)
		if wait := h.fails.blocked(addr); wait > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
			http.Error(w, "too many failed token attempts from this address: wait and retry", http.StatusTooManyRequests)
			return
		}
		secret, why := bearerToken(r)
		if why != "" {
			h.fail(w, r, addr, why)
			return
		}
		tok, err := h.opt.Ledger.CheckToken(r.Context(), secret)
		if errors.Is(err, ledger.ErrBadToken) {
			h.fail(w, r, addr, "unknown or revoked token")
			return
		}
		if err != nil {
			h.opt.Logf("%s: checking a token on %s %s: %v", addr, r.Method, r.URL.Path, err)
			http.Error(w, "could not check the token: the server's ledger failed (see its stderr)", http.StatusServiceUnavailable)
			return
		}
		ctx := WithIdentity(r.Context(), Identity{Name: tok.Name, Scope: tok.Scope})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// bearerToken is the token of r's Authorization header, or why there is
// none.
func bearerToken(r *http.Request) (string, string) {
	vals := r.Header.Values("Authorization")
	switch {
	case len(vals) == 0:
		return "", "no Authorization header"
	case len(vals) > 1:
		return "", "more than one Authorization header"
	case len(vals[0]) > maxAuthHeader:
		return "", "an Authorization header too long"
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "Bearer") || tok == "" || strings.ContainsAny(tok, " \t") {
		return "", "an Authorization header that is not Bearer TOKEN"
	}
	return tok, ""
}

func (h *Handler) fail(w http.ResponseWriter, r *http.Request, addr, why string) {
	n := h.fails.add(addr)
	h.opt.Logf("%s: refused %s %s: %s (%d failed in the last %s)", addr, r.Method, r.URL.Path, why, n, FailWindow)
	w.Header().Set("WWW-Authenticate", `Bearer realm="linkledger"`)
	http.Error(w, "unauthorized: send Authorization: Bearer TOKEN with a token from linkledger token add", http.StatusUnauthorized)
}

// clientAddr is the address failures are counted by: the connection's,
// or behind a proxy the last X-Forwarded-For entry.
func (h *Handler) clientAddr(r *http.Request) string {
	if h.opt.BehindProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			parts := strings.Split(xff[len(xff)-1], ",")
			if ip := net.ParseIP(strings.TrimSpace(parts[len(parts)-1])); ip != nil {
				return ip.String()
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// failures counts failed token attempts per address.
type failures struct {
	now func() time.Time
	mu  sync.Mutex
	m   map[string]*failState
}

type failState struct {
	since   time.Time // start of the window
	n       int
	blocked time.Time // refused until
}

func newFailures(now func() time.Time) *failures {
	return &failures{now: now, m: make(map[string]*failState)}
}

// add counts a failure of addr and returns the count in its window.
func (f *failures) add(addr string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	s := f.m[addr]
	if s == nil || now.Sub(s.since) > FailWindow {
		if len(f.m) >= maxTracked {
			f.prune(now)
		}
		s = &failState{since: now}
		f.m[addr] = s
	}
	s.n++
	if s.n >= MaxFailures {
		s.blocked = now.Add(FailWindow)
	}
	return s.n
}

// blocked is how long addr is still refused (0: not).
func (f *failures) blocked(addr string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.m[addr]
	if s == nil {
		return 0
	}
	return max(s.blocked.Sub(f.now()), 0)
}

// prune forgets the addresses whose window and block are over; when all
// are recent (a flood from many addresses) it forgets all but the
// blocked ones, so memory stays bounded.
func (f *failures) prune(now time.Time) {
	for a, s := range f.m {
		if now.Sub(s.since) > FailWindow && !now.Before(s.blocked) {
			delete(f.m, a)
		}
	}
	if len(f.m) >= maxTracked {
		for a, s := range f.m {
			if !now.Before(s.blocked) {
				delete(f.m, a)
			}
		}
	}
}

// Server settings: a slow client cannot hold a connection open forever.
// (Variables for the tests only, which shorten them.)
var (
	maxConns          = MaxConns
	readHeaderTimeout = 10 * time.Second
	readTimeout       = time.Minute
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
)

// Server returns the http.Server for h, with its timeouts and header cap.
func Server(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// Serve serves h on ln (with TLS when cfg is not nil), at most MaxConns
// connections at once, until ctx ends; then it shuts down, letting
// requests in flight finish (at most 5 s).
func Serve(ctx context.Context, ln net.Listener, h http.Handler, cfg *tls.Config) error {
	srv := Server(h)
	ln = netutil.LimitListener(ln, maxConns)
	if cfg != nil {
		ln = tls.NewListener(ln, cfg)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-done
	return err
}
