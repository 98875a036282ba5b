package linkledger

// config embed: the ledger's stored embeddings endpoint (docs/retrieval.md,
// "Semantic and hybrid retrieval").
//
// Reads: with no flags, only the database. Writes: one setting record.
// Touches: with --url/--model, --off or --reset, the settings table. The
// key (LINKLEDGER_EMBED_KEY) is never stored.

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

func configEmbedVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "embed",
		Usage:     "show or set the embeddings endpoint of the ledger",
		UsageText: "linkledger config embed [--url URL --model MODEL] | --off | --reset",
		Description: `The embeddings endpoint that the worker (its ll-embed stage), linkledger
embed, ll-find, ll-brief and the MCP server use: an OpenAI-compatible base
URL (POST URL/embeddings) and the model to ask for. It is stored in the
database, so every program that opens the ledger uses the same one.

The environment overrides it: LINKLEDGER_EMBED_URL and
LINKLEDGER_EMBED_MODEL, when set, win over the stored URL and model. The
key (LINKLEDGER_EMBED_KEY) is read from the environment only and never
stored; a URL with user info (user:secret@host) is refused for the same
reason.

With no flags, prints the stored endpoint ("on": false when none).
--url and --model set it (both are needed the first time; later one
changes alone); --off stores "no endpoint" (until changed); --reset
deletes the stored setting.

EXAMPLES:
   linkledger config embed
   linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text
   linkledger config embed --off
   linkledger config embed --reset`,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			&ucli.StringFlag{Name: "url", Usage: "the endpoint's base `URL` (http or https, e.g. http://127.0.0.1:11434/v1)"},
			&ucli.StringFlag{Name: "model", Usage: "the embedding `MODEL` to ask for (e.g. nomic-embed-text)"},
			&ucli.BoolFlag{Name: "off", Usage: "store no endpoint"},
			&ucli.BoolFlag{Name: "reset", Usage: "delete the stored endpoint"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who sets it, stored with it: human or agent:<name>"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("config embed takes no arguments (got %q)", c.Args().First())
			}
			set := c.IsSet("url") || c.IsSet("model")
			n := 0
			for _, b := range []bool{set, c.Bool("off"), c.Bool("reset")} {
				if b {
					n++
				}
			}
			if n > 1 {
				return cli.Usage("give one of: --url/--model, --off, --reset")
			}
			actor := c.String("actor")
			if !store.ValidActor(actor) {
				return cli.Usage("--actor %q: want human or agent:<name>", actor)
			}
			out, st, _, err := openOutput(ctx, c, env, n > 0)
			if err != nil {
				return err
			}
			defer st.Close()
			var rec *record.Record
			switch {
			case c.Bool("reset"):
				rec, err = ledger.ResetEmbed(ctx, st)
			case c.Bool("off"):
				rec, err = ledger.SetEmbed(ctx, st, store.EmbedSetting{Off: true}, actor)
			case set:
				var e store.EmbedSetting
				if e, _, err = st.StoredEmbed(ctx); err != nil {
					return err
				}
				e.Off = false
				if c.IsSet("url") {
					e.URL = c.String("url")
				}
				if c.IsSet("model") {
					e.Model = c.String("model")
				}
				if verr := e.Valid(); verr != nil {
					hint := "linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text"
					return cli.UsageHint(hint, "config embed: %v", verr)
				}
				rec, err = ledger.SetEmbed(ctx, st, e, actor)
			default:
				rec, err = ledger.EmbedSetting(ctx, st)
			}
			if err != nil {
				return err
			}
			if err := out.Emit(rec); err != nil {
				return err
			}
			return out.Finish()
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
