package linkledger

// config embed: the ledger's stored embeddings endpoint (docs/retrieval.md,
// "Semantic and hybrid retrieval").
//
// Reads: with no flags, only the database. Writes: one setting record.
// Touches: with --url/--model/--doc-prefix/--query-prefix/--default-prefixes,
// --off or --reset, the settings table. The key (LINKLEDGER_EMBED_KEY) is
// never stored. A note on stderr when the model vectors are made and
// searched under (model and document prefix) changes.

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

func configEmbedVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "embed",
		Usage:     "show or set the embeddings endpoint of the ledger",
		UsageText: "linkledger config embed [--url URL --model MODEL] [--doc-prefix TEXT] [--query-prefix TEXT] [--default-prefixes] | --off | --reset",
		Description: `The embeddings endpoint that the worker (its ll-embed stage), linkledger
embed, ll-find, ll-brief and the MCP server use: an OpenAI-compatible base
URL (POST URL/embeddings) and the model to ask for, and the model's task
prefixes. It is stored in the database, so every program that opens the
ledger uses the same one.

The environment overrides it: LINKLEDGER_EMBED_URL and
LINKLEDGER_EMBED_MODEL, when set, win over the stored URL and model,
LINKLEDGER_EMBED_DOC_PREFIX and LINKLEDGER_EMBED_QUERY_PREFIX (set, even
to "") over the stored prefixes. The key (LINKLEDGER_EMBED_KEY) is read
from the environment only and never stored; a URL with user info
(user:secret@host) is refused for the same reason.

Task prefixes: many retrieval models want a text before every document
chunk and another before every query (nomic-embed-text: "search_document: "
and "search_query: "). --doc-prefix and --query-prefix store them ("" for
none); without them a known model gets its own (nomic-embed-text, e5,
English bge, mxbai-embed-large) and any other none. The prefix is only
sent: stored and quoted text never holds it. Vectors are stored under the
model and the document prefix, so a changed document prefix is like a
changed model: searches stop using the old vectors until 'linkledger embed
--all' embeds again (a note says so). See docs/retrieval.md.

With no flags, prints the stored endpoint ("on": false when none) and the
prefixes in force. --url and --model set it (both are needed the first
time; later one changes alone, as do the prefixes); --default-prefixes
forgets stored prefixes (the model's own apply); --off stores "no
endpoint" (until changed); --reset deletes the stored setting.

EXAMPLES:
   linkledger config embed
   linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text
   linkledger config embed --doc-prefix 'passage: ' --query-prefix 'query: '
   linkledger config embed --off
   linkledger config embed --reset`,
		// no --db of its own: config's (as decay; 'config --db X embed'
		// must reach X)
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "url", Usage: "the endpoint's base `URL` (http or https, e.g. http://127.0.0.1:11434/v1)"},
			&ucli.StringFlag{Name: "model", Usage: "the embedding `MODEL` to ask for (e.g. nomic-embed-text)"},
			&ucli.StringFlag{Name: "doc-prefix", Usage: "`TEXT` sent before every chunk embedded (\"\": none; default: the model's, e.g. \"search_document: \")"},
			&ucli.StringFlag{Name: "query-prefix", Usage: "`TEXT` sent before every query embedded (\"\": none; default: the model's, e.g. \"search_query: \")"},
			&ucli.BoolFlag{Name: "default-prefixes", Usage: "forget the stored prefixes: the model's own apply"},
			&ucli.BoolFlag{Name: "off", Usage: "store no endpoint"},
			&ucli.BoolFlag{Name: "reset", Usage: "delete the stored endpoint"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who sets it, stored with it: human or agent:<name>"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			prefixes := c.IsSet("doc-prefix") || c.IsSet("query-prefix")
			set := c.IsSet("url") || c.IsSet("model") || prefixes || c.Bool("default-prefixes")
			check := func() error {
				if prefixes && c.Bool("default-prefixes") {
					return cli.Usage("give --doc-prefix/--query-prefix or --default-prefixes, not both")
				}
				for _, f := range []string{"doc-prefix", "query-prefix"} {
					if err := embed.CheckPrefix(c.String(f)); err != nil {
						return cli.Usage("--%s: %v", f, err)
					}
				}
				return nil
			}
			return settingAction(ctx, c, env, "--url/--model/--doc-prefix/--query-prefix", []bool{set, c.Bool("off"), c.Bool("reset")}, check,
				func(ctx context.Context, st *ledger.Ledger, actor string) (*record.Record, error) {
					switch {
					case c.Bool("reset"):
						return st.ResetEmbed(ctx)
					case c.Bool("off"):
						return st.SetEmbed(ctx, embed.Endpoint{Off: true}, actor)
					case set:
						e, row, err := st.StoredEmbed(ctx)
						if err != nil {
							return nil, err
						}
						was := ""
						if row != nil && !e.Off {
							doc, _ := e.Prefixes()
							was = embed.Identity(e.Model, doc)
						}
						e.Off = false
						if c.IsSet("url") {
							e.URL = c.String("url")
						}
						if c.IsSet("model") {
							e.Model = c.String("model")
						}
						if c.Bool("default-prefixes") {
							e.DocPrefix, e.QueryPrefix = nil, nil
						}
						if c.IsSet("doc-prefix") {
							v := c.String("doc-prefix")
							e.DocPrefix = &v
						}
						if c.IsSet("query-prefix") {
							v := c.String("query-prefix")
							e.QueryPrefix = &v
						}
						if err := e.Valid(); err != nil {
							return nil, cli.UsageHint("linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text", "config embed: %v", err)
						}
						rec, err := st.SetEmbed(ctx, e, actor)
						if doc, _ := e.Prefixes(); err == nil && was != "" && embed.Identity(e.Model, doc) != was {
							// vectors are searched under the model and
							// the document prefix: the old ones are not
							// used until embedded again
							cli.Diag{Prog: cli.FullName(c), W: env.Stderr}.Printf("note: vectors are now made and searched as %s, no longer %s: run 'linkledger embed --all' to embed the stored chunks again", embed.Identity(e.Model, doc), was)
						}
						return rec, err
					}
					return st.EmbedSetting(ctx)
				})
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
