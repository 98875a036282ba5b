package linkledger

// The outbox verb and the front command's offline writes: with
// LINKLEDGER_URL set, a save, annotate or tag the server was not reached
// for waits in a local outbox file (lib/remote, outbox.go) and is
// replayed, in order, by the next remote command that reaches the server,
// or by `linkledger outbox push` (docs/several-machines.md, "Offline: the
// outbox").
//
// Reads: the outbox file (LINKLEDGER_OUTBOX, else one per server and
// token under $XDG_STATE_HOME/linkledger/, else ~/.local/state/linkledger/).
// Writes: outbox, one record {"outbox":{id, verb, args, queued_at,
// failed}} per entry into a pipe, a line each at a terminal; outbox push,
// one such record per entry answered, with "result" (replayed or
// failed); outbox drop, nothing. Touches: the outbox file, its .lock,
// .push, .tmp and .bad neighbours (mode 0600, directory 0700). Never the
// token: the file is named by a hash of the URL and token.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
)

// envOutbox names the outbox file, overriding the one per server and
// token.
const envOutbox = "LINKLEDGER_OUTBOX"

// outboxPath is the outbox file for the server at base and token:
// LINKLEDGER_OUTBOX when set, else outbox-HOST-HASH.ndjson under the
// user's state directory, HASH a hash of the URL and the token (the token
// itself is never written anywhere).
func outboxPath(env cli.Env, base *url.URL, token string) (string, error) {
	if p := env.Getenv(envOutbox); p != "" {
		return p, nil
	}
	dir := env.Getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := env.Getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("no place for the outbox: HOME and XDG_STATE_HOME are unset (set %s to a file)", envOutbox)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	u := *base
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	sum := sha256.Sum256([]byte(u.String() + "\n" + token))
	host := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, u.Host)
	return filepath.Join(dir, "linkledger", "outbox-"+host+"-"+hex.EncodeToString(sum[:6])+".ndjson"), nil
}

// autoPush replays what waits in the outbox before a remote command
// runs, with a line on stderr when it did anything. It returns the error
// that stopped it when the server was not reached (the command then need
// not try again); every other problem of the outbox is said and the
// command goes on.
func autoPush(ctx context.Context, env cli.Env, prog string, ob *remote.Outbox, c *remote.Client) error {
	es, _, err := ob.Read()
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: outbox %s: %v\n", prog, ob.Path, err)
		return nil
	}
	if remote.Waiting(es) == 0 {
		return nil
	}
	var failed []remote.Outcome
	sum, err := remote.Push(ctx, ob, c, false, func(o remote.Outcome) {
		if o.Result == "failed" {
			failed = append(failed, o)
		}
	})
	for _, b := range sum.Bad {
		fmt.Fprintf(env.Stderr, "%s: outbox %s: %s; set aside into %s.bad\n", prog, ob.Path, b, ob.Path)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "%s: outbox %s: %v\n", prog, ob.Path, err)
		return nil
	}
	if sum.Busy {
		return nil // another command is replaying it
	}
	for _, o := range failed {
		fmt.Fprintf(env.Stderr, "%s: outbox: %s %s failed on the server: %s (kept; linkledger outbox lists it, linkledger outbox drop %s removes it)\n",
			prog, o.Entry.ID, o.Entry.Verb, o.Entry.Failed.Message, o.Entry.ID)
	}
	if sum.Replayed > 0 || sum.Failed > 0 {
		fmt.Fprintf(env.Stderr, "%s: outbox: replayed %d, failed %d, %d waiting\n", prog, sum.Replayed, sum.Failed, sum.Waiting)
	}
	if sum.Stopped != nil && remote.Queueable(sum.Stopped) {
		return sum.Stopped
	}
	return nil
}

// queue puts a write the server was not reached for in the outbox: exit
// 5 with a line on stderr; when it cannot be queued (the outbox is full
// or cannot be written), exit 1 saying both.
func queue(env cli.Env, prog, base, verb string, args []string, ob *remote.Outbox, obErr, why error) int {
	if obErr == nil {
		var e remote.Entry
		var n int
		e, n, obErr = ob.Append(verb, args, time.Now())
		if obErr == nil {
			fmt.Fprintf(env.Stderr, "%s: server unreachable (%v): queued in the outbox as %s, %d waiting; replayed by the next command that reaches the server, or `linkledger outbox push`\n",
				prog, unreachableWhy(why), e.ID, n)
			return cli.ExitQueued
		}
	}
	return cli.Report(prog, env.Stderr, withHint(fatal(fmt.Errorf("%v; and it was not queued: %w", remoteError(base, why), obErr)),
		"nothing was written; run it again when the server is back (linkledger outbox push replays what waits)"))
}

// unreachableWhy is the short reason a server was not reached.
func unreachableWhy(err error) string {
	var ue *remote.UnreachableError
	var se *remote.ServerError
	switch {
	case errors.As(err, &ue):
		return ue.Err.Error() // names the address
	case errors.As(err, &se):
		return fmt.Sprintf("%d %s", se.Status, se.Msg)
	}
	return err.Error()
}

// outboxEntryJSON is an entry as the outbox verb writes it.
type outboxEntryJSON struct {
	remote.Entry
	Result string `json:"result,omitempty"`
}

func outboxVerb(env cli.Env) *ucli.Command {
	// open finds the outbox (and the client, when push needs one)
	open := func(needServer bool) (*remote.Outbox, *remote.Client, error) {
		rawURL, token := env.Getenv(remote.EnvURL), env.Getenv(remote.EnvToken)
		var base *url.URL
		if rawURL != "" || needServer {
			if rawURL == "" || token == "" {
				return nil, nil, cli.UsageHint("set LINKLEDGER_URL and LINKLEDGER_TOKEN as for the remote verbs",
					"the outbox belongs to a server and a token: LINKLEDGER_URL and LINKLEDGER_TOKEN must be set")
			}
			var err error
			if base, err = remote.CheckURL(rawURL, env.Getenv(remote.EnvAllowHTTP) == "1"); err != nil {
				return nil, nil, usageOf(err)
			}
		}
		if base == nil && env.Getenv(envOutbox) == "" {
			return nil, nil, cli.UsageHint("set LINKLEDGER_URL and LINKLEDGER_TOKEN, or LINKLEDGER_OUTBOX to the file",
				"which outbox? LINKLEDGER_URL is not set")
		}
		p, err := outboxPath(env, base, token)
		if err != nil {
			return nil, nil, fatal(err)
		}
		ob := &remote.Outbox{Path: p}
		if base == nil {
			return ob, nil, nil
		}
		return ob, &remote.Client{Base: base, Token: token}, nil
	}
	write := func(c *ucli.Command, out *cli.Output, e remote.Entry, result string) error {
		if !out.IsHuman() {
			return out.EmitValue(map[string]outboxEntryJSON{"outbox": {Entry: e, Result: result}})
		}
		state := "waiting"
		if result != "" {
			state = result
		}
		if e.Failed != nil {
			if result == "" {
				state = "failed"
			}
			state += ": " + e.Failed.Message
		}
		args := []rune(strings.Join(e.Args, " "))
		if len(args) > 80 {
			args = append(args[:77], []rune("...")...)
		}
		line := fmt.Sprintf("%s  %s  %-8s %s  (%s)\n", e.ID, e.QueuedAt, e.Verb, string(args), state)
		_, err := env.Stdout.Write(remote.TerminalSafe([]byte(line)))
		return err
	}
	badLines := func(c *ucli.Command, ob *remote.Outbox, bad []remote.BadLine, setAside bool) {
		for _, b := range bad {
			where := "; set aside by the next push"
			if setAside {
				where = "; set aside into " + ob.Path + ".bad"
			}
			fmt.Fprintf(env.Stderr, "%s: outbox %s: %s%s\n", cli.FullName(c), ob.Path, b, where)
		}
	}
	list := func(ctx context.Context, c *ucli.Command) error {
		if c.Args().Present() {
			return unknownWord(c, "outbox command", c.Args().First(), []string{"push", "drop"})
		}
		ob, _, err := open(false)
		if err != nil {
			return err
		}
		out, err := cli.OutputOn(c, env)
		if err != nil {
			return err
		}
		es, bad, err := ob.Read()
		if err != nil {
			return err
		}
		badLines(c, ob, bad, false)
		if out.IsHuman() && len(es) == 0 {
			fmt.Fprintf(env.Stderr, "%s: the outbox is empty (%s)\n", cli.FullName(c), ob.Path)
		}
		for _, e := range es {
			if err := write(c, out, e, ""); err != nil {
				return err
			}
		}
		return out.Close()
	}
	push := &ucli.Command{
		Name:      "push",
		Usage:     "replay what waits in the outbox, in order",
		UsageText: "linkledger outbox push",
		Description: `push sends the waiting entries to the server in the order they were
queued. An entry the server ran is removed; one it answered with an error
is kept as failed (listed by linkledger outbox, never replayed again, removed
with linkledger outbox drop ID); the push stops at the first entry the
server is not reached for, or answers 401, 403, 429 or 5xx (not the
entry's fault: it waits). One record per entry answered, with "result":
"replayed" or "failed".

Exit: 0 when everything waiting was replayed, 3 when some failed, 1 when
the push stopped (the rest waits).

EXAMPLES:
   linkledger outbox push`,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Present() {
				return cli.Usage("outbox push takes no arguments (got %q)", c.Args().First())
			}
			ob, client, err := open(true)
			if err != nil {
				return err
			}
			out, err := cli.OutputOn(c, env)
			if err != nil {
				return err
			}
			var werr error
			sum, err := remote.Push(ctx, ob, client, true, func(o remote.Outcome) {
				if werr == nil {
					werr = write(c, out, o.Entry, o.Result)
				}
			})
			badLines(c, ob, sum.Bad, true)
			if err != nil {
				return err
			}
			if werr != nil {
				return werr
			}
			if err := out.Close(); err != nil {
				return err
			}
			fmt.Fprintf(env.Stderr, "%s: replayed %d, failed %d, %d waiting\n", cli.FullName(c), sum.Replayed, sum.Failed, sum.Waiting)
			if sum.Stopped != nil {
				return remoteError(client.Base.Redacted(), sum.Stopped)
			}
			if sum.Failed > 0 {
				return cli.Partial
			}
			return nil
		},
	}
	drop := &ucli.Command{
		Name:      "drop",
		Usage:     "remove one entry from the outbox, deliberately",
		UsageText: "linkledger outbox drop ID ...",
		Description: `drop removes the entries named (waiting or failed): they are never sent.

EXAMPLES:
   linkledger outbox drop ob_0123456789abcdef`,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if !c.Args().Present() {
				return cli.UsageHint("linkledger outbox lists the ids", "outbox drop takes the ID of an entry")
			}
			ob, _, err := open(false)
			if err != nil {
				return err
			}
			for _, id := range c.Args().Slice() {
				err := ob.Remove(id)
				if errors.Is(err, remote.ErrNoEntry) {
					return cli.UsageHint("linkledger outbox lists the ids", "%q: no such entry in the outbox %s", id, ob.Path)
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	for _, s := range []*ucli.Command{push, drop} {
		cli.Prepare(s, env)
	}
	one := 1
	cmd := &ucli.Command{
		Name:      "outbox",
		Usage:     "the writes made while the server was unreachable: list, push, drop",
		UsageText: "linkledger outbox\n   linkledger outbox push\n   linkledger outbox drop ID",
		Description: `With LINKLEDGER_URL set, a save, annotate or tag that cannot reach the
server (connection refused or timed out, no DNS, a reset before any
answer, 502/503/504 from a proxy) waits in a local outbox and exits 5. The
next remote command that reaches the server replays it first; outbox push
replays it now. outbox lists what waits (and what the server refused, as
failed): one record {"outbox":{id, verb, args, queued_at, failed}} per
entry into a pipe, a line each at a terminal.

The file: LINKLEDGER_OUTBOX, else one per server and token under
$XDG_STATE_HOME/linkledger/ (else ~/.local/state/linkledger/), mode 0600.
It never holds the token. docs/several-machines.md, "Offline: the outbox".

EXIT CODE 5 (of save, annotate, tag): queued in the outbox, not yet done.

EXAMPLES:
   linkledger outbox
   linkledger outbox push
   linkledger outbox drop ob_0123456789abcdef`,
		Commands:     []*ucli.Command{push, drop},
		StopOnNthArg: &one,
		Action:       list,
	}
	cli.Prepare(cmd, env)
	return cmd
}
