package linkledger

import (
	"context"
	"fmt"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// embedVerb is `linkledger embed`: vectors for items already stored.
func embedVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "embed",
		Usage:     "add embedding vectors to stored items (for semantic and hybrid search)",
		UsageText: "linkledger embed [options] ITEM ... | --all",
		Description: `embed asks the embeddings endpoint (LINKLEDGER_EMBED_URL, model
LINKLEDGER_EMBED_MODEL or --model, key LINKLEDGER_EMBED_KEY) for a vector
of every stored chunk that has none of that model, and stores them in the
ledger, one transaction per item. Killed, it leaves each item embedded or
not; run it again and it does the rest. Items already embedded with the
model are skipped, so a second run does nothing. A chunk with a vector of
another model is embedded again: 'embed --all --model NEW' moves the ledger
to a new model (set LINKLEDGER_EMBED_MODEL to it for searches; until every
item is done, a search ranks semantically over the items done). Searches
never mix two models' vectors.

A model's vectors all have one size: a vector of another size than the
model's stored ones is refused (an error record for its item, exit 3), so
a search is never left to rank some of them. When the endpoint's model
changed under the same name, 'embed --all --resize' asks the endpoint the
size of its vectors now and embeds again every chunk whose vector has
another (resumable as any run; until it is done, a search ranks the items
of its query's size).

Each chunk is sent after the model's document prefix (LINKLEDGER_EMBED_DOC_PREFIX,
or the one stored with 'linkledger config embed --doc-prefix', else the
model's own: "search_document: " for nomic-embed-text). Vectors are stored
under the model and that prefix, so after a change of prefix 'embed --all'
embeds every chunk again, as after a change of model.

It writes one record per item: {id, embed: {model, dimensions, chunks}}, or
{id, embed: {model, error}} when the endpoint failed on it (the item keeps
the reason: ingest.last_embed_error). After a timeout or a connection
failure, or after 3 items in a row failed for any other reason (a steady
HTTP 500, 401), it stops and says why; the items done stay stored and the
next run resumes. A progress line at a terminal. Exit 3 when an item failed.
See docs/retrieval.md.

EXAMPLES:
   linkledger embed --all
   linkledger embed https://example.com/post
   linkledger embed --all --model nomic-embed-text -q
   linkledger embed --all --resize`,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			&ucli.BoolFlag{Name: "all", Usage: "every item with chunks not embedded with the model"},
			&ucli.BoolFlag{Name: "resize", Usage: "the endpoint's model now answers vectors of another size: embed again every chunk whose vector of the model has another size"},
			&ucli.StringFlag{Name: "model", Usage: "embed with model `NAME` instead of LINKLEDGER_EMBED_MODEL"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "embed at most `N` items (0: all)"},
			&ucli.DurationFlag{Name: "timeout", Value: embed.DefaultTimeout, Usage: "time of one request to the endpoint"},
			&ucli.IntFlag{Name: "batch-size", Value: embed.DefaultBatchSize, Usage: fmt.Sprintf("chunks per request `N` (1..%d)", embed.MaxBatchSize)},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			all := c.Bool("all")
			batchErr := embed.CheckBatchSize(int(c.Int("batch-size")))
			switch {
			case all && c.Args().Present():
				return cli.Usage("give ITEM arguments or --all, not both")
			case !all && !c.Args().Present():
				return cli.UsageHint("usage: "+c.UsageText, "want ITEM arguments or --all")
			case c.Int("limit") < 0:
				return cli.Usage("--limit %d: want 0 or more", c.Int("limit"))
			case batchErr != nil:
				return cli.Usage("--%v", batchErr)
			case c.Duration("timeout") <= 0:
				return cli.Usage("--timeout %s: want more than 0", c.Duration("timeout"))
			}
			var ids []string
			for _, a := range c.Args().Slice() {
				id, err := itemArg(ctx, c, env, a)
				if err != nil {
					return err
				}
				ids = append(ids, id)
			}
			out, st, _, err := openOutput(ctx, c, env, true)
			if err != nil {
				return err
			}
			defer st.Close()
			e, err := cli.WithStoredEmbed(ctx, env, st)
			if err != nil {
				return err
			}
			if m := c.String("model"); m != "" {
				getenv := e.Getenv
				e.Getenv = func(k string) string {
					if k == cli.EnvEmbedModel {
						return m
					}
					return getenv(k)
				}
			}
			client, err := cli.EmbedFromEnv(e, c.Duration("timeout"))
			if err != nil {
				return cli.Usage("%v", err)
			}
			if client == nil {
				return cli.UsageHint("linkledger config embed --url http://127.0.0.1:11434/v1 --model nomic-embed-text, or export LINKLEDGER_EMBED_URL and LINKLEDGER_EMBED_MODEL (docs/retrieval.md)",
					"no embeddings endpoint: none stored (linkledger config embed) and %s is not set", cli.EnvEmbedURL)
			}
			client.BatchSize = int(c.Int("batch-size"))
			progress := out.Progress(cli.FullName(c))
			defer progress.Done()
			diag := cli.Diag{Prog: cli.FullName(c), W: env.Stderr, Verbose: c.Bool("verbose"), Progress: progress}
			stopped := func(reason string) {
				diag.Printf("stopped: %s", reason)
				diag.Hintf("the items embedded so far are stored; once the endpoint answers, run linkledger embed --all again to do the rest")
			}
			hinted := false
			sizeRefused := func(de *spec.DimensionError) {
				if !hinted && de.Stored {
					hinted = true
					diag.Hintf("a model's vectors are all of one size; if the endpoint's model changed, embed every item again at its new size: linkledger embed --all --resize")
				}
			}
			opt := ledger.EmbedOptions{IDs: ids, Limit: int(c.Int("limit")), Stopped: stopped, SizeRefused: sizeRefused, Resize: c.Bool("resize")}
			failed, err := st.EmbedStored(ctx, client, opt, func(r *record.Record) error {
				if e := r.Embed.Error; e != nil {
					diag.Printf("%s: not embedded: %s: %s", r.ID, e.Code, e.Message)
				}
				progress.Tick(r.Embed.Error != nil)
				return out.Emit(r)
			})
			if err != nil {
				return err
			}
			if err := out.Finish(); err != nil || failed == 0 {
				return err
			}
			return cli.Partial
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
