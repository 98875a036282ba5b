package linkledger

// The serve verb: one ledger served to every device and agent over HTTP
// (lib/serve; docs/several-machines.md).
//
// Reads: HTTP requests on --addr, each with a bearer token (linkledger
// token add). Writes: the base URL as the first line of stdout, and
// nothing else there; diagnostics on stderr (refused requests, never a
// token). Touches: opens the store once (creating it only at the default
// location, as ll-save does) and keeps it open; MCP calls write it as
// linkledger mcp's do. Unless --no-worker it ingests pending items in the
// background (backgroundWorker, as linkledger mcp and ui do).

import (
	"context"
	"crypto/tls"
	"fmt"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/mcp"
	"github.com/linkledger/linkledger/lib/serve"
)

func serveVerb(filters Filters, env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "serve",
		Usage:     "serve the ledger to other machines and agents over HTTP, with a token each",
		UsageText: "linkledger serve [--db FILE] [--addr HOST:PORT] [--no-worker] [--tls-cert FILE --tls-key FILE] [--behind-proxy] [--origin URL] [--replica URL]",
		Description: `serve makes this ledger the home of every device and agent: MCP over
streamable HTTP at /mcp, for any MCP client on any machine; the web app at
/ (a browser signs in with a token; --origin names the address browsers
use when a proxy is in front); and /api/v1/ for the front command on other
machines (LINKLEDGER_URL). Its first line on stdout is the base URL
(--addr 127.0.0.1:0 picks a free port). Ctrl-C stops it.

--replica URL copies the ledger continuously with Litestream (file://,
sftp:// or s3://; docs/several-machines.md); the server takes requests
once the first copy is made. restore-replica restores it elsewhere.

Every request carries a token: 'Authorization: Bearer TOKEN', a token made
with 'linkledger token add NAME --scope read|write'. The token's name is
the actor of every write made with it (agent:NAME, or human for a
human:DEVICE token), whatever the request says; a read token cannot save
or annotate. Tokens are checked on every request: 'linkledger token
revoke NAME' takes effect on the next one. A token in the URL is refused.
After 10 failed attempts in a minute an address is refused for a minute;
each failure is said on stderr, without the token.

Beyond loopback the tokens must not cross the network in clear: give
--tls-cert and --tls-key, or --behind-proxy when a TLS-terminating proxy
or a private network (a tailnet) is in front (docs/several-machines.md
says what each protects against). Otherwise an address beyond loopback
is refused.

Limits: a /mcp request body of 1 MiB, 256 connections at once, 10 s to
send the headers, 1 min to send a request, 64 KiB of headers.

While it runs it ingests saved links in the background (as linkledger
mcp does); --no-worker leaves that to another process.

EXAMPLES:
   linkledger token add agent:build-box --scope write
   linkledger serve --addr 127.0.0.1:7475
   linkledger serve --addr 100.64.0.7:7475 --behind-proxy
   linkledger serve --addr 0.0.0.0:7475 --tls-cert cert.pem --tls-key key.pem
   linkledger serve --addr 127.0.0.1:7475 --behind-proxy --origin https://ledger.example.net
   linkledger serve --replica file:///mnt/backup/linkledger

` + cli.ExitCodesHelp,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:7475", Usage: "listen on `HOST:PORT` (port 0: a free one); beyond loopback only with TLS or --behind-proxy"},
			&ucli.BoolFlag{Name: "no-worker", Usage: "do not ingest in the background"},
			&ucli.StringFlag{Name: "tls-cert", Usage: "serve HTTPS with this certificate `FILE` (PEM; with --tls-key)"},
			&ucli.StringFlag{Name: "tls-key", Usage: "the certificate's private key `FILE` (PEM)"},
			&ucli.BoolFlag{Name: "behind-proxy", Usage: "a TLS-terminating proxy or a private network (a tailnet) is in front: allow an address beyond loopback without TLS"},
			&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON) for saved URLs and item arguments, as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
			&ucli.IntFlag{Name: "agent-cap", Value: spec.DefaultAgentHighlightCap, Usage: "agent highlights kept per item (3..7)"},
			&ucli.StringSliceFlag{Name: "origin", Usage: "a public `URL` (scheme://host[:port]) the web app is reached at, e.g. the proxy's https address (repeatable; default: the address served)"},
			&ucli.BoolFlag{Name: "private-fetch", Usage: "let the server fetch loopback and private addresses (default: public addresses only: any write token could otherwise make the server read its own network)"},
			&ucli.StringFlag{Name: "replica", Usage: "copy the ledger continuously with Litestream to `URL` (file:///folder, sftp://user@host/folder, s3://bucket/path; docs/several-machines.md)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error {
		if c.Args().Present() {
			return cli.Usage("serve takes options only (got %q)", c.Args().First())
		}
		capN, err := agentCap(c)
		if err != nil {
			return err
		}
		certF, keyF := c.String("tls-cert"), c.String("tls-key")
		if (certF == "") != (keyF == "") {
			return cli.Usage("--tls-cert and --tls-key go together (got only one)")
		}
		withTLS := certF != ""
		if err := serve.CheckAddr(c.String("addr"), withTLS, c.Bool("behind-proxy")); err != nil {
			hint := ""
			if ae, ok := err.(*serve.AddrError); ok {
				hint = ae.Hint
			}
			return cli.UsageHint(hint, "%v", err)
		}
		var tlsCfg *tls.Config
		if withTLS {
			var err error
			if tlsCfg, err = serve.TLSConfig(certF, keyF); err != nil {
				return &cli.ExitError{Code: cli.ExitFatal, Err: err}
			}
		}
		if !c.Bool("private-fetch") {
			// links saved from other machines are fetched on this one:
			// public addresses only, redirects and images included, or a
			// write token could read this machine's loopback services,
			// its LAN and a cloud's metadata address (docs/several-machines.md)
			env = envSet(env, cli.PublicOnlyEnv, "1")
		}
		handles, err := openServerLedgers(ctx, c, env)
		if err != nil {
			return err
		}
		defer handles.Close()
		loc, st, rd, wait, ro := handles.loc, handles.st, handles.rd, handles.wait, handles.ro
		diag := cli.Diag{Prog: cli.FullName(c), W: env.Stderr}
		mo := mcp.Options{Resolve: ro, BusyTimeout: wait, AgentHighlightCap: capN, Version: cli.Version, Reader: rd}
		if env, err = cli.WithStoredEmbed(ctx, env, rd); err != nil {
			diag.Printf("warning: %v", err)
		}
		var fo ledger.FindOptions
		findflags.Embedder(ctx, env, rd, &fo, diag)
		mo.Embedder = fo.Embedder
		ln, err := serve.Listen(c.String("addr"), withTLS, c.Bool("behind-proxy"))
		if err != nil {
			return &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("listen on %s: %w", c.String("addr"), err)}
		}
		if !c.Bool("no-worker") {
			l := backgroundWorker(filters, env, loc.Path, wait, rd, diag)
			l.Start(ctx)
			defer l.Stop()
			mo.Worker = l.Wake
		}
		base := serve.BaseURL(ln, withTLS)
		web, err := servedWeb(st, c.StringSlice("origin"), base, mo, diag)
		if err != nil {
			ln.Close()
			return cli.Usage("%v", err)
		}
		if u := c.String("replica"); u != "" {
			p, err := startReplica(ctx, env, loc.Path, u)
			if err != nil {
				ln.Close()
				return err
			}
			defer func() {
				if err := p.Stop(context.Background()); err != nil {
					diag.Printf("replica: %v", err)
				}
			}()
			go func() {
				select {
				case <-p.Done():
					if ctx.Err() == nil {
						diag.Printf("warning: litestream exited (%v): the ledger is no longer copied to %s; restart linkledger serve", p.Err(), u)
					}
				case <-ctx.Done():
				}
			}()
		}
		h := serve.New(serve.Options{Ledger: st, MCP: mo, Web: web, API: servedAPI(filters, env, loc.Path, serveIdentity),
			BehindProxy: c.Bool("behind-proxy"), Logf: diag.Printf})
		if _, err := fmt.Fprintln(env.Stdout, base); err != nil {
			ln.Close()
			return err
		}
		if n, err := st.Tokens(ctx); err == nil && len(n) == 0 {
			diag.Printf("no tokens yet: every request is refused until one is added\nhint: linkledger token add agent:NAME --scope write")
		}
		err = serve.Serve(ctx, ln, h, tlsCfg)
		if ctx.Err() != nil {
			return nil // Ctrl-C: a clean stop
		}
		return err
	}
	cli.Prepare(cmd, env)
	return cmd
}
