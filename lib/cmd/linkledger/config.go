package linkledger

// The config verb: the ledger's stored policies (the decay policy of
// ll-find, ll-brief and the MCP tools; the embeddings endpoint, in
// config_embed.go).
//
// Reads: with no flags, only the database. Writes: one record per setting
// ({"setting":{key, value, source, updated_at, updated_by}}) into a pipe;
// a line each at a terminal. Touches: with --below, --after, --off or
// --reset, the settings table. Never creates a database.

import (
	"context"
	"math"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

func configVerb(env cli.Env) *ucli.Command {
	decay := &ucli.Command{
		Name:      "decay",
		Usage:     "show or set the decay policy of ranking and briefs",
		UsageText: "linkledger config decay [--below X] [--after DURATION] | --off | --reset",
		Description: `Decay: an agent annotation with a confidence below --below, created
longer ago than --after, never confirmed by a person and on an item never
cited stops counting in ll-find's highlights and ranking, ll-brief and the
MCP find and brief tools. Nothing is deleted: 'linkledger review
--decayed' lists them, and confirming one makes it count again.

The policy is stored in the database (a policy of the ledger, so every
program and agent that opens it follows the same one). Without a stored
policy the default applies: on, below 0.5, after 90d. A search overrides
it with --decay-below, --decay-after or --no-decay.

With no flags, prints the policy in force. --below and --after change
one half (the other stays, or comes from the default when the policy is
off); --below 0 or --after 0 (or --off) stores "no decay"; --reset
deletes the stored policy so the default applies again.

EXAMPLES:
   linkledger config decay
   linkledger config decay --below 0.4 --after 180d
   linkledger config decay --off
   linkledger config decay --reset`,
		// no --db of its own: config's (a flag of a parent reaches its
		// subcommands) is read, typed before decay or after it; one here
		// hid it, and 'config --db X decay' went to another database
		Flags: []ucli.Flag{
			&ucli.FloatFlag{Name: "below", Usage: "agent annotations below this confidence decay (0 to 1; 0: no decay)"},
			&ucli.StringFlag{Name: "after", Usage: "... once older than `DURATION` (90d, 12h; 0: no decay)"},
			&ucli.BoolFlag{Name: "off", Usage: "store a policy of no decay"},
			&ucli.BoolFlag{Name: "reset", Usage: "delete the stored policy: the default applies"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who sets it, stored with it: human or agent:<name>"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			set := c.IsSet("below") || c.IsSet("after")
			var afterD ledger.DecayOptions
			check := func() error {
				if v := c.Float("below"); math.IsNaN(v) || v < 0 || v > 1 {
					return cli.Usage("--below %v: want a confidence from 0 to 1", v)
				}
				if c.IsSet("after") {
					d, err := ledger.ParseDuration(c.String("after"))
					if err != nil {
						return cli.Usage("--after: %v", err)
					}
					afterD.After = &d
				}
				return nil
			}
			return settingAction(ctx, c, env, "--below/--after", []bool{set, c.Bool("off"), c.Bool("reset")}, check,
				func(ctx context.Context, st *ledger.Ledger, actor string) (*record.Record, error) {
					switch {
					case c.Bool("reset"):
						return st.ResetDecay(ctx)
					case c.Bool("off"):
						return st.SetDecay(ctx, spec.DecayPolicy{}, actor)
					case set:
						if c.IsSet("below") {
							v := c.Float("below")
							afterD.Below = &v
						}
						p, err := st.ResolveDecayOptions(ctx, afterD)
						if err != nil {
							return nil, err
						}
						return st.SetDecay(ctx, p, actor)
					}
					return st.DecaySetting(ctx)
				})
		},
	}
	cli.Prepare(decay, env)
	one := 1
	cmd := &ucli.Command{
		Name:      "config",
		Usage:     "the ledger's stored policies (decay, embed)",
		UsageText: "linkledger config [decay|embed [options]]",
		Description: `config with no arguments prints every policy of the ledger as a record:
{"setting":{"key":"decay","value":{...},"source":"stored"|"default"}},
then the embeddings endpoint ("key":"embed").
'linkledger config decay --help' and 'linkledger config embed --help'
say how to change them.

EXAMPLES:
   linkledger config
   linkledger config decay --below 0.4 --after 180d`,
		Flags:    []ucli.Flag{cli.DBFlag()},
		Commands: []*ucli.Command{decay, configEmbedVerb(env)},
		// a mistyped setting's flags are not config's
		StopOnNthArg: &one,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return unknownWord(c, "setting", c.Args().First(), []string{"decay", "embed"})
			}
			return readLedger(ctx, c, env, "", func(ctx context.Context, st *ledger.Ledger) ([]*record.Record, error) {
				rec, err := st.DecaySetting(ctx)
				if err != nil {
					return nil, err
				}
				em, err := st.EmbedSetting(ctx)
				return []*record.Record{rec, em}, err
			})
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}

// settingAction runs a config verb: no arguments, at most one of choices
// (set: the flags named first, --off, --reset), check, a valid --actor;
// then do on the ledger (opened for writing when a choice is made), and
// its record out.
func settingAction(ctx context.Context, c *ucli.Command, env cli.Env, setFlags string, choices []bool, check func() error,
	do func(context.Context, *ledger.Ledger, string) (*record.Record, error)) error {
	if c.Args().Len() > 0 {
		return cli.Usage("config %s takes no arguments (got %q)", c.Name, c.Args().First())
	}
	n := 0
	for _, b := range choices {
		if b {
			n++
		}
	}
	if n > 1 {
		return cli.Usage("give one of: %s, --off, --reset", setFlags)
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	actor := c.String("actor")
	if err := record.CheckActor(actor); err != nil {
		return cli.Usage("--%v", err)
	}
	out, st, _, err := openOutput(ctx, c, env, n > 0)
	if err != nil {
		return err
	}
	defer st.Close()
	rec, err := do(ctx, st, actor)
	if err != nil {
		return err
	}
	if err := out.Emit(rec); err != nil {
		return err
	}
	return out.Finish()
}
