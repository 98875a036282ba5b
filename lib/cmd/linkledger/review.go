package linkledger

// The review verb: a person's queue of agent annotations to confirm,
// reject or re-score.
//
// Reads: --confirm, --reject and --confidence decisions by annotation id.
// Writes: a record per annotation (its item's id, url and title with the
// one annotation, review state included) into a pipe; a line each at a
// terminal. Touches: with decisions, the annotations' review state or
// confidence and an event each; without, only reads. Never creates a
// database.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

func reviewVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "review",
		Usage:     "confirm, reject or re-score agent annotations (the review queue)",
		UsageText: "linkledger review [--limit N] | linkledger review [--confirm ID] [--reject ID] [--confidence ID=X] ...",
		Description: `review without decisions lists the agent annotations (highlights,
lowlights, notes by agent:NAME) no person has confirmed or rejected yet,
best first: highest confidence, then newest. Each record is the
annotation's item (id, url, title) with that one annotation; its id is
what --confirm, --reject and --confidence take.

With decisions it applies them and writes each annotation as it now is
(annotations[0].review): --confirm ID takes it off the queue as it is;
--reject ID keeps it (in the table and the history) but it stops counting:
it leaves find's highlights and ranking, related and brief, and an agent
adding the same text to the item again adds nothing; confirming it later
restores it. --confidence ID=X sets its confidence (0 to 1). Each flag
repeats. A person's decision (--actor human, the default) is never
changed by an agent (exit 2). Pin or unpin with 'linkledger pin'.

EXAMPLES:
   linkledger review --limit 20
   linkledger review --confirm 12 --reject 13 --confidence 14=0.9`,
		Flags: []ucli.Flag{
			cli.DBFlag(), cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who decides, for the history: human or agent:<name>"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "list at most `N` annotations (0: all)"},
			&ucli.StringSliceFlag{Name: "confirm", Usage: "confirm annotation `ID` (repeats)"},
			&ucli.StringSliceFlag{Name: "reject", Usage: "reject annotation `ID` (repeats)"},
			&ucli.StringSliceFlag{Name: "confidence", Usage: "set the confidence of an annotation: `ID=X`, X from 0 to 1 (repeats)"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("review takes no arguments (got %q): decisions go in --confirm, --reject, --confidence", c.Args().First())
			}
			if c.Int("limit") < 0 {
				return cli.Usage("--limit %d: want 0 or more", c.Int("limit"))
			}
			actor := c.String("actor")
			if !store.ValidActor(actor) {
				return cli.Usage("--actor %q: want human or agent:<name>", actor)
			}
			decisions, err := reviewDecisions(c)
			if err != nil {
				return err
			}
			out, err := cli.OutputOn(c, env)
			if err != nil {
				return err
			}
			st, path, err := openItems(ctx, c, env, len(decisions) > 0)
			if err != nil {
				return err
			}
			defer st.Close()
			if len(decisions) == 0 {
				recs, err := ledger.ReviewQueue(ctx, st, int(c.Int("limit")))
				if err != nil {
					return err
				}
				for _, r := range recs {
					if err := out.Emit(r); err != nil {
						return err
					}
				}
				return out.Finish()
			}
			wo := ledger.WriteOptions{Actor: actor}
			for i, d := range decisions {
				rec, err := ledger.Review(ctx, st, d, wo)
				if err != nil {
					if store.IsBusy(err) {
						return cli.BusyError(path, cli.BusyTimeout(c.Duration("busy-timeout")), fmt.Sprintf("%d of %d decision(s) done before it; running the same command again is safe", i, len(decisions)))
					}
					var re *record.Error
					if errors.As(err, &re) {
						return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New(re.Message)}
					}
					return itemErr(err)
				}
				if err := out.Emit(rec); err != nil {
					return err
				}
			}
			return out.Finish()
		},
	}
	cli.Prepare(cmd, env)
	return cmd
}

// reviewDecisions reads the decision flags into one decision per
// annotation id, in the order the ids first appear.
func reviewDecisions(c *ucli.Command) ([]store.ReviewDecision, error) {
	var order []int64
	byID := map[int64]*store.ReviewDecision{}
	get := func(flag, s string) (*store.ReviewDecision, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 1 {
			return nil, cli.Usage("--%s %q: want an annotation id (the ids 'linkledger review' lists)", flag, s)
		}
		d, ok := byID[n]
		if !ok {
			d = &store.ReviewDecision{AnnotationID: n}
			byID[n] = d
			order = append(order, n)
		}
		return d, nil
	}
	for _, flag := range []string{"confirm", "reject"} {
		for _, s := range c.StringSlice(flag) {
			d, err := get(flag, s)
			if err != nil {
				return nil, err
			}
			want := store.ReviewConfirmed
			if flag == "reject" {
				want = store.ReviewRejected
			}
			if d.Decision != "" && d.Decision != want {
				return nil, cli.Usage("annotation %d is both confirmed and rejected: choose one", d.AnnotationID)
			}
			d.Decision = want
		}
	}
	for _, s := range c.StringSlice("confidence") {
		id, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, cli.Usage("--confidence %q: want ID=X, e.g. 12=0.9", s)
		}
		d, err := get("confidence", id)
		if err != nil {
			return nil, err
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return nil, cli.Usage("--confidence %q: want a confidence from 0 to 1", s)
		}
		d.Confidence = &f
	}
	out := make([]store.ReviewDecision, len(order))
	for i, id := range order {
		out[i] = *byID[id]
	}
	return out, nil
}
