package linkledger

// The mcp verb: linkledger as an MCP server for agents (lib/mcp).
//
// Reads: MCP JSON-RPC messages on stdin, one per line. Writes: MCP
// messages on stdout and nothing else; diagnostics on stderr. Touches:
// opens the store once (creating it only at the default location, as
// ll-save does) and keeps it open while the client is connected: the
// read tools read it, save, annotate, tag and pin write it, one short
// transaction per call, waiting for another process's write lock up to
// --busy-timeout.

import (
	"context"
	"errors"
	"io"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
	"github.com/linkledger/linkledger/lib/store"
)

// mcpVerb returns the mcp verb.
func mcpVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "mcp",
		Usage:     "serve the ledger to an AI agent over MCP (stdio)",
		UsageText: "linkledger mcp [--db FILE] [--busy-timeout 30s]",
		Description: `mcp runs linkledger as a Model Context Protocol server on stdin and stdout,
for an MCP client (an agent, an editor, a desktop assistant) to start. Its
tools: find, brief, save, annotate, tag, pin, show, status, related; each has
a JSON input and output schema, returns structured content and a compact
text form, and has a size cap (docs/agents.md).

Writes (save, annotate, tag, pin) are made by agent:NAME, NAME being the
client's name from the MCP handshake, unless a call gives an actor. The
store stays open while the client is connected; writes by other processes
(ll-save, the worker) are seen by the next call.

A client configuration (most clients take this shape):
   {"mcpServers": {"linkledger": {"command": "linkledger", "args": ["mcp"]}}}

EXAMPLES:
   linkledger mcp
   linkledger mcp --db ~/notes/.linkledger/linkledger.db`,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON) for saved URLs and item arguments, as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
			&ucli.IntFlag{Name: "agent-cap", Value: store.DefaultAgentHighlightCap, Usage: "agent highlights kept per item (3..7)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error {
		if c.Args().Len() > 0 {
			return cli.Usage("mcp takes no arguments (got %q)", c.Args().First())
		}
		capN := c.Int("agent-cap")
		if capN < store.MinAgentHighlightCap || capN > store.MaxAgentHighlightCap {
			return cli.Usage("--agent-cap %d: want %d..%d", capN, store.MinAgentHighlightCap, store.MaxAgentHighlightCap)
		}
		ro, err := resolveOptions(c, env)
		if err != nil {
			return err
		}
		loc, err := cli.LocateDB(c.String("db"), env)
		if err != nil {
			return err
		}
		wait := cli.BusyTimeout(c.Duration("busy-timeout"))
		st, err := cli.OpenWriter(ctx, loc, store.Options{BusyTimeout: wait, PagePool: findflags.PagePoolSlots})
		if err != nil {
			return err
		}
		defer st.Close()
		// reads go through a second handle with ll-find's short busy
		// timeout: a find never waits on another process's write lock
		rd, err := cli.OpenReader(ctx, loc, store.Options{BusyTimeout: 250 * time.Millisecond})
		if err != nil {
			return err
		}
		defer rd.Close()
		diag := cli.Diag{Prog: "linkledger mcp", W: env.Stderr}
		var fo ledger.FindOptions
		findflags.Embedder(env, &fo, diag)
		srv := mcp.New(st, mcp.Options{Resolve: ro, BusyTimeout: wait, AgentHighlightCap: capN, Version: cli.Version, Reader: rd, Embedder: fo.Embedder})
		in := mcp.ValidLines(env.Stdin, func(line int) { diag.Printf("line %d: not a JSON-RPC message, skipped", line) })
		t := &sdk.IOTransport{Reader: in, Writer: nopWriteCloser{env.Stdout}}
		err = srv.Run(ctx, t)
		if err == nil || errors.Is(err, io.EOF) || ctx.Err() != nil {
			return nil // the client closed the connection, or we were stopped
		}
		return err
	}
	cli.Prepare(cmd, env)
	return cmd
}

// nopWriteCloser leaves stdout open when the session ends.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
