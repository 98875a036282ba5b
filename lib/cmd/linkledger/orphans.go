package linkledger

// The orphans verb: the highlights and lowlights whose quote is no
// longer in their item's text.
//
// Reads: nothing but its flags. Writes: a record per orphaned annotation
// (its item's id, url and title with the one annotation, orphaned_at
// set) into a pipe; a line each at a terminal. Touches: only reads the
// store; never creates a database.

import (
	"context"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

func orphansVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "orphans",
		Usage:     "highlights and lowlights whose text is not in their item's text (unanchored)",
		UsageText: "linkledger orphans [--limit N]",
		Description: `orphans lists exactly the unanchored highlights and lowlights: a person's
whose words were never in the item's text (kept, shown as their words,
not a quote), one saved before the item had text whose quote the text
did not hold, and those that lost their place: when
ll-index stores an item's changed text, each highlight or lowlight is
looked for in the new text (as written, then ignoring case and white
space, then with a few characters edited) and follows its quote to the
chunk that holds it; one not found is kept, with its text, and marked
orphaned (annotations[0].orphaned_at). Newest orphan first. An orphan
whose quote comes back in a later version of the text is anchored again
and leaves the list. Remove one with 'linkledger unannotate ITEM ID'.

EXAMPLES:
   linkledger orphans
   linkledger orphans --jq '[.id, .annotations[0].id, .annotations[0].text]'`,
		Flags: []ucli.Flag{
			cli.DBFlag(),
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 0, Usage: "list at most `N` annotations (0: all)"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("orphans takes no arguments (got %q)", c.Args().First())
			}
			if c.Int("limit") < 0 {
				return cli.Usage("--limit %d: want 0 or more", c.Int("limit"))
			}
			return readLedger(ctx, c, env, "no orphaned highlights or lowlights: every quote was found in its item's text", func(ctx context.Context, st *ledger.Ledger) ([]*record.Record, error) {
				return st.Orphans(ctx, int(c.Int("limit")))
			})
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}
