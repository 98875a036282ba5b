package linkledger

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// itemFlags are the flags of every verb that opens the store: --db and
// the common output flags, forwarded to the filter as given.
func itemFlags(extra ...ucli.Flag) []ucli.Flag {
	flags := append([]ucli.Flag{cli.DBFlag()}, extra...)
	return append(flags, cli.CommonFlags()...)
}

// commonNames are the names of cli.CommonFlags, forwarded unchanged.
func commonNames() []string {
	var names []string
	for _, f := range cli.CommonFlags() {
		names = append(names, f.Names()[0])
	}
	return names
}

// forward returns the filter arguments for the flags of c named in names
// that were set, under the same name.
func forward(c *ucli.Command, names ...string) []string {
	var out []string
	for _, n := range names {
		out = append(out, forwardAs(c, n, n)...)
	}
	return out
}

// forwardAs returns the filter arguments for flag name of c, as flag as.
func forwardAs(c *ucli.Command, name, as string) []string {
	if !c.IsSet(name) {
		return nil
	}
	flag := "--" + as
	switch v := c.Value(name).(type) {
	case bool:
		if v {
			return []string{flag}
		}
		return []string{flag + "=false"}
	case []string:
		var out []string
		for _, s := range v {
			out = append(out, flag, s)
		}
		return out
	case []int64:
		var out []string
		for _, n := range v {
			out = append(out, flag, strconv.FormatInt(n, 10))
		}
		return out
	case float64:
		return []string{flag, strconv.FormatFloat(v, 'g', -1, 64)}
	case time.Duration:
		return []string{flag, v.String()}
	default:
		return []string{flag, fmt.Sprint(v)}
	}
}

// itemArg resolves the verb's item argument (an id, or a URL or path in
// any form that canonicalizes to a saved item) to its id. An unknown item
// is a usage error (exit 2) with the same message from every verb. check,
// when given, is run with the id on the same open store (pin: the
// annotation is the item's).
func itemArg(ctx context.Context, c *ucli.Command, env cli.Env, arg string, check ...func(context.Context, *ledger.Ledger, string) error) (string, error) {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return "", err
	}
	// a missing database is "no database at ..." (exit 1), as from every
	// reader; an older schema is migrated here as the filters would
	st, err := cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: time.Second})
	if err != nil {
		return "", err
	}
	defer st.Close()
	rules := canon.DefaultRules()
	if f := env.Getenv("LINKLEDGER_RULES"); f != "" {
		if err := rules.MergeFile(f); err != nil {
			return "", fmt.Errorf("LINKLEDGER_RULES: %w", err)
		}
	}
	cwd, _ := env.Getwd()
	id, err := st.ResolveItem(ctx, arg, ledger.ResolveOptions{Rules: rules, Cwd: cwd, Home: env.Getenv("HOME")})
	var ne *ledger.NoItemError
	if errors.As(err, &ne) {
		return "", &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	if err != nil {
		return "", err
	}
	for _, f := range check {
		if err := f(ctx, st, id); err != nil {
			return "", err
		}
	}
	return id, nil
}

// errNoDB says the database file does not exist (completion never
// creates one).
var errNoDB = errors.New("no database")

// openExisting opens the database at path if the file exists.
func openExisting(ctx context.Context, path string, readOnly bool) (*ledger.Ledger, error) {
	if !fileExists(path) {
		return nil, errNoDB
	}
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{ReadOnly: readOnly, BusyTimeout: time.Second})
	if err != nil {
		return nil, cli.DBError(path, err)
	}
	return st, nil
}

// needArgs checks the verb got exactly n arguments.
func needArgs(c *ucli.Command, n int, what string) error {
	if c.Args().Len() != n {
		return cli.UsageHint(fmt.Sprintf("usage: %s", c.UsageText), "want %s, got %d argument(s)", what, c.Args().Len())
	}
	return nil
}

const itemNote = `ITEM is an item id (ll_ and 16 hex digits) or the item's URL (or local
path) in any form that canonicalizes to the saved one. An unknown item is a
usage error (exit 2).`

// queuedNote is the help's word on a remote write the server was not
// reached for (annotate and tag; docs/several-machines.md "Offline: the
// outbox").
const queuedNote = `With LINKLEDGER_URL set and the server out of reach, the change waits in
the outbox (linkledger outbox) and the command exits 5.`

func annotateVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "annotate",
		Usage:     "add highlights, lowlights or notes to an item",
		UsageText: "linkledger annotate [options] ITEM",
		Description: `Adds annotations to a saved item (through ll-save). Agents say who they are
with --actor agent:NAME and how sure they are with --confidence (default 0.5
for agents).

` + itemNote + `

` + queuedNote + `

EXAMPLES:
   linkledger save https://example.com/post
   linkledger annotate https://example.com/post --highlight "the key claim"
   linkledger annotate example.com/post --lowlight "weak evidence" --actor agent:reader --confidence 0.7
   linkledger annotate https://example.com/post --note "compare with the 2019 paper"`,
		Flags: itemFlags(
			cli.BusyTimeoutFlag(),
			&ucli.StringSliceFlag{Name: "highlight", Usage: "add a highlight `TEXT` (repeatable)"},
			&ucli.StringSliceFlag{Name: "lowlight", Usage: "add a lowlight `TEXT` (repeatable)"},
			&ucli.StringSliceFlag{Name: "note", Usage: "add a note `TEXT` (repeatable)"},
			&ucli.FloatFlag{Name: "confidence", HideDefault: true, Usage: "confidence 0..1 of these annotations (agents: 0.5 when not given)"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who says it: human or agent:NAME"},
			&ucli.BoolFlag{Name: "pinned", Usage: "pin the highlights"},
			&ucli.Int64Flag{Name: "chunk", Usage: "anchor the annotations to chunk `ID`"},
		),
		Action: func(ctx context.Context, c *ucli.Command) error {
			return inVerb(c, annotate(ctx, filters, env, c))
		},
		ShellComplete: completeItems(env),
	}
}

func annotate(ctx context.Context, filters Filters, env cli.Env, c *ucli.Command) error {
	if c.Args().Len() > 1 {
		// annotate ITEM "some text": the text wants a flag saying what it is
		text := strings.Join(c.Args().Slice()[1:], " ")
		if r := []rune(text); len(r) > 60 {
			text = string(r[:57]) + "..."
		}
		return cli.UsageHint(fmt.Sprintf("linkledger annotate %s --highlight %q (a quote from the text), or --note %q (your words), or --lowlight", c.Args().First(), text, text),
			"want one ITEM, got %d arguments: the text to add goes after --highlight, --lowlight or --note", c.Args().Len())
	}
	if err := needArgs(c, 1, "one ITEM"); err != nil {
		return err
	}
	if !c.IsSet("highlight") && !c.IsSet("lowlight") && !c.IsSet("note") {
		return cli.Usage("nothing to add: give --highlight, --lowlight or --note")
	}
	if c.IsSet("confidence") {
		if err := record.CheckConfidence(c.Float("confidence")); err != nil {
			return cli.Usage("--%v", err)
		}
	}
	id, err := itemArg(ctx, c, env, c.Args().First())
	if err != nil {
		return err
	}
	args := []string{id}
	args = append(args, forward(c, "highlight", "lowlight", "confidence", "actor", "pinned", "chunk", "db", "busy-timeout")...)
	args = append(args, forwardAs(c, "note", "annotate-note")...)
	args = append(args, forward(c, commonNames()...)...)
	return runOne(ctx, filters, env, "ll-save", cli.FullName(c), args)
}

func tagVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "tag",
		Usage:     "add or remove tags of an item",
		UsageText: "linkledger tag [options] ITEM",
		Description: `Adds tags to or removes tags from a saved item (through ll-save).

` + itemNote + `

` + queuedNote + `

EXAMPLES:
   linkledger save https://example.com/post --tags inbox
   linkledger tag https://example.com/post --add reading,ai --remove inbox
   linkledger tag https://example.com/post --add reviewed --actor agent:researcher`,
		Flags: itemFlags(
			cli.BusyTimeoutFlag(),
			&ucli.StringSliceFlag{Name: "add", Usage: "add `TAGS` (comma-separated, repeatable)"},
			&ucli.StringSliceFlag{Name: "remove", Usage: "remove `TAGS` (comma-separated, repeatable)"},
			&ucli.StringFlag{Name: "actor", Value: "human", Usage: "who tags: human or agent:NAME"},
		),
		Action: func(ctx context.Context, c *ucli.Command) error {
			if err := needArgs(c, 1, "one ITEM"); err != nil {
				return inVerb(c, err)
			}
			if !c.IsSet("add") && !c.IsSet("remove") {
				return inVerb(c, cli.Usage("nothing to do: give --add or --remove"))
			}
			id, err := itemArg(ctx, c, env, c.Args().First())
			if err != nil {
				return inVerb(c, err)
			}
			args := []string{id}
			args = append(args, forwardAs(c, "add", "tags")...)
			args = append(args, forwardAs(c, "remove", "untag")...)
			args = append(args, forward(c, "actor", "db", "busy-timeout")...)
			args = append(args, forward(c, commonNames()...)...)
			return inVerb(c, runOne(ctx, filters, env, "ll-save", cli.FullName(c), args))
		},
		ShellComplete: completeItems(env),
	}
}

func pinVerb(filters Filters, env cli.Env, verb string) *ucli.Command {
	what := map[string]string{"pin": "pin a highlight: it ranks its item higher and is never displaced", "unpin": "unpin a highlight"}[verb]
	return &ucli.Command{
		Name:      verb,
		Usage:     what,
		UsageText: fmt.Sprintf("linkledger %s [options] ITEM ANNOTATION_ID", verb),
		Description: fmt.Sprintf(`%s (through ll-save). ANNOTATION_ID is the
number annotate printed (save.annotation_ids), or that 'linkledger show ITEM'
lists.

%s

EXAMPLES:
   linkledger annotate https://example.com/post --highlight "the key claim" -r --jq '.save.annotation_ids[0]'
   linkledger %s https://example.com/post 1`, what, itemNote, verb),
		Flags: itemFlags(cli.BusyTimeoutFlag()),
		Action: func(ctx context.Context, c *ucli.Command) error {
			if err := needArgs(c, 2, "ITEM and ANNOTATION_ID"); err != nil {
				return inVerb(c, err)
			}
			ann := c.Args().Get(1)
			annID, err := strconv.ParseInt(ann, 10, 64)
			if err != nil {
				return inVerb(c, cli.Usage("ANNOTATION_ID: want a whole number, got %q", ann))
			}
			// an annotation that is not the item's is said as unannotate
			// says it (exit 2, with where to find the ids), not as a
			// failed ll-save record of "argument 1"
			arg := c.Args().First()
			id, err := itemArg(ctx, c, env, arg, func(ctx context.Context, st *ledger.Ledger, id string) error {
				err := st.CheckPinnable(ctx, id, arg, annID)
				var ie *ledger.InputError
				if errors.Is(err, spec.ErrNoAnnotation) || errors.As(err, &ie) {
					return &cli.ExitError{Code: cli.ExitUsage, Err: err}
				}
				return err
			})
			if err != nil {
				return inVerb(c, err)
			}
			args := append([]string{id, "--" + verb, ann}, forward(c, "db", "busy-timeout")...)
			args = append(args, forward(c, commonNames()...)...)
			return inVerb(c, runOne(ctx, filters, env, "ll-save", cli.FullName(c), args))
		},
		ShellComplete: completeItems(env),
	}
}

func statusVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "status",
		Usage:     "one item's full status: ingest state, attempts, errors, annotations",
		UsageText: "linkledger status [options] ITEM",
		Description: `Prints one item's record with its ingest status (through ll-find --id).

` + itemNote + `

EXAMPLES:
   linkledger status https://example.com/post
   linkledger status ll_0123456789abcdef --jq '.ingest'`,
		Flags: itemFlags(),
		Action: func(ctx context.Context, c *ucli.Command) error {
			if err := needArgs(c, 1, "one ITEM"); err != nil {
				return inVerb(c, err)
			}
			id, err := itemArg(ctx, c, env, c.Args().First())
			if err != nil {
				return inVerb(c, err)
			}
			args := append([]string{"--id", id}, forward(c, "db")...)
			args = append(args, forward(c, commonNames()...)...)
			return inVerb(c, runOne(ctx, filters, env, "ll-find", cli.FullName(c), args))
		},
		ShellComplete: completeItems(env),
	}
}

func relatedVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "related",
		Usage:     "items related to an item by content and shared tags",
		UsageText: "linkledger related [options] ITEM",
		Description: `Lists the items most related to ITEM (through ll-find --related).

` + itemNote + `

EXAMPLES:
   linkledger related https://example.com/post --max-items 5
   linkledger related ll_0123456789abcdef -r --jq .canonical_url`,
		Flags: itemFlags(
			&ucli.IntFlag{Name: "max-items", Aliases: []string{"limit", "n"}, Value: 10, Usage: "at most `N` items"},
		),
		Action: func(ctx context.Context, c *ucli.Command) error {
			if err := needArgs(c, 1, "one ITEM"); err != nil {
				return inVerb(c, err)
			}
			id, err := itemArg(ctx, c, env, c.Args().First())
			if err != nil {
				return inVerb(c, err)
			}
			args := append([]string{"--related", id}, forwardAs(c, "max-items", "limit")...)
			args = append(args, forward(c, "db")...)
			args = append(args, forward(c, commonNames()...)...)
			return inVerb(c, runOne(ctx, filters, env, "ll-find", cli.FullName(c), args))
		},
		ShellComplete: completeItems(env),
	}
}
