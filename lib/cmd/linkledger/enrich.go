package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strconv"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// toEnrich marks the flags of `linkledger enrich` that go to ll-enrich.
const toEnrich = toIndex << 1

// enrichFlags are the flags of `linkledger enrich` and the stages they go
// to (typed here, so a bad value is caught before any stage runs).
func enrichFlags() []stageFlag {
	return []stageFlag{
		{&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, HideDefault: true, Usage: "with --all: enrich at most `N` items (default: all)"}, toFind},
		{&ucli.IntFlag{Name: "max-chunk-bytes", HideDefault: true, Usage: "at most `BYTES` of an item's chunk text sent to the enricher (ll-find --with-chunks; default 4 MiB)"}, toFind},
		{&ucli.StringFlag{Name: "llm", Usage: "ask the OpenAI-compatible chat completions server at `URL` (ll-enrich; key from LINKLEDGER_LLM_KEY or OPENAI_API_KEY)"}, toEnrich},
		{&ucli.StringFlag{Name: "model", Usage: "model `NAME` sent to the --llm server (ll-enrich)"}, toEnrich},
		{&ucli.StringFlag{Name: "cmd", Usage: "run `\"PROGRAM ARGS\"` as the model, text on stdin, JSON on stdout (ll-enrich)"}, toEnrich},
		{&ucli.DurationFlag{Name: "timeout", HideDefault: true, Usage: "time of one model request or --cmd run (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "max-input-tokens", HideDefault: true, Usage: "cut the text sent to the model to `N` tokens (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "max-tokens", HideDefault: true, Usage: "max_tokens of the model's answer (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "max-claims", HideDefault: true, Usage: "at most `N` key claims per item (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "max-highlights", HideDefault: true, Usage: "at most `N` highlight suggestions per item (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "summary-sentences", HideDefault: true, Usage: "`N` sentences in the offline summary (ll-enrich)"}, toEnrich},
		{&ucli.IntFlag{Name: "agent-cap", HideDefault: true, Usage: "agent highlights kept per item (ll-index, 3..7)"}, toIndex},
		{cli.DBFlag(), toFind | toIndex},
		{cli.BusyTimeoutFlag(), toIndex},
	}
}

// enrichForwarded lists, for each filter, the flags enrich passes to it
// under their own name (ForwardedFlags).
func enrichForwarded() map[string][]string {
	out := map[string][]string{"ll-enrich": {"quiet", "verbose"}}
	stages := map[int]string{toFind: "ll-find", toEnrich: "ll-enrich", toIndex: "ll-index"}
	for _, f := range append(enrichFlags(), outputFlags()...) {
		for bit, filter := range stages {
			if f.to&bit != 0 {
				out[filter] = append(out[filter], f.flag.Names()[0])
			}
		}
	}
	// ll-find also gets these, set by the verb itself
	out["ll-find"] = append(out["ll-find"], "status", "with-chunks", "all-copies", "archived")
	return out
}

// enrichVerb is `linkledger enrich`: items already stored go through
// ll-enrich again and ll-index stores the enrichment only:
//
//	ll-find --status parsed --with-chunks | ll-enrich | ll-index
func enrichVerb(filters Filters, env cli.Env) *ucli.Command {
	sf := append(enrichFlags(), outputFlags()...)
	return &ucli.Command{
		Name:      "enrich",
		Usage:     "enrich items already stored: summary, key claims and highlight suggestions (ll-enrich)",
		UsageText: "linkledger enrich [options] ITEM ...\nlinkledger enrich [options] --all",
		Description: `Runs the enricher on items already stored, from their stored chunks, and
stores the artifact and suggestions without rewriting their content: the
items become enriched. Enriching an item again replaces its earlier
enrichment by the same agent (never a person's annotations or pinned
highlights). With --all it enriches every item still parsed (archived ones
too), as
   ll-find --status parsed --with-chunks --all-copies --archived | ll-enrich | ll-index
with ITEMs, those items (parsed or already enriched). The offline enricher
runs by default; --llm URL --model NAME or --cmd "PROGRAM ARGS" use a
model (docs/enrich.md). A model failure leaves the item parsed, records the
failure on it (linkledger show: ingest.last_enrich_error; history:
enrich_failed) and exits 3.

` + itemNote + `
An item with nothing stored (not ingested yet) is reported and skipped
(exit 3).

EXAMPLES:
   linkledger enrich --all -q
   linkledger enrich https://example.com/post
   linkledger enrich --all --llm http://127.0.0.1:8080/v1 --model local-model
   linkledger enrich --all --limit 20 --cmd "my-model --json"`,
		Flags: append([]ucli.Flag{&ucli.BoolFlag{Name: "all", Usage: "enrich every item in state parsed"}}, flagsOf(sf)...),
		Action: func(ctx context.Context, c *ucli.Command) error {
			return inVerb(c, enrichItems(ctx, filters, env, c, sf))
		},
		ShellComplete: completeItems(env),
	}
}

func enrichItems(ctx context.Context, filters Filters, env cli.Env, c *ucli.Command, sf []stageFlag) error {
	all := c.Bool("all")
	switch {
	case all && c.Args().Present():
		return cli.Usage("--all and ITEM arguments: give one")
	case !all && !c.Args().Present():
		return cli.UsageHint("linkledger enrich --all enriches every parsed item", "want ITEM arguments or --all")
	case !all && c.IsSet("limit"):
		return cli.Usage("--limit goes with --all")
	case c.IsSet("limit") && c.Int("limit") < 1:
		return cli.Usage("--limit %d: want 1 or more", c.Int("limit"))
	}
	enrichArgs := append(stageArgs(c, sf, toEnrich), forward(c, "quiet", "verbose")...)
	name := cli.FullName(c)
	tail := []stage{{"ll-enrich", enrichArgs}, {"ll-index", stageArgs(c, sf, toIndex)}}
	if all {
		find := []string{"--status", "parsed", "--with-chunks", "--all-copies", "--archived"}
		if !c.IsSet("limit") {
			// ll-find lists 10 items unless told: all of them
			find = append(find, "--limit", strconv.Itoa(math.MaxInt32))
		}
		find = append(find, stageArgs(c, sf, toFind)...)
		return pipeline(ctx, filters, env, name, append([]stage{{"ll-find", find}}, tail...))
	}
	in, skipped, err := storedRecords(ctx, env, c)
	if err != nil {
		return err
	}
	if len(in) == 0 {
		return cli.Partial // every item was skipped, and said so
	}
	e := env
	e.Stdin = bytes.NewReader(in)
	err = pipeline(ctx, filters, e, name, tail)
	if err == nil && skipped > 0 {
		return cli.Partial
	}
	return err
}

// storedRecords are the records of the ITEM arguments with their stored
// chunks, as ll-find --id ITEM --with-chunks would give them, one per
// line, each item once. Items with nothing stored are reported on stderr
// and counted, not written.
func storedRecords(ctx context.Context, env cli.Env, c *ucli.Command) ([]byte, int, error) {
	var ids []string
	seen := map[string]bool{}
	for _, arg := range c.Args().Slice() {
		id, err := itemArg(ctx, c, env, arg)
		if err != nil {
			return nil, 0, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return nil, 0, err
	}
	busy := cli.EnvBusyTimeout(env)
	if c.IsSet("busy-timeout") {
		busy = cli.BusyTimeout(c.Duration("busy-timeout"))
	}
	st, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: busy})
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	maxBytes := spec.DefaultStoredChunkBytes
	if c.IsSet("max-chunk-bytes") {
		if maxBytes = int(c.Int("max-chunk-bytes")); maxBytes < 1 {
			return nil, 0, cli.Usage("--max-chunk-bytes %d: want 1 or more", maxBytes)
		}
	}
	diag := cli.Diag{Prog: cli.FullName(c), W: env.Stderr}
	var buf bytes.Buffer
	skipped := 0
	for _, id := range ids {
		rec, status, err := st.StoredChunks(ctx, id, maxBytes)
		if err != nil {
			return nil, 0, err
		}
		if len(rec.Chunks) == 0 {
			skipped++
			diag.Printf("%s: nothing stored to enrich (status %s)", id, status)
			diag.Hintf("linkledger worker ingests saved items first")
			continue
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return nil, 0, err
		}
		buf.Write(append(line, '\n'))
	}
	return buf.Bytes(), skipped, nil
}
