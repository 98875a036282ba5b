package linkledger

// The mcp verb: linkledger as an MCP server for agents (lib/mcp).
//
// Reads: MCP JSON-RPC messages on stdin, one per line. Writes: MCP
// messages on stdout and nothing else; diagnostics on stderr. Touches:
// opens the store once (creating it only at the default location, as
// ll-save does) and keeps it open while the client is connected: the
// read tools read it, save, annotate, tag and pin write it, one short
// transaction per call, waiting for another process's write lock up to
// --busy-timeout. Unless --no-worker, it also runs the worker in the
// background (ll-find --pending | ll-fetch | ll-parse | ll-index as
// processes, one pass at a time, one fetch at a time), whose records go
// nowhere and whose diagnostics go to stderr.

import (
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/mcp"
)

// mcpVerb returns the mcp verb.
func mcpVerb(filters Filters, env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "mcp",
		Usage:     "serve the ledger to an AI agent over MCP (stdio)",
		UsageText: "linkledger mcp [--db FILE] [--busy-timeout 30s] [--no-worker] [--allow-human-actor]",
		Description: `mcp runs linkledger as a Model Context Protocol server on stdin and stdout,
for an MCP client (an agent, an editor, a desktop assistant) to start. Its
tools: find, brief, save, annotate, tag, pin, show, status, related; each has
a JSON input and output schema, returns structured content and a compact
text form, and has a size cap (docs/agents.md).

While it serves, it ingests saved links in the background (the worker:
one pass at a time, one fetch at a time), so a link an agent saves is
readable seconds later; save's wait argument waits for it. --no-worker
leaves ingesting to another process (linkledger worker --watch).

Writes (save, annotate, tag, pin, cite, pack_save, pack_refresh) are made
by agent:NAME, NAME being the client's name from the MCP handshake, unless
a call gives another agent:NAME. A call giving actor human is refused: any
client could claim to be the person, whose words outrank an agent's.
--allow-human-actor lets calls say human, for a client that only ever acts
on what the person at the keyboard typed. The
store stays open while the client is connected; writes by other processes
(ll-save, the worker) are seen by the next call.

Each message is one line of at most 4 MiB. A line that is not a JSON-RPC
2.0 message (or is longer, or nests more than 64 levels) is answered with
a JSON-RPC error and said on stderr; the session goes on.

A client configuration (most clients take this shape):
   {"mcpServers": {"linkledger": {"command": "linkledger", "args": ["mcp"]}}}

EXAMPLES:
   linkledger mcp
   linkledger mcp --db ~/notes/.linkledger/linkledger.db
   linkledger mcp --no-worker`,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON) for saved URLs and item arguments, as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
			&ucli.IntFlag{Name: "agent-cap", Value: spec.DefaultAgentHighlightCap, Usage: "agent highlights kept per item (3..7)"},
			&ucli.BoolFlag{Name: "no-worker", Usage: "do not ingest saved links in the background (leave it to linkledger worker)"},
			&ucli.BoolFlag{Name: "allow-human-actor", Usage: "let a call's actor be human (by default a client writes only as agent:NAME)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error {
		if c.Args().Len() > 0 {
			return cli.Usage("mcp takes no arguments (got %q)", c.Args().First())
		}
		capN, err := agentCap(c)
		if err != nil {
			return err
		}
		h, err := openServerLedgers(ctx, c, env)
		if err != nil {
			return err
		}
		defer h.Close()
		loc, st, rd, wait, ro := h.loc, h.st, h.rd, h.wait, h.ro
		diag := cli.Diag{Prog: "linkledger mcp", W: env.Stderr}
		opt := mcp.Options{Resolve: ro, BusyTimeout: wait, AgentHighlightCap: capN, Version: cli.Version, Reader: rd, AllowHumanActor: c.Bool("allow-human-actor")}
		// the stored embeddings endpoint, read once as the server starts,
		// for its finds and its background worker's ll-embed stage
		if env, err = cli.WithStoredEmbed(ctx, env, rd); err != nil {
			diag.Printf("warning: %v", err)
		}
		var fo ledger.FindOptions
		findflags.Embedder(ctx, env, rd, &fo, diag)
		opt.Embedder = fo.Embedder
		if !c.Bool("no-worker") {
			l := backgroundWorker(filters, env, loc.Path, wait, rd, diag)
			l.Start(ctx)
			// stopped before the stores close: a pass in flight ends
			// between records
			defer l.Stop()
			opt.Worker = l.Wake
		}
		srv := mcp.New(st, opt)
		// every line is checked and capped before the SDK sees it: a bad
		// one is answered with a JSON-RPC error and the session goes on
		fr := mcp.NewFraming(env.Stdin, env.Stdout, func(_ int, why string) { diag.Printf("%s: answered with an error", why) })
		t := &sdk.IOTransport{Reader: fr.In(), Writer: fr.Out(), MaxLineLength: mcp.MaxLineBytes + 64}
		err = srv.Run(ctx, t)
		if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil // the client closed the connection, or we were stopped
		}
		return err
	}
	cli.Prepare(cmd, env)
	return cmd
}

// Background worker settings: small passes, one fetch at a time, so that
// the server's own calls never wait long on it.
const (
	backgroundLimit       = 16
	backgroundConcurrency = 1
)

// backgroundWorker is the one ingest loop of a face that serves
// (linkledger mcp and linkledger ui): passes of ll-find --pending --claim |
// ll-fetch | ll-parse [| ll-embed] | ll-index over the database at path,
// ll-embed when an endpoint is configured (the environment's, else the
// ledger's stored one); records discarded, -q (no diagnostics per item:
// a failed item's error is stored with it), ll-index waiting up to busy
// for the write lock, the pending queue counted on rd; diagnostics to
// diag.W as "PROG: worker: STAGE: ...". The caller Starts it with the
// server and Stops it before closing rd.
func backgroundWorker(filters Filters, env cli.Env, path string, busy time.Duration, rd *ledger.Ledger, diag cli.Diag) *ingestLoop {
	pass := func(ctx context.Context) error {
		allow, done, err := allowedFilesArgs(ctx, env, path)
		defer done()
		if err != nil {
			return err
		}
		// the stored endpoint (linkledger config embed) read each pass,
		// so a change applies without a restart; the environment's wins
		e, err := cli.WithStoredEmbed(ctx, env, rd)
		if err != nil {
			return err
		}
		e.Stdin, e.Stdout = nil, io.Discard // never the server's stdin and stdout
		db := []string{"--db", path, "-q"}
		stages := []stage{
			{"ll-find", append([]string{"--pending", "--claim", "--limit", strconv.Itoa(backgroundLimit)}, db...)},
			{"ll-fetch", append([]string{"-q", "--concurrency", strconv.Itoa(backgroundConcurrency)}, allow...)},
			{"ll-parse", []string{"-q"}},
		}
		if e.Getenv != nil && e.Getenv(cli.EnvEmbedURL) != "" {
			// an embeddings endpoint is configured: vectors too, as the
			// worker verb does (embedStage)
			stages = append(stages, stage{"ll-embed", []string{"-q"}})
		}
		index := append([]string{"--busy-timeout=" + busy.String()}, db...)
		return pipeline(ctx, filters, e, diag.Prog+": worker", append(stages, stage{"ll-index", index}))
	}
	// the items another loop (a worker --watch, another face) claimed
	// are its own: counting them would run passes that find nothing
	pending := func(ctx context.Context) (int, error) { return rd.CountClaimable(ctx, 0) }
	return newIngestLoop(pass, pending, cli.Diag{Prog: diag.Prog + ": worker", W: diag.W})
}

// serverLedgers are the handles a serving face (mcp, serve) keeps open: a
// writer, and a reader with ll-find's short busy timeout, so a find never
// waits on another process's write lock; with the ledger's location, the
// writer's busy timeout and the resolve options of item arguments.
type serverLedgers struct {
	loc    cli.DBLocation
	st, rd *ledger.Ledger
	wait   time.Duration
	ro     ledger.ResolveOptions
}

// openServerLedgers opens the handles of a serving face from c's --db,
// --busy-timeout and --rules; Close closes them.
func openServerLedgers(ctx context.Context, c *ucli.Command, env cli.Env) (*serverLedgers, error) {
	ro, err := resolveOptions(c, env)
	if err != nil {
		return nil, err
	}
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return nil, err
	}
	wait := cli.BusyTimeout(c.Duration("busy-timeout"))
	st, err := cli.OpenWriter(ctx, loc, ledger.OpenOptions{BusyTimeout: wait, PagePool: findflags.PagePoolSlots})
	if err != nil {
		return nil, err
	}
	rd, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: 250 * time.Millisecond})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &serverLedgers{loc: loc, st: st, rd: rd, wait: wait, ro: ro}, nil
}

// Close closes both handles.
func (s *serverLedgers) Close() {
	s.rd.Close()
	s.st.Close()
}

// agentCap is --agent-cap, checked.
func agentCap(c *ucli.Command) (int, error) {
	n := c.Int("agent-cap")
	if err := spec.CheckAgentHighlightCap(int(n)); err != nil {
		return 0, cli.Usage("--%v", err)
	}
	return n, nil
}
