// Package web is linkledger's third face: the local web app of `linkledger
// ui`. Pages are rendered on the server with html/template from templates
// embedded in the binary; every page reads and every form posts without
// JavaScript, and a small script of our own (static/app.js) adds
// selection-to-highlight, review keys and live status.
//
// Handlers are thin: parse the request, call lib/ledger, render. The
// package imports no lib/store and no database/sql (lib/ledger's
// TestFacesDoNotImportStore): what a page needs that the service layer
// lacks is added to lib/ledger.
//
// Security lives in one middleware layer (security.go): loopback-only
// listening, a Host allowlist against DNS rebinding, sessions kept in the
// ledger behind a per-port HttpOnly SameSite=Strict cookie (a sign-in
// token starts one), cross-origin protection on every state-changing
// request (POST only, with Origin or Sec-Fetch-Site), a strict Content Security
// Policy and bounded request bodies. docs/ui.md describes the model.
package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger"
)

// DefaultPort is the port of linkledger ui's default address
// (127.0.0.1:7474).
const DefaultPort = 7474

// Caps on what a request may send.
const (
	// MaxFormBytes bounds the body of every form post but the import.
	MaxFormBytes = 256 << 10
	// MaxImportBytes bounds an import upload (the whole multipart body).
	MaxImportBytes = 32 << 20
)

// Options are the settings of a Server.
type Options struct {
	// Ledger is the open ledger the pages read and write.
	Ledger *ledger.Ledger
	// Port is the port the server listens on: the Host header must name
	// a loopback host with it.
	Port int
	// Token is the per-run sign-in token (the link linkledger ui prints):
	// it starts a session and is never one itself. The bookmarklet
	// carries CaptureToken, which opens the capture form only (empty:
	// Token).
	Token, CaptureToken string
	// Now is the clock of sessions and sign-in links (nil: time.Now).
	Now func() time.Time
	// Poke tells the background worker there is new work (nil: no worker).
	Poke func()
	// Embedder embeds the query of a search and of a pack saved or
	// refreshed, so the search page ranks as ll-find does (hybrid by
	// default) and a pack keeps the ranking it was saved with (nil: no
	// endpoint; searches and packs rank lexically, with a warning when a
	// ranking was asked for). Its timeout bounds how long a page waits.
	Embedder *embed.Client
	// Served, when set, is the served mode of linkledger serve (served.go,
	// docs/ui.md "Served mode"): sign-in with a device token instead of
	// Token, Host and Origin checked against its public origins instead
	// of loopback names and Port. Token, CaptureToken and Port are then
	// unused.
	Served *Served
	// Stderr-free: errors of a page are shown on the page; Logf, when set,
	// also receives them (the ui verb writes them to stderr).
	Logf func(format string, args ...any)
}

// Server is the web app.
type Server struct {
	opt    Options
	served *servedState // nil: linkledger ui (loopback)
	pages  *pages
	// importing is held by the import running (one at a time)
	importing sync.Mutex
	imports   importResults // the last import results, for their pages
}

// New returns the web app for opt.
func New(opt Options) (*Server, error) {
	if opt.Ledger == nil {
		return nil, errors.New("web: no ledger")
	}
	var served *servedState
	if opt.Served != nil {
		var err error
		if served, err = newServed(opt.Served); err != nil {
			return nil, err
		}
	} else if len(opt.Token) < 16 {
		return nil, errors.New("web: token too short")
	}
	if opt.CaptureToken == "" {
		opt.CaptureToken = opt.Token
	}
	p, err := loadPages()
	if err != nil {
		return nil, err
	}
	return &Server{opt: opt, served: served, pages: p}, nil
}

// NewToken returns a fresh random token (32 hex digits).
func NewToken() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// AddrError says --addr is not a loopback address.
type AddrError struct{ Addr, Why string }

func (e *AddrError) Error() string { return fmt.Sprintf("--addr %q: %s", e.Addr, e.Why) }

// CheckAddr accepts a listen address on a loopback IP (127.0.0.0/8 or
// ::1) or "localhost", with a port (0 picks a free one). Anything else
// would serve the ledger to the network.
func CheckAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &AddrError{addr, "want HOST:PORT, e.g. 127.0.0.1:7474"}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return &AddrError{addr, "the port must be a number from 0 to 65535"}
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return &AddrError{addr, "linkledger ui listens on loopback addresses only (127.0.0.1, ::1, localhost)"}
	}
	return nil
}

// Listen checks addr and listens on it ("localhost" is 127.0.0.1, so a
// name that resolves elsewhere cannot widen it).
func Listen(addr string) (net.Listener, error) {
	if err := CheckAddr(addr); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return net.Listen("tcp", addr)
}

// URL is the address to open: the listener's, with the token.
func URL(ln net.Listener, token string) string {
	return "http://" + ln.Addr().String() + "/?token=" + token
}

// Serve serves the app on ln until ctx ends, then shuts down, letting
// requests in flight finish (at most 5 s).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
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

func (s *Server) logf(format string, args ...any) {
	if s.opt.Logf != nil {
		s.opt.Logf(format, args...)
	}
}
