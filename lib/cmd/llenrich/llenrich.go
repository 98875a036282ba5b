// Package llenrich is the ll-enrich command: the offline, deterministic
// enricher between ll-parse and ll-index.
//
// Reads: NDJSON records from ll-parse (chunks or text), or ll-find output
// that carries chunks or text.
// Writes: each record, in input order, with artifact {summary, key_claims,
// claims [{text, chunk_index, confidence}], created_by agent:linkledger,
// method offline} and highlight suggestions appended to annotations (type
// highlight, actor agent:linkledger, confidence, chunk_index); suggestions
// an earlier run left on the record are replaced, other annotations kept.
// Records that carry an error, a not-modified fetch, or no text pass
// through untouched.
// With --llm or --cmd a model writes the artifact instead (method llm),
// its quotes grounded in the text; a record the model failed on passes on
// without an artifact, with enrich.error.
// Touches: stdin and stdout; with --llm the model server (key from
// LINKLEDGER_LLM_KEY or OPENAI_API_KEY), with --cmd that command.
package llenrich

import (
	"context"
	"net/http"
	"net/url"
	"os"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/enrich"
	"github.com/linkledger/linkledger/lib/record"
)

const prog = "ll-enrich"

const description = `ll-enrich adds to each parsed record an extractive summary, key claims and
highlight suggestions, offline and deterministic (no model, no network):
the same chunks always give the same output.

Every summary sentence, claim and highlight is a sentence of the item's
text, quoted exactly, with the index of the chunk it came from. The summary
is the --summary-sentences sentences closest to the item's TF-IDF centroid,
in reading order. Key claims are sentences that carry something checkable
(numbers, multiword names, comparisons, causal words). Highlights are the
most central sentences. Everything is by actor agent:linkledger; ll-index
stores it, marks the item enriched and replaces that actor's earlier
artifact and unpinned suggestions (never a human's or pinned ones).
See docs/enrich.md for the scores and confidences.

Records with an error, a not-modified fetch or no text pass through as they
came.

With --llm URL --model NAME (an OpenAI-compatible chat completions server;
the key from LINKLEDGER_LLM_KEY or OPENAI_API_KEY, never a flag) or --cmd
"PROGRAM ARGS" a model writes the summary, claims, highlights and tags
instead (method llm). Its quotes are checked against the text: a highlight
not found is dropped, a claim not found is kept with unsupported: true.
A record the model failed on (after retries) passes on without an artifact,
with enrich.error, so ll-index stores it as parsed; the exit code is then 3.

EXAMPLES:
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-enrich | ll-index
   ll-fetch page.html | ll-parse | ll-enrich --jq .artifact.summary -r
   ll-fetch page.html | ll-parse | ll-enrich --max-claims 3 --jq '.artifact.claims[]'
   ll-fetch page.html | ll-parse | ll-enrich --llm http://127.0.0.1:8080/v1 --model local-model | ll-index`

// Command returns the ll-enrich command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        prog,
		Usage:       "add an extractive summary, key claims and highlight suggestions to parsed records",
		UsageText:   "ll-enrich [options] < parsed.ndjson",
		Description: description,
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "max-claims", Value: enrich.DefaultMaxClaims, Usage: "at most `N` key claims per item (0..20)"},
			&ucli.IntFlag{Name: "max-highlights", Value: enrich.DefaultMaxHighlights, Usage: "at most `N` highlight suggestions per item (0..20; ll-index keeps at most its agent highlight cap)"},
			&ucli.IntFlag{Name: "summary-sentences", Value: enrich.DefaultSummarySentences, Usage: "`N` sentences in the summary (1..20)"},
			&ucli.StringFlag{Name: "llm", Usage: "ask the OpenAI-compatible chat completions server at `URL` (POST URL/chat/completions, or URL itself when it ends in /chat/completions); key from LINKLEDGER_LLM_KEY or OPENAI_API_KEY"},
			&ucli.StringFlag{Name: "model", Usage: "model `NAME` sent to the --llm server (required with --llm)"},
			&ucli.StringFlag{Name: "cmd", Usage: "run `\"PROGRAM ARGS\"` (no shell) with the item's text on stdin and the model's JSON on stdout, instead of --llm"},
			&ucli.DurationFlag{Name: "timeout", Value: enrich.DefaultTimeout, Usage: "time of one model request or --cmd run"},
			&ucli.IntFlag{Name: "max-input-tokens", Value: enrich.DefaultMaxInputTokens, Usage: "cut the item's text sent to the model to `N` tokens (100..200000)"},
			&ucli.IntFlag{Name: "max-tokens", Value: enrich.DefaultMaxTokens, Usage: "max_tokens of the model's answer `N` (16..32000)"},
		},
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-enrich as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	if c.NArg() > 0 {
		return cli.Usage("ll-enrich takes no arguments: it reads parsed records on stdin")
	}
	opts := enrich.Options{
		MaxClaims:        int(c.Int("max-claims")),
		MaxHighlights:    int(c.Int("max-highlights")),
		SummarySentences: int(c.Int("summary-sentences")),
	}
	for _, f := range []struct {
		name   string
		v, min int
	}{{"max-claims", opts.MaxClaims, 0}, {"max-highlights", opts.MaxHighlights, 0}, {"summary-sentences", opts.SummarySentences, 1}} {
		if f.v < f.min || f.v > enrich.MaxCount {
			return cli.Usage("--%s %d: want %d..%d", f.name, f.v, f.min, enrich.MaxCount)
		}
	}
	llm, err := modelOptions(c, env)
	if err != nil {
		return err
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	progress := out.Progress(c.Root().Name)
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Quiet: c.Bool("quiet"), Progress: progress}
	defer progress.Done()
	failed := 0
	err = cli.EachRecord(ctx, cli.Stdin(ctx, env, diag), out, diag, record.StageEnrich, func(rec *record.Record, _ int) error {
		switch {
		case rec.Error != nil, rec.Fetch != nil && rec.Fetch.NotModified:
		case llm != nil:
			if rec.TextValue() == "" && len(rec.Chunks) == 0 {
				diag.Debugf("%s: no text to enrich: passed through", rec.Ref())
				break
			}
			if e := llm.Enrich(ctx, rec, opts); e != nil {
				failed++
				rec.Enrich = &record.EnrichInfo{Error: e}
				diag.Itemf("%s: not enriched: %s: %s", rec.Ref(), e.Code, e.Message)
			}
		case !enrich.Enrich(rec, opts):
			diag.Debugf("%s: no sentences to enrich: passed through", rec.Ref())
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

// modelOptions reads the model flags; nil means the offline enricher.
func modelOptions(c *ucli.Command, env cli.Env) (*enrich.LLM, error) {
	u, cmdline := c.String("llm"), c.String("cmd")
	if u == "" && cmdline == "" {
		for _, f := range []string{"model", "max-input-tokens", "max-tokens", "timeout"} {
			if c.IsSet(f) {
				return nil, cli.Usage("--%s needs --llm or --cmd", f)
			}
		}
		return nil, nil
	}
	if u != "" && cmdline != "" {
		return nil, cli.Usage("--llm and --cmd exclude each other")
	}
	l := &enrich.LLM{
		Model:          c.String("model"),
		Timeout:        c.Duration("timeout"),
		MaxInputTokens: int(c.Int("max-input-tokens")),
		MaxTokens:      int(c.Int("max-tokens")),
		Attempts:       enrich.DefaultAttempts,
	}
	if l.Timeout <= 0 {
		return nil, cli.Usage("--timeout %s: want more than 0", l.Timeout)
	}
	if l.MaxInputTokens < 100 || l.MaxInputTokens > 200000 {
		return nil, cli.Usage("--max-input-tokens %d: want 100..200000", l.MaxInputTokens)
	}
	if l.MaxTokens < 16 || l.MaxTokens > 32000 {
		return nil, cli.Usage("--max-tokens %d: want 16..32000", l.MaxTokens)
	}
	if cmdline != "" {
		argv, err := enrich.SplitArgs(cmdline)
		if err != nil {
			return nil, cli.Usage("--cmd: %v", err)
		}
		l.Cmd = argv
		return l, nil
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.User != nil {
		return nil, cli.Usage("--llm %q: want an http or https URL without user info", redact(u))
	}
	if l.Model == "" {
		return nil, cli.Usage("--llm needs --model NAME")
	}
	l.URL = u
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	l.Key = enrich.KeyFromEnv(getenv)
	l.Client = &http.Client{}
	return l, nil
}

// redact keeps a URL's scheme and host only, in case it carries a secret.
func redact(u string) string {
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		return pu.Scheme + "://" + pu.Host
	}
	return "(not a URL)"
}
