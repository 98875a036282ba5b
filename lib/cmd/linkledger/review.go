package linkledger

// The review verb: a person's queue of agent annotations and tags to
// confirm, reject, re-score or pin.
//
// Reads: --confirm, --reject (annotation id or ITEM_ID:TAG),
// --confidence, --pin and --unpin decisions. Writes: a record per
// annotation or tag (its item's id, url and title with the one annotation
// or tag, review state included) into a pipe; a line each at a terminal.
// Touches: with decisions, the annotations' review state, confidence or
// pin, the tags' review state, and an event each; without, only reads.
// Never creates a database.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

func reviewVerb(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:      "review",
		Usage:     "confirm, reject, re-score or pin agent annotations and tags (the review queue)",
		UsageText: "linkledger review [--limit N] [--decayed] | linkledger review [--confirm ID] [--reject ID] [--confidence ID=X] [--pin ID] [--unpin ID] ...",
		Description: `review without decisions lists what agents added that no person has
confirmed or rejected yet, best first: their annotations (highlights,
lowlights, notes by agent:NAME; highest confidence first, then newest),
then their tags (newest first). Each record is the item (id, url, title)
with one annotation (annotations[0]; its id is what the decision flags
take) or one tag (tagged[0]; named ITEM_ID:TAG in the flags). An
annotation the decay policy leaves out of ranking and briefs has
"decayed": true; --decayed lists only those (see 'linkledger config decay').

With decisions it applies them and writes each annotation or tag as it
now is (its review): --confirm ID takes it off the queue as it is (a
decayed annotation counts again); --reject ID keeps an annotation (in the
table and the history) but it stops counting: it leaves find's highlights
and ranking, related and brief, and an agent adding the same text again
adds nothing. A rejected tag leaves the item, and an agent adding it
again adds nothing. Confirming either later restores it. --confidence
ID=X sets an annotation's confidence (0 to 1); --pin ID and --unpin ID pin
or unpin a highlight. Each flag repeats. Only a person (--actor human,
the default) confirms or rejects, and a person's decision is never
changed by an agent (exit 2). The same decisions go through ll-save as
records: {"id":ITEM,"review":[{"annotation_id":N,"decision":"confirm"}]}
(docs/records.md).

EXAMPLES:
   linkledger review --limit 20
   linkledger review --confirm 12 --reject 13 --confidence 14=0.9 --pin 12
   linkledger review --reject ll_0123456789abcdef:draft
   linkledger review --decayed`,
		Flags: []ucli.Flag{
			cli.DBFlag(), cli.BusyTimeoutFlag(),
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who decides, for the history: human or agent:<name> (an agent may only re-score or pin)"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "list at most `N` annotations and tags (0: all)"},
			&ucli.BoolFlag{Name: "decayed", Usage: "list only the annotations the decay policy leaves out of ranking and briefs"},
			&ucli.FloatFlag{Name: "decay-below", Usage: "with --decayed: the policy's confidence (default: the ledger's policy)"},
			&ucli.StringFlag{Name: "decay-after", Usage: "with --decayed: the policy's age `DURATION` (default: the ledger's policy)"},
			&ucli.BoolFlag{Name: "no-decay", Usage: "mark nothing decayed"},
			&ucli.StringSliceFlag{Name: "confirm", Usage: "confirm annotation `ID`, or tag ITEM_ID:TAG (repeats)"},
			&ucli.StringSliceFlag{Name: "reject", Usage: "reject annotation `ID`, or tag ITEM_ID:TAG (repeats)"},
			&ucli.StringSliceFlag{Name: "confidence", Usage: "set the confidence of an annotation: `ID=X`, X from 0 to 1 (repeats)"},
			&ucli.StringSliceFlag{Name: "pin", Usage: "pin highlight `ID` (repeats)"},
			&ucli.StringSliceFlag{Name: "unpin", Usage: "unpin highlight `ID` (repeats)"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("review takes no arguments (got %q): decisions go in --confirm, --reject, --confidence, --pin, --unpin", c.Args().First())
			}
			if c.Int("limit") < 0 {
				return cli.Usage("--limit %d: want 0 or more", c.Int("limit"))
			}
			actor := c.String("actor")
			if err := record.CheckActor(actor); err != nil {
				return cli.Usage("--%v", err)
			}
			decay, err := findflags.Decay(c)
			if err != nil {
				return err
			}
			decisions, err := reviewDecisions(c)
			if err != nil {
				return err
			}
			if len(decisions) > 0 && c.Bool("decayed") {
				return cli.Usage("--decayed lists; it does not go with decisions")
			}
			out, st, path, err := openOutput(ctx, c, env, len(decisions) > 0)
			if err != nil {
				return err
			}
			defer st.Close()
			if len(decisions) == 0 {
				recs, err := st.ReviewQueue(ctx, ledger.ReviewQueueOptions{Limit: int(c.Int("limit")), Decayed: c.Bool("decayed"), Decay: decay})
				if err != nil {
					return err
				}
				empty := "nothing to review: no agent annotation or tag waits for a decision"
				if c.Bool("decayed") {
					empty = "no decayed agent annotations"
				}
				return emitAll(c, env, out, recs, empty)
			}
			wo := ledger.WriteOptions{Actor: actor}
			for i, d := range decisions {
				rec, err := st.Review(ctx, d, wo)
				if err != nil {
					if ledger.IsBusy(err) {
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
// annotation id or tag (ITEM_ID:TAG), in the order they first appear.
func reviewDecisions(c *ucli.Command) ([]spec.ReviewDecision, error) {
	var order []string
	byKey := map[string]*spec.ReviewDecision{}
	get := func(flag, s string, tagOK bool) (*spec.ReviewDecision, error) {
		s = strings.TrimSpace(s)
		d := spec.ReviewDecision{}
		key := s
		if item, tag, ok := strings.Cut(s, ":"); ok && tagOK {
			if !ledger.IsItemID(item) || strings.TrimSpace(tag) == "" {
				return nil, cli.Usage("--%s %q: want an annotation id or ITEM_ID:TAG (the ids 'linkledger review' lists)", flag, s)
			}
			d.ItemID, d.Tag = item, strings.ToLower(strings.TrimSpace(tag))
			key = item + ":" + d.Tag
		} else {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				if tagOK {
					return nil, cli.Usage("--%s %q: want an annotation id or ITEM_ID:TAG (the ids 'linkledger review' lists)", flag, s)
				}
				return nil, cli.Usage("--%s %q: want an annotation id (the ids 'linkledger review' lists)", flag, s)
			}
			d.AnnotationID = n
			key = strconv.FormatInt(n, 10)
		}
		if p, ok := byKey[key]; ok {
			return p, nil
		}
		byKey[key] = &d
		order = append(order, key)
		return &d, nil
	}
	name := func(d *spec.ReviewDecision) string {
		if d.Tag != "" {
			return fmt.Sprintf("tag %s:%s", d.ItemID, d.Tag)
		}
		return fmt.Sprintf("annotation %d", d.AnnotationID)
	}
	for _, flag := range []string{"confirm", "reject"} {
		for _, s := range c.StringSlice(flag) {
			d, err := get(flag, s, true)
			if err != nil {
				return nil, err
			}
			want := spec.ReviewConfirmed
			if flag == "reject" {
				want = spec.ReviewRejected
			}
			if d.Decision != "" && d.Decision != want {
				return nil, cli.Usage("%s is both confirmed and rejected: choose one", name(d))
			}
			d.Decision = want
		}
	}
	for _, s := range c.StringSlice("confidence") {
		id, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, cli.Usage("--confidence %q: want ID=X, e.g. 12=0.9", s)
		}
		d, err := get("confidence", id, false)
		if err != nil {
			return nil, err
		}
		f, err := record.ParseConfidence(val)
		if err != nil {
			return nil, cli.Usage("--confidence %s: %v", record.Quote(s), err)
		}
		d.Confidence = &f
	}
	for _, flag := range []string{"pin", "unpin"} {
		for _, s := range c.StringSlice(flag) {
			d, err := get(flag, s, false)
			if err != nil {
				return nil, err
			}
			pin := flag == "pin"
			if d.Pinned != nil && *d.Pinned != pin {
				return nil, cli.Usage("%s is both pinned and unpinned: choose one", name(d))
			}
			d.Pinned = &pin
		}
	}
	out := make([]spec.ReviewDecision, len(order))
	for i, k := range order {
		out[i] = *byKey[k]
	}
	return out, nil
}
