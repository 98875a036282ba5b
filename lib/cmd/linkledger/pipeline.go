package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// stage is one filter of a pipeline.
type stage struct {
	name string
	args []string
}

// stageName is how a stage's diagnostics are prefixed: "linkledger worker:
// fetch" for ll-fetch in the worker.
func stageName(verb, filter string) string {
	return verb + ": " + strings.TrimPrefix(filter, "ll-")
}

// pipeline runs the stages concurrently, stdout of each into stdin of the
// next, and returns the worst exit code (like pipefail).
func pipeline(ctx context.Context, filters Filters, env cli.Env, verb string, stages []stage) error {
	return pipelineSaying(ctx, filters, env, verb, stages, "")
}

// pipelineSaying is pipeline whose last stage, when no records came in,
// says empty at a terminal (cli.EmptyInputEnv) instead of its own words.
func pipelineSaying(ctx context.Context, filters Filters, env cli.Env, verb string, stages []stage, empty string) error {
	for _, s := range stages {
		if _, ok := filters[s.name]; !ok {
			return &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("%s is not available in this build", s.name)}
		}
	}
	codes := make([]int, len(stages))
	var wg sync.WaitGroup
	in := env.Stdin
	for i, s := range stages {
		e := displayEnv(env, stageName(verb, s.name))
		if empty != "" && i == len(stages)-1 {
			get := e.Getenv
			e.Getenv = func(k string) string {
				if k == cli.EmptyInputEnv {
					return empty
				}
				return get(k)
			}
		}
		e.Stdin = in
		var pw *io.PipeWriter
		if i < len(stages)-1 {
			var pr *io.PipeReader
			pr, pw = io.Pipe()
			e.Stdout = pw
			in = pr
		}
		wg.Add(1)
		go func(i int, s stage, e cli.Env, pw *io.PipeWriter, r io.Reader) {
			defer wg.Done()
			cmd := filters[s.name](e)
			codes[i] = cli.Report(cmd.Name, e.Stderr, cmd.Run(detached{ctx}, append([]string{s.name}, s.args...)))
			if pw != nil {
				pw.Close()
			}
			// a stage that ended early must not leave its writer blocked
			if pr, ok := r.(*io.PipeReader); ok {
				pr.CloseWithError(io.ErrClosedPipe)
			}
		}(i, s, e, pw, e.Stdin)
	}
	wg.Wait()
	worst := cli.ExitOK
	for _, c := range codes {
		if rank(c) > rank(worst) {
			worst = c
		}
	}
	if worst == cli.ExitOK {
		return nil
	}
	return &cli.ExitError{Code: worst}
}

// rank orders exit codes by severity: usage and fatal over partial.
func rank(code int) int {
	switch code {
	case cli.ExitOK, cli.ExitNoMatch:
		return 0
	case cli.ExitPartial:
		return 1
	case cli.ExitFatal:
		return 2
	default:
		return 3
	}
}

// Which stages of the ingest pipeline get a flag of worker, stale or retry.
const (
	toFind = 1 << iota
	toFetch
	toParse
	toIndex
	toAll = toFind | toFetch | toParse | toIndex
)

// stageFlag is a flag of a pipeline verb and the stages it is passed to.
type stageFlag struct {
	flag ucli.Flag
	to   int
}

// ingestFlags are the flags of the ingest stages that worker, stale and
// retry take, typed here so a bad value is caught before any stage runs.
func ingestFlags() []stageFlag {
	return []stageFlag{
		{&ucli.IntFlag{Name: "concurrency", HideDefault: true, Aliases: []string{"c"}, Usage: "records fetched at once (ll-fetch)"}, toFetch},
		{&ucli.IntFlag{Name: "per-host", HideDefault: true, Usage: "requests in flight to one host (ll-fetch)"}, toFetch},
		{&ucli.DurationFlag{Name: "host-interval", HideDefault: true, Usage: "minimum time between request starts to one host (ll-fetch)"}, toFetch},
		{&ucli.DurationFlag{Name: "timeout", HideDefault: true, Usage: "total time of one fetch attempt (ll-fetch)"}, toFetch},
		{&ucli.DurationFlag{Name: "connect-timeout", HideDefault: true, Usage: "time to connect, TCP and TLS (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "max-bytes", HideDefault: true, Usage: "body size cap (`SIZE`: bytes, or with k, KiB, MB, MiB, GB, GiB) (ll-fetch)"}, toFetch},
		{&ucli.IntFlag{Name: "base-backoff-ms", HideDefault: true, Usage: "backoff ceiling before the first retry inside a fetch (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "user-agent", HideDefault: true, Usage: "User-Agent header (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "rules", HideDefault: true, Usage: "extra canonicalization rules `FILE` (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "lang", HideDefault: true, Usage: "YouTube transcript `LANGS`, best first (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "youtube-base", HideDefault: true, Usage: "YouTube `URL` (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "x-syndication-base", HideDefault: true, Usage: "X syndication `URL` (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "x-fx-base", HideDefault: true, Usage: "FxTwitter-style API `URL` (ll-fetch)"}, toFetch},
		{&ucli.StringFlag{Name: "x-oembed-base", HideDefault: true, Usage: "X oEmbed `URL` (ll-fetch)"}, toFetch},
		{&ucli.StringSliceFlag{Name: "allow-files", Usage: "let records read local files under `PATH` (repeatable) (ll-fetch)"}, toFetch},
		{&ucli.StringSliceFlag{Name: "allow-files-from", Usage: "read more --allow-files paths from `FILE` (ll-fetch)"}, toFetch},
		{&ucli.BoolFlag{Name: "public-only", Usage: "refuse non-public addresses, redirects included (ll-fetch; ll-index for images)"}, toFetch | toIndex},
		{&ucli.IntFlag{Name: "max-text-bytes", HideDefault: true, Usage: "keep at most `BYTES` of text per item (ll-parse, ll-index)"}, toParse | toIndex},
		{&ucli.IntFlag{Name: "memory-budget", HideDefault: true, Usage: "`BYTES` of records parsed at once (ll-parse)"}, toParse},
		{&ucli.StringFlag{Name: "pdf-password", HideDefault: true, Usage: "user `PASSWORD` of encrypted PDFs (ll-parse)"}, toParse},
		{&ucli.IntFlag{Name: "chunk-tokens", HideDefault: true, Usage: "target chunk size in `TOKENS` (ll-parse)"}, toParse},
		{&ucli.IntFlag{Name: "chunk-overlap", HideDefault: true, Usage: "`TOKENS` repeated at the start of the next chunk (ll-parse)"}, toParse},
		{cli.DBFlag(), toFind | toIndex},
		{cli.BusyTimeoutFlag(), toIndex},
	}
}

// outputFlags route the common flags: output shaping to the last stage,
// -q and -v to every stage.
func outputFlags() []stageFlag {
	var out []stageFlag
	for _, f := range cli.CommonFlags() {
		switch f.Names()[0] {
		case "quiet", "verbose":
			out = append(out, stageFlag{f, toAll})
		default:
			out = append(out, stageFlag{f, toIndex})
		}
	}
	return out
}

func flagsOf(sf []stageFlag) []ucli.Flag {
	out := make([]ucli.Flag, len(sf))
	for i, f := range sf {
		out[i] = f.flag
	}
	return out
}

// stageArgs are the arguments of stage (toFind, ...) from the flags of c.
func stageArgs(c *ucli.Command, sf []stageFlag, stage int) []string {
	var out []string
	for _, f := range sf {
		if f.to&stage != 0 {
			out = append(out, forward(c, f.flag.Names()[0])...)
		}
	}
	return out
}

// workerVerb is `linkledger worker` (pending items) or `linkledger stale`
// (items fetched long ago): ll-find VIEW | ll-fetch | ll-parse | ll-index.
func workerVerb(filters Filters, env cli.Env, verb string) *ucli.Command {
	sf := []stageFlag{{&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, HideDefault: true, Usage: "ingest at most `N` items (default: all)"}, toFind}}
	var desc string
	var watchFlags []ucli.Flag
	view := "--pending"
	if verb == "worker" {
		sf = append(sf, stageFlag{&ucli.IntFlag{Name: "max-attempts", Value: spec.DefaultMaxAttempts, Usage: "retry failed items with fewer attempts than `N`"}, toFind | toFetch})
		watchFlags = []ucli.Flag{
			&ucli.BoolFlag{Name: "watch", Usage: "keep running: ingest links as they are saved, until Ctrl-C or SIGTERM (each pass takes at most --limit items)"},
			&ucli.DurationFlag{Name: "poll", Value: ingestPoll, Usage: "with --watch: how often to look for items saved by other processes"},
		}
		desc = `Ingests the items waiting for it: saved ones, and failed ones due for a
retry with fewer than --max-attempts attempts. It runs
   ll-find --pending --claim | ll-fetch | ll-parse | ll-index
and writes ll-index's records. --claim: items another ingest loop on the
ledger is working on (worker --watch, ui, mcp) are skipped. Each flag goes to the stages that own it.
With --watch (linkledger worker --watch -q) it keeps running: a pass
whenever links wait (it looks every --poll), until Ctrl-C or SIGTERM;
the pass in flight stops between records and what it stored stays.
-q: nothing per item on stderr, nor at a terminal on stdout unless
--jq, --json or --format asks for it (a pipe still gets every record).
ll-fetch may read the local files that were saved by argument
(docs/security.md); --allow-files grants more.

EXAMPLES:
   linkledger save https://example.com/post
   linkledger worker -q
   linkledger worker --limit 20 --concurrency 4 --timeout 30s
   linkledger worker --enrich`
	} else {
		view = "--stale"
		sf = append(sf, stageFlag{&ucli.StringFlag{Name: "older-than", Value: "30d", Usage: "re-ingest items fetched longer ago than `DURATION` (12h, 30d, 2w, 3mo, 1y)"}, toFind})
		desc = `Re-ingests items fetched longer ago than --older-than, with a conditional
GET (etag, last-modified): an unchanged page is not parsed again. It runs
   ll-find --stale --older-than D | ll-fetch | ll-parse | ll-index

EXAMPLES:
   linkledger stale --older-than 90d -q
   linkledger stale --older-than 0s --limit 10`
	}
	sf = append(sf, ingestFlags()...)
	sf = append(sf, outputFlags()...)
	flags := append(flagsOf(sf), watchFlags...)
	flags = append(flags, &ucli.BoolFlag{Name: "enrich", Usage: "also run ll-enrich between ll-parse and ll-index: an offline summary, key claims and highlight suggestions (docs/enrich.md)"})
	return &ucli.Command{
		Name:        verb,
		Usage:       map[string]string{"worker": "ingest pending items: fetch, parse and index them", "stale": "re-ingest items fetched long ago"}[verb],
		UsageText:   fmt.Sprintf("linkledger %s [options]", verb),
		Description: desc,
		Flags:       flags,
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Present() {
				return inVerb(c, cli.Usage("unexpected argument %q: %s takes options only", c.Args().First(), verb))
			}
			pass := func(ctx context.Context) error {
				// ll-fetch may read the local files saved by argument
				// (asked again each pass: a watch sees new saves)
				allow, done, err := allowedFilesArgs(ctx, env, c.String("db"))
				defer done()
				if err != nil {
					return err
				}
				find := []string{view}
				if verb == "worker" {
					// claim what this pass takes: another loop on the
					// ledger (worker --watch, ui, mcp) skips it
					find = append(find, "--claim")
				}
				stages := []stage{
					{"ll-find", append(find, stageArgs(c, sf, toFind)...)},
					{"ll-fetch", append(stageArgs(c, sf, toFetch), allow...)},
					{"ll-parse", stageArgs(c, sf, toParse)},
				}
				if c.Bool("enrich") {
					stages = append(stages, stage{"ll-enrich", nil})
				}
				e, err := storedEmbedEnv(ctx, env, c.String("db"))
				if err != nil {
					return err
				}
				stages = append(stages, embedStage(e, c)...)
				stages = append(stages, stage{"ll-index", stageArgs(c, sf, toIndex)})
				if c.Bool("quiet") && cli.IsTerminal(env.Stdout) && !c.IsSet("jq") && !c.IsSet("json") && !c.IsSet("format") {
					// -q at a terminal: nothing per item, unless the
					// output was asked for (--jq, --json, --format); a
					// pipe still gets every record
					e.Stdout = io.Discard
				}
				empty := "nothing to do: no saved item waits to be fetched, and no failed one is due for a retry\nll-find --failed lists what failed and why"
				if verb == "stale" {
					empty = fmt.Sprintf("nothing to re-ingest: no item was fetched longer ago than %s\na shorter --older-than re-ingests more: linkledger stale --older-than 0s re-ingests every item fetched before now", c.String("older-than"))
				}
				return pipelineSaying(ctx, filters, e, cli.FullName(c), stages, empty)
			}
			if verb == "worker" && c.Bool("watch") {
				return inVerb(c, watch(ctx, c, env, pass))
			}
			if verb == "worker" && c.IsSet("poll") {
				return inVerb(c, cli.Usage("--poll: only with --watch"))
			}
			return inVerb(c, pass(ctx))
		},
	}
}

// watch is `linkledger worker --watch`: passes of the worker whenever
// items wait, until SIGINT or SIGTERM (ctx), which stops the pass in
// flight between records; what it committed stays. A database that does
// not exist yet is created, as ll-save would, so a watch can start first.
func watch(ctx context.Context, c *ucli.Command, env cli.Env, pass func(context.Context) error) error {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	st, err := cli.OpenWriter(ctx, loc, ledger.OpenOptions{BusyTimeout: 250 * time.Millisecond})
	if err != nil {
		return err
	}
	defer st.Close()
	maxAttempts := int(c.Int("max-attempts"))
	pending := func(ctx context.Context) (int, error) { return st.CountClaimable(ctx, maxAttempts) }
	l := newIngestLoop(pass, pending, cli.Diag{Prog: cli.FullName(c), W: env.Stderr})
	if c.IsSet("poll") {
		if l.poll = c.Duration("poll"); l.poll < 100*time.Millisecond || l.poll > time.Hour {
			return cli.Usage("--poll %v: want 100ms..1h", l.poll)
		}
	}
	return l.Run(ctx)
}

// retryVerb makes an item due now (attempts reset, audit event) and
// ingests it at once: its record goes through ll-fetch | ll-parse |
// ll-index.
func retryVerb(filters Filters, env cli.Env) *ucli.Command {
	sf := append(ingestFlags(), outputFlags()...)
	return &ucli.Command{
		Name:      "retry",
		Usage:     "make an item due now and ingest it again",
		UsageText: "linkledger retry [options] ITEM",
		Description: `Resets an item's attempts, records the retry, and ingests it at once:
its record goes through ll-fetch | ll-parse | ll-index.

` + itemNote + `

EXAMPLES:
   linkledger retry https://example.com/post -q
   linkledger retry ll_0123456789abcdef --timeout 60s`,
		Flags: flagsOf(sf),
		Action: func(ctx context.Context, c *ucli.Command) error {
			return inVerb(c, retry(ctx, filters, env, c, sf))
		},
		ShellComplete: completeItems(env),
	}
}

func retry(ctx context.Context, filters Filters, env cli.Env, c *ucli.Command, sf []stageFlag) error {
	if err := needArgs(c, 1, "one ITEM"); err != nil {
		return err
	}
	id, err := itemArg(ctx, c, env, c.Args().First())
	if err != nil {
		return err
	}
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	busy := cli.EnvBusyTimeout(env)
	if c.IsSet("busy-timeout") {
		busy = cli.BusyTimeout(c.Duration("busy-timeout"))
	}
	st, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: busy})
	if err != nil {
		return err
	}
	rec, err := st.Retry(ctx, id, ledger.WriteOptions{Actor: "human"})
	st.Close()
	if err != nil {
		return err
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	e, err := storedEmbedEnv(ctx, env, c.String("db"))
	if err != nil {
		return err
	}
	e.Stdin = bytes.NewReader(append(line, '\n'))
	allow, done, err := allowedFilesArgs(ctx, env, c.String("db"))
	defer done()
	if err != nil {
		return err
	}
	stages := []stage{
		{"ll-fetch", append(stageArgs(c, sf, toFetch), allow...)},
		{"ll-parse", stageArgs(c, sf, toParse)},
	}
	stages = append(stages, embedStage(e, c)...)
	return pipeline(ctx, filters, e, cli.FullName(c), append(stages, stage{"ll-index", stageArgs(c, sf, toIndex)}))
}

// storedEmbedEnv is env with the ledger's stored embeddings endpoint
// (linkledger config embed) where the environment names none
// (cli.WithStoredEmbed); env itself when there is no database yet.
func storedEmbedEnv(ctx context.Context, env cli.Env, db string) (cli.Env, error) {
	if env.Getenv == nil || env.Getenv(cli.EnvEmbedURL) != "" && env.Getenv(cli.EnvEmbedModel) != "" {
		return env, nil
	}
	loc, err := cli.LocateDB(db, env)
	if err != nil {
		return env, err
	}
	st, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: cli.EnvBusyTimeout(env)})
	if err != nil {
		return env, nil // no ledger (yet): the stages say so in their words
	}
	defer st.Close()
	return cli.WithStoredEmbed(ctx, env, st)
}

// embedStage is ll-embed (with -q and -v as given) when an embeddings
// endpoint is configured (LINKLEDGER_EMBED_URL in env, which
// storedEmbedEnv fills from the ledger's setting), else nothing: without
// one the pipeline is as it always was.
func embedStage(env cli.Env, c *ucli.Command) []stage {
	if env.Getenv == nil || env.Getenv(cli.EnvEmbedURL) == "" {
		return nil
	}
	var args []string
	for _, f := range []string{"quiet", "verbose"} {
		args = append(args, forward(c, f)...)
	}
	return []stage{{"ll-embed", args}}
}

// ForwardedFlags lists, for each filter, the flags that worker, stale,
// retry and enrich pass to it, so a test can check the filter still has them.
func ForwardedFlags() map[string][]string {
	out := map[string][]string{}
	stages := map[int]string{toFind: "ll-find", toFetch: "ll-fetch", toParse: "ll-parse", toIndex: "ll-index"}
	all := append(ingestFlags(), outputFlags()...)
	all = append(all, stageFlag{&ucli.IntFlag{Name: "limit"}, toFind}, stageFlag{&ucli.IntFlag{Name: "max-attempts"}, toFind | toFetch},
		stageFlag{&ucli.StringFlag{Name: "older-than"}, toFind})
	for _, f := range all {
		for bit, filter := range stages {
			if f.to&bit != 0 {
				out[filter] = append(out[filter], f.flag.Names()[0])
			}
		}
	}
	for filter, names := range enrichForwarded() {
		out[filter] = append(out[filter], names...)
	}
	return out
}
