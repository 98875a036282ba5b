package linkledger

// The token verb: the bearer tokens of linkledger serve, one per device
// or agent (docs/several-machines.md, "Tokens").
//
// Reads: the database. Writes: token add, one line whose last word is the
// new token (shown this once; the ledger keeps only its hash); token
// list, one JSON object per token into a pipe ({"token":{name, scope,
// actor, created_at, last_used_at}}), a line each at a terminal; token
// revoke, nothing. Touches: the serve_tokens table; token add makes the
// database file (and -wal, -shm) mode 0600. Never creates a database
// except at the default location, as ll-save does.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// tokenJSON is a token as token list writes it.
type tokenJSON struct {
	Name       string `json:"name"`
	Scope      string `json:"scope"`
	Actor      string `json:"actor"`
	CreatedAt  string `json:"created_at"`
	LastUsedAt string `json:"last_used_at,omitempty"`
}

func tokenVerb(env cli.Env) *ucli.Command {
	withLedger := func(ctx context.Context, c *ucli.Command, f func(*ledger.Ledger) error) error {
		loc, err := cli.LocateDB(c.String("db"), env)
		if err != nil {
			return err
		}
		l, err := cli.OpenWriter(ctx, loc, ledger.OpenOptions{BusyTimeout: cli.BusyTimeout(c.Duration("busy-timeout"))})
		if err != nil {
			return err
		}
		defer l.Close()
		return f(l)
	}
	add := &ucli.Command{
		Name:      "add",
		Usage:     "make a token for a device or an agent; prints it once",
		UsageText: "linkledger token add NAME [--scope read|write|admin]",
		Description: `add makes a bearer token for linkledger serve and prints it once, as the
last word of its one line: only its hash is kept, so copy it now (a lost
token is revoked and made again). The database file is made readable by
its owner only (mode 0600).

NAME says who acts with the token, and is the actor of every write made
with it, whatever a request says: agent:NAME for an agent (its
annotations are by agent:NAME), human:DEVICE for you on a device (your
writes, as human). --scope read lets it search and read; write also
save, annotate, tag, pin, cite and build packs; admin is write and
managing tokens.

EXAMPLES:
   linkledger token add agent:build-box --scope write
   linkledger token add human:phone --scope write
   TOKEN=$(linkledger token add agent:reader | awk '{print $NF}')

` + cli.ExitCodesHelp,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "scope", Value: ledger.ScopeRead, Usage: "what the token may do: read, write or admin"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() != 1 {
				return cli.UsageHint("linkledger token add agent:build-box --scope write", "token add takes one NAME (got %d arguments)", c.Args().Len())
			}
			name, scope := c.Args().First(), c.String("scope")
			if err := ledger.ValidTokenName(name); err != nil {
				return cli.UsageHint("linkledger token add agent:build-box, or human:phone", "%v", err)
			}
			if !ledger.ValidScope(scope) {
				return cli.Usage("--scope %q: want read, write or admin", scope)
			}
			return withLedger(ctx, c, func(l *ledger.Ledger) error {
				secret, err := l.AddToken(ctx, name, scope)
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.Stdout, "token %s (scope %s, acting as %s): %s\n", name, scope, ledger.TokenActor(name), secret)
				return err
			})
		},
	}
	list := &ucli.Command{
		Name:      "list",
		Usage:     "list the tokens (never their secrets)",
		UsageText: "linkledger token list",
		Description: `list prints each token's name, scope, actor, when it was made and when it
was last used (to the minute): one JSON object per token into a pipe,
{"token":{"name","scope","actor","created_at","last_used_at"}}, and a
line each at a terminal.

` + cli.ExitCodesHelp,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Present() {
				return cli.Usage("token list takes no arguments (got %q)", c.Args().First())
			}
			return withLedger(ctx, c, func(l *ledger.Ledger) error {
				ts, err := l.Tokens(ctx)
				if err != nil {
					return err
				}
				human := cli.IsTerminal(env.Stdout)
				if human && len(ts) == 0 {
					fmt.Fprintln(env.Stderr, "linkledger token list: no tokens\nhint: linkledger token add agent:NAME --scope write")
				}
				for _, t := range ts {
					j := tokenJSON{Name: t.Name, Scope: t.Scope, Actor: t.Actor(), CreatedAt: record.FormatTime(t.Created), LastUsedAt: record.FormatTime(t.LastUsed)}
					var line string
					if human {
						used := "never used"
						if !t.LastUsed.IsZero() {
							used = "last used " + t.LastUsed.Local().Format(time.DateTime)
						}
						line = fmt.Sprintf("%-24s %-5s  made %s, %s", t.Name, t.Scope, t.Created.Local().Format(time.DateTime), used)
					} else {
						b, err := json.Marshal(map[string]tokenJSON{"token": j})
						if err != nil {
							return err
						}
						line = string(b)
					}
					if _, err := fmt.Fprintln(env.Stdout, line); err != nil {
						return err
					}
				}
				return nil
			})
		},
	}
	revoke := &ucli.Command{
		Name:      "revoke",
		Usage:     "revoke a token: the next request with it is refused",
		UsageText: "linkledger token revoke NAME",
		Description: `revoke deletes the token NAME. A server that is running refuses it from
the next request on (tokens are checked against the ledger on every
request; nothing is cached).

` + cli.ExitCodesHelp,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() != 1 {
				return cli.Usage("token revoke takes one NAME (got %d arguments)", c.Args().Len())
			}
			return withLedger(ctx, c, func(l *ledger.Ledger) error {
				return l.RevokeToken(ctx, c.Args().First())
			})
		},
	}
	for _, s := range []*ucli.Command{add, list, revoke} {
		cli.Prepare(s, env)
	}
	one := 1
	cmd := &ucli.Command{
		Name:      "token",
		Usage:     "the bearer tokens of linkledger serve: add, list, revoke",
		UsageText: "linkledger token add NAME [--scope read|write|admin]\n   linkledger token list\n   linkledger token revoke NAME",
		Description: `token manages the bearer tokens that let devices and agents use the ledger
through linkledger serve (docs/several-machines.md): one per device or
agent, each with a scope, each revocable on its own.

EXAMPLES:
   linkledger token add agent:build-box --scope write
   linkledger token list
   linkledger token revoke agent:build-box`,
		Flags:        []ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag()},
		Commands:     []*ucli.Command{add, list, revoke},
		StopOnNthArg: &one,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return unknownWord(c, "token command", c.Args().First(), []string{"add", "list", "revoke"})
			}
			return cli.UsageHint("linkledger token add agent:NAME --scope write", "token wants a command: add, list or revoke")
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
