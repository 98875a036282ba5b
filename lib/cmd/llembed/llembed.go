// Package llembed is the ll-embed command: the stateless embedding stage
// between ll-parse and ll-index.
//
// Reads: NDJSON records from ll-parse (chunks).
// Writes: each record, in input order, with a vector on each chunk
// ("embedding": little-endian float32, base64) and embed {model,
// dimensions, chunks}; a record the endpoint failed on passes on without
// vectors, with embed {model, error}, so ll-index indexes its text
// lexically and keeps the reason on the item. Records with an error, a
// not-modified fetch, stored chunks (ll-find --with-chunks) or no chunks
// pass through untouched; with no endpoint configured every record does.
// Touches: stdin, stdout and the embeddings endpoint of
// LINKLEDGER_EMBED_URL (model LINKLEDGER_EMBED_MODEL, key
// LINKLEDGER_EMBED_KEY, document prefix LINKLEDGER_EMBED_DOC_PREFIX, read
// from the environment only).
package llembed

import (
	"context"
	"fmt"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

const description = `ll-embed adds an embedding vector to every chunk of each parsed record, by
asking an embeddings endpoint, so ll-index stores the vectors next to the text
and ll-find can rank by meaning (--mode semantic or hybrid).

The endpoint comes from the environment:
  LINKLEDGER_EMBED_URL    an OpenAI-compatible base URL (POST URL/embeddings),
                          e.g. http://127.0.0.1:11434/v1 for Ollama, or a
                          URL ending in /api/embed for Ollama's native API
  LINKLEDGER_EMBED_MODEL  the model name, e.g. nomic-embed-text
  LINKLEDGER_EMBED_KEY    an API key (optional; never a flag, never written)
  LINKLEDGER_EMBED_DOC_PREFIX
                          text sent before every chunk (a model's task
                          prefix; "" for none). Unset: the model's own for
                          nomic-embed-text ("search_document: "), e5
                          ("passage: "), none for others
With no LINKLEDGER_EMBED_URL every record passes through unchanged.

The prefix is only sent: the chunks' text stays as it came, and the text
sent (prefix included) is cut at 32 KiB. embed.model names the model and
the prefix the vectors were made with (nomic-embed-text+"search_document: "),
so ll-find never compares vectors of two prefixes.

Chunks are sent --batch-size at a time. Every answer is checked: one vector
per chunk, one dimension, finite numbers, and at most a size in bytes fixed
by the batch (a larger answer is not read). Timeouts, connection failures,
429 and 5xx are retried with backoff (Retry-After is honoured, at most 30s).
A redirect is followed only within the endpoint's scheme, host and port
(bad_redirect otherwise: nothing is sent to another host).
A record that still fails passes on without vectors and with embed.error;
ll-index indexes its text lexically and the item keeps the reason. After a
timeout or a connection failure, or after 3 records in a row failed for
any other reason (a steady HTTP 500, 401), the rest of the stream is not
sent (each record gets the same error at once), so a dead endpoint costs
one wait. The exit code is then 3. See docs/retrieval.md.

EXAMPLES:
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-embed | ll-index
   LINKLEDGER_EMBED_URL=http://127.0.0.1:11434/v1 LINKLEDGER_EMBED_MODEL=nomic-embed-text ll-fetch page.html | ll-parse | ll-embed --jq .embed`

// Command returns the ll-embed command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        "ll-embed",
		Usage:       "add embedding vectors to the chunks of parsed records",
		UsageText:   "ll-embed [options] < parsed.ndjson",
		Description: description,
		Flags: []ucli.Flag{
			&ucli.DurationFlag{Name: "timeout", Value: embed.DefaultTimeout, Usage: "time of one request to the endpoint"},
			&ucli.IntFlag{Name: "batch-size", Value: embed.DefaultBatchSize, Usage: fmt.Sprintf("chunks per request `N` (1..%d)", embed.MaxBatchSize)},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-embed as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	if c.NArg() > 0 {
		return cli.Usage("ll-embed takes no arguments: it reads parsed records on stdin")
	}
	if c.Duration("timeout") <= 0 {
		return cli.Usage("--timeout %s: want more than 0", c.Duration("timeout"))
	}
	bs := int(c.Int("batch-size"))
	if err := embed.CheckBatchSize(bs); err != nil {
		return cli.Usage("--%v", err)
	}
	client, err := cli.EmbedFromEnv(env, c.Duration("timeout"))
	if err != nil {
		return cli.Usage("%v", err)
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	progress := out.Progress(c.Root().Name)
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Progress: progress}
	defer progress.Done()
	if client == nil {
		diag.Debugf("no embeddings endpoint (%s unset): records pass through", cli.EnvEmbedURL)
	} else {
		client.BatchSize = bs
	}
	s := Stage{Client: client, Stopped: func(reason string) {
		diag.Printf("stopped asking the embeddings endpoint: %s", reason)
		diag.Hintf("the rest of the input passes on without vectors (embed.error); once the endpoint answers, linkledger embed --all embeds what is stored")
	}}
	failed := 0
	err = cli.EachRecord(ctx, env.Stdin, out, diag, record.StageEmbed, func(rec *record.Record, _ int) error {
		if e := s.Record(ctx, rec); e != nil {
			failed++
			diag.Printf("%s: not embedded: %s: %s", rec.Ref(), e.Code, e.Message)
		}
		progress.Tick(rec.Error != nil)
		return out.Emit(rec)
	})
	if err != nil {
		return err
	}
	if err := out.Finish(); err != nil || failed == 0 {
		return err
	}
	return cli.Partial
}

// Stage embeds records one after the other. After a timeout or a
// connection failure, or MaxFailuresInARow records failed in a row
// (embed.Breaker), it stops asking the endpoint: the later records get
// the same error at once.
type Stage struct {
	Client *embed.Client // nil: every record passes through
	// Stopped, when set, is called once when the stage stops asking the
	// endpoint, with the reason.
	Stopped func(reason string)
	brk     embed.Breaker
}

// Record embeds rec when it has chunks to embed, returning the failure
// (also on rec.embed) if any.
func (s *Stage) Record(ctx context.Context, rec *record.Record) *record.Error {
	if s.Client == nil || rec.Error != nil || (rec.Fetch != nil && rec.Fetch.NotModified) || rec.Stored != nil || len(rec.Chunks) == 0 {
		return nil
	}
	if d := s.brk.Down(); d != nil {
		e := *d
		e.Message = "not sent: " + d.Message + " earlier in this run"
		embed.Fail(rec, s.Client.Identity(), &e)
		return &e
	}
	e := s.Client.EmbedRecord(ctx, rec)
	if s.brk.Note(e) && s.Stopped != nil {
		s.Stopped(s.brk.Reason())
	}
	return e
}
