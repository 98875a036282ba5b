package linkledger

// The ui verb: linkledger's local web app (lib/web).
//
// Reads: HTTP requests on a loopback address. Writes: the URL to open
// (with this run's token) as the first line of stdout, and nothing else
// there; diagnostics on stderr. Sessions and sign-in links are kept in the
// ledger (hashed; --sign-in-link adds one and prints its URL). Touches: opens the store once (creating it
// only at the default location, as ll-save does) and keeps it open, and
// DB.ui-token, the bookmarklet's token (made on first use). Each page
// reads the store, each form post writes it in one short transaction. Unless
// --no-worker it ingests pending items in the background, one at a time,
// with the ingest loop of `linkledger mcp` (backgroundWorker).

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/web"
)

func uiVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "ui",
		Usage:     "serve the local web app: inbox, reader, search, review, highlights",
		UsageText: "linkledger ui [--db FILE] [--addr 127.0.0.1:PORT] [--open] [--no-worker]\n   linkledger ui --sign-in-link [--db FILE] [--addr 127.0.0.1:PORT]",
		Description: `ui serves linkledger's web app on a loopback address. Its first line on
stdout is a sign-in link: the address to open, with this run's token.
Opening it starts a session kept in the ledger, so the browser stays
signed in for 30 days, across restarts of the browser and of the server
on the same address; Sign out (top right) ends it. Ctrl-C stops it.

--sign-in-link starts no server: it prints a fresh sign-in link for the
server of this ledger on --addr (running, or started within 10 minutes),
which works once, within 10 minutes. Use it when the browser asks you to
sign in and the first link is gone.

While it runs it ingests saved links in the background (the pipeline of
'linkledger worker', as linkledger mcp does); --no-worker turns that off.
Pages see what other processes write (ll-save, the MCP server) on the
next load. Only loopback addresses are accepted (docs/ui.md).

EXAMPLES:
   linkledger ui
   linkledger ui --addr 127.0.0.1:0 --no-worker
   linkledger ui --db ~/notes/.linkledger/linkledger.db --open
   linkledger ui --sign-in-link

` + cli.ExitCodesHelp,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:7474", Usage: "listen on `HOST:PORT`, a loopback address (port 0: a free one)"},
			&ucli.BoolFlag{Name: "open", Usage: "open the app in the default browser"},
			&ucli.BoolFlag{Name: "no-worker", Usage: "do not ingest in the background"},
			&ucli.BoolFlag{Name: "sign-in-link", Usage: "print a fresh sign-in link for the server on --addr (works once, within 10 minutes) and exit"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Present() {
				return cli.Usage("unexpected argument %q: ui takes options only", c.Args().First())
			}
			if err := web.CheckAddr(c.String("addr")); err != nil {
				return cli.UsageHint("try --addr 127.0.0.1:7474, or 127.0.0.1:0 for a free port", "%v", err)
			}
			if c.Bool("sign-in-link") {
				if c.Bool("open") || c.Bool("no-worker") {
					return cli.Usage("--sign-in-link starts no server: --open and --no-worker do not go with it")
				}
				return signInLink(ctx, env, c)
			}
			return serveUI(ctx, filters, env, c)
		},
	}
}

func serveUI(ctx context.Context, filters Filters, env cli.Env, c *ucli.Command) error {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	wait := cli.BusyTimeout(c.Duration("busy-timeout"))
	// the import form saves as linkledger import does (ledger.Import):
	// sub-journals in memory, as ll-save --batch has them
	st, err := cli.OpenWriter(ctx, loc, ledger.OpenOptions{BusyTimeout: wait, BulkImports: true})
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := web.Listen(c.String("addr"))
	if err != nil {
		return &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("listen on %s: %w", c.String("addr"), err)}
	}
	logf := func(format string, args ...any) {
		fmt.Fprintf(env.Stderr, cli.FullName(c)+": "+format+"\n", args...)
	}
	token := web.NewToken()
	capture, err := captureToken(loc.Path)
	if err != nil {
		ln.Close()
		return err
	}
	opt := web.Options{Ledger: st, Port: ln.Addr().(*net.TCPAddr).Port, Token: token, CaptureToken: capture, Logf: logf}
	// the embeddings endpoint, read once as the server starts, for the
	// search page and the packs it saves and refreshes (their ranking:
	// docs/retrieval.md)
	var fo ledger.FindOptions
	findflags.Embedder(ctx, env, st, &fo, cli.Diag{Prog: cli.FullName(c), W: env.Stderr})
	opt.Embedder = fo.Embedder
	if !c.Bool("no-worker") {
		// the ingest loop of linkledger mcp and worker --watch; stopped
		// (deferred after the close above) before the store closes
		l := backgroundWorker(filters, env, loc.Path, wait, st, cli.Diag{Prog: cli.FullName(c), W: env.Stderr})
		l.Start(ctx)
		defer l.Stop()
		opt.Poke = l.Wake
	}
	srv, err := web.New(opt)
	if err != nil {
		ln.Close()
		return err
	}
	u := web.URL(ln, token)
	if _, err := fmt.Fprintln(env.Stdout, u); err != nil {
		ln.Close()
		return err
	}
	if c.Bool("open") {
		openBrowser(u, logf)
	}
	err = srv.Serve(ctx, ln)
	if ctx.Err() != nil {
		return nil // Ctrl-C: a clean stop
	}
	return err
}

// signInLink prints a one-time sign-in link for the server of the ledger
// on --addr's port (docs/ui.md, "Sessions and sign-in"). It says on
// stderr when nothing answers there yet; the link is still good for its
// 10 minutes.
func signInLink(ctx context.Context, env cli.Env, c *ucli.Command) error {
	host, portStr, _ := net.SplitHostPort(c.String("addr"))
	port, _ := strconv.Atoi(portStr)
	if port == 0 {
		return cli.UsageHint("give the address the server printed, e.g. --addr 127.0.0.1:43121", "--sign-in-link: --addr %q has no port: a sign-in link is for one server's port", c.String("addr"))
	}
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	l, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: cli.BusyTimeout(c.Duration("busy-timeout"))})
	if err != nil {
		return err
	}
	defer l.Close()
	tok, err := l.NewSignIn(ctx, port, time.Now())
	if err != nil {
		return fmt.Errorf("sign-in link: %w", err)
	}
	addr := net.JoinHostPort(host, portStr)
	if _, err := fmt.Fprintln(env.Stdout, "http://"+addr+"/?token="+tok); err != nil {
		return err
	}
	if !web.Answers(ctx, addr) {
		fmt.Fprintf(env.Stderr, "%s: no linkledger ui answers on %s yet: the link works once one does, within 10 minutes\n", cli.FullName(c), addr)
	}
	return nil
}

// captureToken is the bookmarklet's token for the database at db. It opens
// the capture form only (docs/ui.md), and is kept in DB.ui-token (mode
// 0600, made on first use) so that a bookmarklet dragged once keeps
// working after a restart; the session token is new each run.
func captureToken(db string) (string, error) {
	p := db + ".ui-token"
	b, err := os.ReadFile(p)
	if err == nil {
		if t := strings.TrimSpace(string(b)); len(t) == 32 && strings.Trim(t, "0123456789abcdef") == "" {
			return t, nil
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("bookmarklet token %s: %w", p, err)
	}
	t := web.NewToken()
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", fmt.Errorf("bookmarklet token %s: %w", p, err)
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", fmt.Errorf("bookmarklet token %s: %w", p, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("bookmarklet token %s: %w", p, err)
	}
	return t, nil
}

// openBrowser asks the desktop to open u; without one it says so.
func openBrowser(u string, logf func(string, ...any)) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		logf("--open: no %s here; open the address above yourself", name)
		return
	}
	if err := exec.Command(path, u).Start(); err != nil {
		logf("--open: %v", err)
	}
}
