package linkledger

// The whole-item and housekeeping verbs: show, tags, unannotate, archive,
// unarchive, delete. Each is a complete command over the service layer
// (lib/ledger): it reads its flags, opens the store, calls one ledger
// function per item and writes one record per item.
//
// Reads: item arguments (an id, or the item's URL or local path in any
// form that canonicalizes to it). Writes: records on stdout (show: the
// whole item; tags: one tag_count record per tag; the writers: the item's
// identity and a change object). Touches: show and tags only read the
// store; the others write, one short transaction per item, and wait for
// another process's write lock up to --busy-timeout. None creates a
// database.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// itemVerbs returns the whole-item and housekeeping verbs.
func itemVerbs(env cli.Env) []*ucli.Command {
	rulesFlag := func() ucli.Flag {
		return &ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON) used to read URL arguments, as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")}
	}
	actorFlag := func() ucli.Flag {
		return &ucli.StringFlag{Name: "actor", Value: "human", Usage: "who does it, for the history: human or agent:<name>"}
	}
	writer := func(extra ...ucli.Flag) []ucli.Flag {
		return append([]ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag(), actorFlag(), rulesFlag()}, extra...)
	}
	cmds := []*ucli.Command{
		{
			Name:      "show",
			Usage:     "everything stored about an item",
			UsageText: "linkledger show [options] ID|URL ...",
			Description: `show prints one record per item with everything stored about it: title,
author, site, published, saved/fetched/parsed times, source type, canonical
and original URL, ingest status and last error ("ingest"), archived_at, tags
with who added them ("tagged"), every annotation with its id, type, text,
actor, confidence, pinned, chunk and created time, every artifact, and with
--text its text (its chunks, in order), and with --markdown its structured
document ("markdown": headings, lists, code blocks, tables, figures and
quotes as CommonMark with tables) when its last parse kept one; an item
stored before that, or imported as text, has none until it is re-ingested
(linkledger retry). The annotation ids are the ones pin, unpin and
unannotate take. Archived items are shown too.

At a terminal (or with --format human) show prints a view for a person;
with --text it ends with the item's text as paragraphs, each sentence once
(the overlap between chunks left out), highlights marked (in colour, or
between « and » with NO_COLOR); with --markdown it ends with the Markdown
as stored. A view longer than the screen goes through
a pager: $LINKLEDGER_PAGER, else $PAGER, else less (LESS=FRX when LESS is
unset); PAGER=cat turns it off. A pipe or file always gets the record.

An item is named by its id (ll_ and 16 hex digits) or by its URL in any form
that canonicalizes to the saved one (tracking parameters, case, a local path).

EXAMPLES:
   linkledger show ll_0123456789abcdef
   linkledger show https://example.com/post --text
   linkledger show https://example.com/post --markdown --jq .markdown
   linkledger show example.com/post --jq '.annotations[] | [.id, .type, .text]'`,
			Flags: []ucli.Flag{cli.DBFlag(), rulesFlag(),
				&ucli.BoolFlag{Name: "text", Usage: "add the item's text (its chunks, in order)"},
				&ucli.BoolFlag{Name: "markdown", Usage: "add the item's structured document as Markdown (headings, lists, code, tables)"}},
			Action: func(ctx context.Context, c *ucli.Command) error {
				return eachItem(ctx, c, env, func(ctx context.Context, st *ledger.Ledger, arg string, ro ledger.ResolveOptions) ([]*record.Record, error) {
					rec, err := st.Show(ctx, arg, ledger.ShowOptions{Resolve: ro, Text: c.Bool("text"), Markdown: c.Bool("markdown")})
					return []*record.Record{rec}, err
				})
			},
		},
		{
			Name:      "history",
			Usage:     "every change to an item, with who made it and when",
			UsageText: "linkledger history [options] ID|URL ...",
			Description: `history prints one record per event of each item, oldest first: saves,
annotations added, pinned or removed, tags added or removed, artifacts,
ingest results, archiving, and the file grants of local paths, each with
its actor (human or agent:NAME), time and detail as recorded:
  {"id": "ll_…", "event": {"entity": "annotation", "entity_id": "3", "action": "created",
   "actor": "agent:researcher", "at": "2026-11-23T05:12:00Z", "detail": {…}}}
The history outlives the item: a deleted item's id (or URL) still shows
it, ending with its deletion.

EXAMPLES:
   linkledger history https://example.com/post
   linkledger history ll_0123456789abcdef --jq '.event | [.at, .actor, .entity, .action]'`,
			Flags: []ucli.Flag{cli.DBFlag(), rulesFlag()},
			Action: func(ctx context.Context, c *ucli.Command) error {
				return eachItem(ctx, c, env, func(ctx context.Context, st *ledger.Ledger, arg string, ro ledger.ResolveOptions) ([]*record.Record, error) {
					return st.History(ctx, arg, ro)
				})
			},
		},
		{
			Name:      "tags",
			Usage:     "every tag with the number of items it is on, by actor",
			UsageText: "linkledger tags [options]",
			Description: `tags prints one record per tag, most used first (then by name):
  {"tag_count": {"tag": "ai", "items": 3, "by_actor": {"human": 2, "agent:r": 1}}}
by_actor counts the items each actor (human, agent:NAME) put the tag on.
Archived items count too.

EXAMPLES:
   linkledger tags
   linkledger tags -r --jq '.tag_count | "\(.items)\t\(.tag)"'`,
			Flags: []ucli.Flag{cli.DBFlag()},
			Action: func(ctx context.Context, c *ucli.Command) error {
				if c.Args().Len() > 0 {
					return cli.Usage("tags takes no arguments (got %q)", c.Args().First())
				}
				return readLedger(ctx, c, env, "no tags yet (linkledger tag ID --add TAG)", func(ctx context.Context, st *ledger.Ledger) ([]*record.Record, error) {
					return st.Tags(ctx)
				})
			},
		},
		{
			Name:      "unannotate",
			Usage:     "remove annotations (highlights, lowlights, notes) from an item",
			UsageText: "linkledger unannotate [options] ID|URL ANNOTATION_ID ...",
			Description: `unannotate removes annotations from an item by their ids (shown by
'linkledger show'), all or none: when an id is not one of the item's
annotations, nothing is removed (exit 2). The annotations leave the search
index in the same transaction; the history keeps an event per annotation
with its text. To keep an agent highlight from being displaced, pin it instead.

EXAMPLES:
   linkledger unannotate ll_0123456789abcdef 12
   linkledger unannotate https://example.com/post 12 13 --actor agent:curator`,
			Flags: writer(),
			Action: func(ctx context.Context, c *ucli.Command) error {
				args := c.Args().Slice()
				if len(args) < 2 {
					return cli.Usage("want an item and at least one annotation id: linkledger unannotate ID|URL ANNOTATION_ID ...")
				}
				var ids []int64
				for _, a := range args[1:] {
					n, err := strconv.ParseInt(a, 10, 64)
					if err != nil || n < 1 {
						return cli.Usage("annotation id %q: want a number (the ids 'linkledger show' lists)", a)
					}
					ids = append(ids, n)
				}
				return writeItems(ctx, c, env, args[:1], func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Unannotate(ctx, arg, ids, wo)
				})
			},
		},
		{
			Name:      "archive",
			Usage:     "leave items out of find, related and brief (kept, still ingested)",
			UsageText: "linkledger archive [options] ID|URL ...",
			Description: `archive marks items archived. An archived item keeps everything (text,
annotations, tags, history) and is still ingested and revalidated, and
show and status still show it, but find (search, listing, --related) and
brief leave it out unless given --archived (include archived items) or
--only-archived. Archiving an archived item changes nothing
("changed": false). Every argument is checked before any item changes.

EXAMPLES:
   linkledger archive ll_0123456789abcdef https://example.com/old-post
   linkledger find --only-archived
   linkledger unarchive ll_0123456789abcdef`,
			Flags: writer(),
			Action: func(ctx context.Context, c *ucli.Command) error {
				return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Archive(ctx, arg, true, wo)
				})
			},
		},
		{
			Name:      "unarchive",
			Usage:     "bring archived items back into find, related and brief",
			UsageText: "linkledger unarchive [options] ID|URL ...",
			Description: `unarchive undoes archive. Unarchiving an item that is not archived changes
nothing ("changed": false).

EXAMPLES:
   linkledger unarchive ll_0123456789abcdef`,
			Flags: writer(),
			Action: func(ctx context.Context, c *ucli.Command) error {
				return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Archive(ctx, arg, false, wo)
				})
			},
		},
		{
			Name:      "star",
			Usage:     "star items (a favourite; find them with is:starred)",
			UsageText: "linkledger star [options] ID|URL ...",
			Description: `star marks items as a person's favourites. Starring is a change of the
item like a tag: its history keeps a "starred" event, and find, brief and
the MCP tools find starred items with is:starred in the query. find's
view at a terminal marks a starred item with a star before its title; the
records carry reading.starred_at. Starring a starred item changes nothing
("changed": false). Every argument is checked before any item changes.

EXAMPLES:
   linkledger star ll_0123456789abcdef https://example.com/post
   linkledger find is:starred
   linkledger unstar ll_0123456789abcdef`,
			Flags: writer(),
			Action: func(ctx context.Context, c *ucli.Command) error {
				return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Star(ctx, arg, true, wo)
				})
			},
		},
		{
			Name:      "unstar",
			Usage:     "unstar items",
			UsageText: "linkledger unstar [options] ID|URL ...",
			Description: `unstar undoes star (an "unstarred" event in the history). Unstarring an
item that is not starred changes nothing ("changed": false).

EXAMPLES:
   linkledger unstar ll_0123456789abcdef`,
			Flags: writer(),
			Action: func(ctx context.Context, c *ucli.Command) error {
				return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Star(ctx, arg, false, wo)
				})
			},
		},
		{
			Name:      "delete",
			Usage:     "delete items for good (their text, annotations, tags, artifacts)",
			UsageText: "linkledger delete [options] ID|URL ...",
			Description: `delete removes items for good, each in one transaction: the item, its
chunks, annotations, tags and artifacts, and its rows in both search
indexes. The history keeps the item's events and a "deleted" event (URL,
title, what was removed). Items marked duplicates of a deleted item are
unmarked. Saving the same URL again creates a fresh item (same id).
To hide an item and keep it, use archive.

At a terminal, delete asks for confirmation unless --yes is given. When
stdin is not a terminal (a script, an agent) it refuses without --yes
(exit 2), so nothing is deleted by accident. Every argument is checked
before any item is deleted.

EXAMPLES:
   linkledger delete ll_0123456789abcdef
   linkledger delete --yes https://example.com/spam https://example.com/spam2`,
			Flags: writer(&ucli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "delete without asking"}),
			Action: func(ctx context.Context, c *ucli.Command) error {
				return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
					return st.Delete(ctx, arg, wo)
				})
			},
		},
	}
	for _, cmd := range cmds {
		cli.Prepare(cmd, env)
	}
	return cmds
}

// openItems opens the store of an item verb. It never creates a database:
// a missing file is an error with a hint. Writers wait up to
// --busy-timeout for the write lock.
func openItems(ctx context.Context, c *ucli.Command, env cli.Env, write bool) (*ledger.Ledger, string, error) {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return nil, "", err
	}
	opts := ledger.OpenOptions{BusyTimeout: cli.DefaultBusyTimeout}
	if write {
		opts.BusyTimeout = cli.BusyTimeout(c.Duration("busy-timeout"))
	}
	// as ll-find opens it: never created, the same message when missing
	st, err := cli.OpenReader(ctx, loc, opts)
	if err != nil {
		if ledger.IsBusy(err) && write {
			return nil, loc.Path, cli.BusyError(loc.Path, opts.BusyTimeout, "nothing was changed")
		}
		return nil, loc.Path, err
	}
	return st, loc.Path, nil
}

// resolveOptions reads how URL arguments are canonicalized.
func resolveOptions(c *ucli.Command, env cli.Env) (ledger.ResolveOptions, error) {
	rules := canon.DefaultRules()
	if f := c.String("rules"); f != "" {
		if err := rules.MergeFile(f); err != nil {
			return ledger.ResolveOptions{}, cli.Usage("--rules: %v", err)
		}
	}
	cwd, _ := env.Getwd()
	return ledger.ResolveOptions{Rules: rules, Cwd: cwd, Home: env.Getenv("HOME")}, nil
}

// itemErr gives an unknown item or annotation, named as an argument, the
// usage exit code (2); the message and hint are the ledger's.
func itemErr(err error) error {
	var ne *ledger.NoItemError
	if errors.As(err, &ne) || errors.Is(err, spec.ErrNoAnnotation) {
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	return err
}

// openOutput decides the output form, then opens the ledger (for writing
// when write): a bad --format is reported before the file is touched. The
// caller closes the store; path is the database file.
func openOutput(ctx context.Context, c *ucli.Command, env cli.Env, write bool) (*cli.Output, *ledger.Ledger, string, error) {
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return nil, nil, "", err
	}
	st, path, err := openItems(ctx, c, env, write)
	if err != nil {
		return nil, nil, "", err
	}
	return out, st, path, nil
}

// readLedger opens the ledger for reading and writes every record list
// gives (empty at a terminal when none): the verbs that list from the
// whole ledger (tags, orphans, config).
func readLedger(ctx context.Context, c *ucli.Command, env cli.Env, empty string,
	list func(context.Context, *ledger.Ledger) ([]*record.Record, error)) error {
	out, st, _, err := openOutput(ctx, c, env, false)
	if err != nil {
		return err
	}
	defer st.Close()
	recs, err := list(ctx, st)
	if err != nil {
		return err
	}
	return emitAll(c, env, out, recs, empty)
}

// emitAll writes recs; at a terminal, when there were none, it says
// empty on stderr (a pipe gets nothing, as ever).
func emitAll(c *ucli.Command, env cli.Env, out *cli.Output, recs []*record.Record, empty string) error {
	for _, r := range recs {
		if err := out.Emit(r); err != nil {
			return err
		}
	}
	if err := out.Finish(); err != nil {
		return err
	}
	if out.IsHuman() && out.Written() == 0 && empty != "" {
		d := cli.Diag{Prog: "linkledger " + c.Name, W: env.Stderr}
		d.Printf("%s", empty)
	}
	return nil
}

// eachItem runs fn for every item argument of a reader verb and writes the
// records it returns.
func eachItem(ctx context.Context, c *ucli.Command, env cli.Env,
	fn func(context.Context, *ledger.Ledger, string, ledger.ResolveOptions) ([]*record.Record, error)) error {
	args := c.Args().Slice()
	if len(args) == 0 {
		return cli.Usage("want at least one item: an id (ll_...) or its URL")
	}
	ro, err := resolveOptions(c, env)
	if err != nil {
		return err
	}
	out, st, _, err := openOutput(ctx, c, env, false)
	if err != nil {
		return err
	}
	defer st.Close()
	// at a terminal, a view longer than the screen goes through a pager;
	// on an error, what came before is still shown
	out.Page(env)
	defer out.ClosePager()
	for _, a := range args {
		if err := ctx.Err(); err != nil {
			return err
		}
		recs, err := fn(ctx, st, a, ro)
		if err != nil {
			return itemErr(err)
		}
		for _, r := range recs {
			if err := out.Emit(r); err != nil {
				return err
			}
		}
	}
	if err := out.ClosePager(); err != nil {
		return err
	}
	return out.Finish()
}

// writeItems runs a writer verb: it checks every argument first (an
// unknown item changes nothing), asks for confirmation when the verb has
// --yes, then changes the items one transaction each and writes their
// records.
func writeItems(ctx context.Context, c *ucli.Command, env cli.Env, args []string,
	fn func(context.Context, *ledger.Ledger, string, ledger.WriteOptions) (*record.Record, error)) error {
	if len(args) == 0 {
		return cli.Usage("want at least one item: an id (ll_...) or its URL")
	}
	actor := c.String("actor")
	if err := record.CheckActor(actor); err != nil {
		return cli.Usage("--%v", err)
	}
	ro, err := resolveOptions(c, env)
	if err != nil {
		return err
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	confirm := hasFlag(c, "yes") && !c.Bool("yes")
	if confirm && !stdinIsTerminal(env.Stdin) {
		return cli.Usage("%s: stdin is not a terminal, so there is no one to confirm: add --yes to %s without asking", c.Name, c.Name)
	}
	st, path, err := openItems(ctx, c, env, true)
	if err != nil {
		return err
	}
	defer st.Close()
	ids := make([]string, len(args))
	for i, a := range args {
		if ids[i], err = st.ResolveItem(ctx, a, ro); err != nil {
			return itemErr(err)
		}
	}
	if confirm {
		ok, err := ask(env, fmt.Sprintf("%s %d item(s): %s? [y/N] ", c.Name, len(ids), strings.Join(ids, " ")))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s: not confirmed, nothing changed", c.Name)
		}
	}
	wo := ledger.WriteOptions{Resolve: ro, Actor: actor}
	for i := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := fn(ctx, st, args[i], wo)
		if err != nil {
			if ledger.IsBusy(err) {
				return cli.BusyError(path, cli.BusyTimeout(c.Duration("busy-timeout")), fmt.Sprintf("%d of %d item(s) done before it; running the same command again is safe", i, len(ids)))
			}
			return itemErr(err)
		}
		if err := out.Emit(rec); err != nil {
			return err
		}
	}
	return out.Finish()
}

func hasFlag(c *ucli.Command, name string) bool {
	for _, f := range c.Flags {
		for _, n := range f.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

// stdinIsTerminal reports whether a person can answer on stdin (a
// variable so tests can stand in for a terminal).
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// ask prints question on stderr and reads a yes or no from stdin.
func ask(env cli.Env, question string) (bool, error) {
	fmt.Fprint(env.Stderr, question)
	line, err := bufio.NewReader(env.Stdin).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}
