// Package mcp is linkledger's MCP server: the tools an agent calls
// (overview, find, brief, save, annotate, tag, pin, show, status, related, cite, stats,
// pack_save, pack_show, pack_refresh, pack_list) over one open
// store, each a thin handler over the service layer (lib/ledger) with a
// JSON input and output schema, a structured result and a compact text
// form, and a documented size cap (docs/agents.md).
//
// It is built on the official Go SDK (github.com/modelcontextprotocol/go-sdk);
// the transport (stdio for `linkledger mcp`) is the caller's. Handlers may
// run concurrently: the store's connection pool serves them, and every
// call reads the database afresh, so writes by other processes are seen by
// the next call.
package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger"
)

// Options are the server's settings.
type Options struct {
	// Resolve reads item arguments and save URLs (canonicalization rules,
	// working directory and home for local paths).
	Resolve ledger.ResolveOptions
	// BusyTimeout is how long a write waits for another process's lock
	// (the store's setting; here only to say so in the error).
	BusyTimeout time.Duration
	// AgentHighlightCap is how many agent highlights an item keeps
	// (0: spec.DefaultAgentHighlightCap).
	AgentHighlightCap int
	// Version is the server's version in the handshake.
	Version string
	// Reader, when set, serves the read tools (find, brief, related,
	// show, status): a second handle on the same database with a short
	// busy timeout, so that the one write a read makes (marking stale
	// items for revalidation) is skipped rather than waited for while
	// another process holds the write lock. nil: the store serves all.
	Reader *ledger.Ledger
	// Worker, when set, is called after each save: the server's own
	// background worker (linkledger mcp) ingests it now. nil: another
	// process ingests saved links (linkledger worker), and results that
	// count pending items say to run it.
	Worker func()
	// Embedder embeds find's and brief's queries for semantic and hybrid
	// ranking (nil: no endpoint, lexical ranking; docs/retrieval.md).
	Embedder *embed.Client
	// AllowHumanActor lets a call's actor be human (linkledger mcp
	// --allow-human-actor); otherwise a call writes as agent:NAME only.
	AllowHumanActor bool
	// Caller, when set, says who makes each call (linkledger serve: the
	// bearer token of the HTTP request, lib/serve): actor is the actor of
	// every write the call makes, whatever its actor argument says (an
	// actor argument is ignored), and scope ("read", "write" or "admin",
	// ledger.ScopeAllows) is checked before the tool runs: a tool that
	// is not read-only needs write. ok false refuses every call. nil: the
	// actor comes from the call or the client's name (linkledger mcp).
	Caller func(req *sdk.CallToolRequest) (actor, scope string, ok bool)
}

// Server serves the tools over one store.
type Server struct {
	st  *ledger.Ledger // writes
	rd  *ledger.Ledger // reads (Options.Reader, or st)
	opt Options
	srv *sdk.Server
}

// instructions is what a client shows the model about the server.
const instructions = `linkledger is the user's memory of saved links (articles, posts, videos, PDFs).
Search it with find (or brief for a token-bounded evidence pack) before the web; save
a URL worth keeping with a note on why; annotate it with highlights (key claims),
lowlights (weak or wrong parts) and notes, with your confidence. Cite an item by its
id and URL, and record with cite each item you used in a task. Every result has a
size cap; see each tool's description. Start with overview (what the ledger holds:
its tags, sites and the words that set them apart) to choose words and tags; a
result's "next" field names the obvious next step.`

// New returns the server over st. st (and opt.Reader) stay the caller's
// to close.
func New(st *ledger.Ledger, opt Options) *Server {
	if opt.Version == "" {
		opt.Version = "dev"
	}
	s := &Server{st: st, rd: opt.Reader, opt: opt}
	if s.rd == nil {
		s.rd = st
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "linkledger", Version: opt.Version},
		&sdk.ServerOptions{Instructions: instructions, Capabilities: &sdk.ServerCapabilities{}})
	s.addTools()
	return s
}

// Run serves one session on t until the client disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// SDK returns the underlying SDK server (for in-memory tests).
func (s *Server) SDK() *sdk.Server { return s.srv }
