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
		// no --db of its own: config's (as decay; 'config --db X embed'
		// must reach X)
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "url", Usage: "the endpoint's base `URL` (http or https, e.g. http://127.0.0.1:11434/v1)"},
			&ucli.StringFlag{Name: "model", Usage: "the embedding `MODEL` to ask for (e.g. nomic-embed-text)"},
			&ucli.BoolFlag{Name: "off", Usage: "store no endpoint"},
			&ucli.BoolFlag{Name: "reset", Usage: "delete the stored endpoint"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who sets it, stored with it: human or agent:<name>"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			set := c.IsSet("url") || c.IsSet("model")
			return settingAction(ctx, c, env, "--url/--model", []bool{set, c.Bool("off"), c.Bool("reset")}, nil,
				func(ctx context.Context, st *ledger.Ledger, actor string) (*record.Record, error) {
					switch {
					case c.Bool("reset"):
						return st.ResetEmbed(ctx)
					case c.Bool("off"):
						return st.SetEmbed(ctx, ledger.EmbedEndpoint{Off: true}, actor)
					case set:
						e, _, err := st.StoredEmbed(ctx)
						if err != nil {
							return nil, err
						}
						e.Off = false
						if c.IsSet("url") {
							e.URL = c.String("url")
						}
						if c.IsSet("model") {
							e.Model = c.String("model")
						}
						if err := e.Valid(); err != nil {
							return nil, cli.UsageHint("linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text", "config embed: %v", err)
						}
						return st.SetEmbed(ctx, e, actor)
					}
					return st.EmbedSetting(ctx)
				})
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
