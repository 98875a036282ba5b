package linkledger

// The overview verb: what the ledger holds, in a few hundred tokens.
//
// Reads: the store (never created). Writes: one {"overview": …} object
// into a pipe; a few lines for a person at a terminal. Touches nothing.

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

func overviewVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "overview",
		Usage:     "what the ledger holds: counts, tags and sites with their words, pinned, reused, failed",
		UsageText: "linkledger overview [--max-tokens N] [options]",
		Description: `overview says what the ledger holds in at most --max-tokens tokens (default
500, cl100k_base, of the text form): the items by source type and ingest
state, how many wait for the worker and how many failed; the most used
tags and the sites with most items, each with the words that distinguish
its items from the rest (TF-IDF over their titles and highlights, weighted
above the start of their text; words common to everything left out); the
items with pinned highlights, the most reused (cited by most tasks) and
the latest failures. Past the budget, groups keep 3 words, then the
longest list loses its last entry (truncated: true). The same ledger gives
the same overview. Read it before a search to choose the words and tags.

EXAMPLES:
   linkledger overview
   linkledger overview --max-tokens 300
   linkledger overview --jq '.overview.by_state'`,
		Flags: []ucli.Flag{cli.DBFlag(),
			&ucli.IntFlag{Name: "max-tokens", Value: ledger.DefaultOverviewTokens, Usage: "budget of the overview in `TOKENS` (100..4000)"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("overview takes no arguments (got %q)", c.Args().First())
			}
			max := int(c.Int("max-tokens"))
			if max < ledger.MinOverviewTokens || max > ledger.MaxOverviewTokens {
				return cli.Usage("--max-tokens %d: want %d..%d", max, ledger.MinOverviewTokens, ledger.MaxOverviewTokens)
			}
			out, st, _, err := openOutput(ctx, c, env, false)
			if err != nil {
				return err
			}
			defer st.Close()
			o, err := st.BuildOverview(ctx, ledger.OverviewOptions{MaxTokens: max})
			if err != nil {
				return err
			}
			if out.IsHuman() {
				if err := out.Text(ledger.OverviewText(o)); err != nil {
					return err
				}
				if o.Pending > 0 {
					cli.Diag{Prog: cli.FullName(c), W: env.Stderr}.Hintf("%d %s not fetched yet: linkledger worker ingests them", o.Pending, map[bool]string{true: "item is", false: "items are"}[o.Pending == 1])
				}
				return nil
			}
			if err := out.EmitValue(map[string]any{"overview": o}); err != nil {
				return err
			}
			return out.Finish()
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
