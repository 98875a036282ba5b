package linkledger

// The memory-pack and reuse verbs: pack (save, show, refresh, list), cite
// and stats. Each is a complete command over the service layer
// (lib/ledger).
//
// Reads: a pack name and its query and brief flags; an item argument and a
// task name (cite); a period (stats). Writes: {"pack": …} records (pack
// save, refresh, show, list), a {"citation": …} record (cite) or a
// {"stats": …} record (stats) into a pipe; a short text for a person at a
// terminal (pack show: the brief as Markdown). Touches: pack save and
// refresh search the store and add a pack version (and, when the pack's
// ranking is semantic or hybrid, ask the embeddings endpoint for the
// query's vector, as ll-brief does); cite adds a citation;
// show, list and stats only read. None creates a database.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cli/human"
	"github.com/linkledger/linkledger/lib/cmd/findflags"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/termsafe"
)

// packVerbs returns the pack, cite and stats verbs.
func packVerbs(env cli.Env) []*ucli.Command {
	actorFlag := func(what string) ucli.Flag {
		return &ucli.StringFlag{Name: "actor", Value: "human", Usage: what + ": human or agent:<name>"}
	}
	briefFlags := func() []ucli.Flag {
		return append([]ucli.Flag{
			&ucli.StringFlag{Name: "query", Usage: "the brief's query `TEXT`"},
			&ucli.IntFlag{Name: "max-tokens", Value: brief.DefaultMaxTokens, Usage: "token budget of the brief (cl100k_base)"},
			&ucli.IntFlag{Name: "max-items", Value: brief.DefaultMaxItems, Usage: fmt.Sprintf("at most `N` full items (1..%d)", brief.MaxItems)},
			&ucli.IntFlag{Name: "max-pointers", Value: brief.DefaultMaxPointers, Usage: fmt.Sprintf("at most `N` one-line pointers after them (0..%d)", brief.MaxPointers)},
			&ucli.IntFlag{Name: "pointer-words", Usage: fmt.Sprintf("give each pointer its best sentence, at most `N` words (0..%d)", brief.MaxPointerWords)},
			&ucli.StringSliceFlag{Name: "tags", Usage: "only items with all these tags (comma-separated or repeated)"},
			&ucli.StringFlag{Name: "type", Usage: "only items of this source type (article, x, youtube, pdf, text)"},
			&ucli.BoolFlag{Name: "replace", Usage: "save over a pack of the same name (as its next version)"},
		}, findflags.RankingFlags()...)
	}
	writer := func(extra ...ucli.Flag) []ucli.Flag {
		return append([]ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag(), actorFlag("who builds it, for the pack's history")}, extra...)
	}
	save := &ucli.Command{
		Name:      "save",
		Usage:     "save a brief under a name, for a recurring task",
		UsageText: "linkledger pack save [options] NAME --query TEXT",
		Description: `pack save builds the brief of --query (as 'linkledger brief' does, with the
same --max-tokens, --max-items, --max-pointers, --pointer-words, --tags,
--type, --mode and --semantic-weight) and
stores it in the database under NAME with who built it and when. The query
and settings are kept, so 'pack refresh NAME' builds it again. A name that
is taken is an error (exit 2) unless --replace, which saves the new query
as the pack's next version. The record lists every source as entered.

--mode and --semantic-weight are kept with the pack: every refresh ranks
the same way. Without --mode each build takes the default of its day
(hybrid when an embeddings endpoint is configured and the ledger holds its
model's vectors, else lexical). When the semantic side cannot be had (no
endpoint, no vectors of the model, the endpoint failing) the pack is built
lexically with a warning on stderr, never an error; the record's "mode"
and "warnings" say how it was ranked (docs/retrieval.md).

EXAMPLES:
   linkledger pack save weekly-retrieval --query "retrieval evaluation" --max-tokens 1500
   linkledger pack save onboarding --query "agent memory design" --tags ai --actor agent:planner
   linkledger pack save antioxidants --query "NAC" --mode hybrid --semantic-weight 0.3`,
		Flags: writer(briefFlags()...),
		Action: func(ctx context.Context, c *ucli.Command) error {
			name, err := oneName(c, "pack save NAME --query TEXT")
			if err != nil {
				return err
			}
			o, err := packOptions(c)
			if err != nil {
				return err
			}
			q := strings.TrimSpace(c.String("query"))
			if q == "" {
				return cli.Usage("pack save %s: want --query TEXT", name)
			}
			return packWrite(ctx, c, env, func(st *ledger.Ledger, wo ledger.PackWriteOptions) (*record.PackInfo, error) {
				wo.Replace = c.Bool("replace")
				return st.SavePack(ctx, name, q, o, wo)
			})
		},
	}
	refresh := &ucli.Command{
		Name:      "refresh",
		Usage:     "build a pack again and say what entered and what left",
		UsageText: "linkledger pack refresh [options] NAME",
		Description: `pack refresh builds the pack NAME again with its saved query and settings
against the store as it is now, stores it as the next version (who, when)
and says which sources entered and which left since the version before
("entered", "left": rank, url, title, and "as": item or pointer). The
ranking is the one the pack was saved with (see pack save --help): a
semantic side that cannot be had falls back to lexical with a warning.

EXAMPLES:
   linkledger pack refresh weekly-retrieval
   linkledger pack refresh weekly-retrieval --jq '.pack.entered[].url'`,
		Flags: writer(),
		Action: func(ctx context.Context, c *ucli.Command) error {
			name, err := oneName(c, "pack refresh NAME")
			if err != nil {
				return err
			}
			return packWrite(ctx, c, env, func(st *ledger.Ledger, wo ledger.PackWriteOptions) (*record.PackInfo, error) {
				return st.RefreshPack(ctx, name, wo)
			})
		},
	}
	show := &ucli.Command{
		Name:      "show",
		Usage:     "show a pack as it was last built (or a given version)",
		UsageText: "linkledger pack show [options] NAME",
		Description: `pack show prints the pack NAME: its query, settings, version, who built it
and when, what entered and left in that version, and the brief exactly as
ll-brief writes it ("brief"). At a terminal, the brief as Markdown.
Nothing is searched: refresh builds a new version.

EXAMPLES:
   linkledger pack show weekly-retrieval
   linkledger pack show weekly-retrieval --version 1 --jq '.pack.brief.items[].url'`,
		Flags: []ucli.Flag{cli.DBFlag(), &ucli.IntFlag{Name: "version", Usage: "show version `N` (default: the latest)"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			name, err := oneName(c, "pack show NAME")
			if err != nil {
				return err
			}
			if c.Int("version") < 0 {
				return cli.Usage("--version %d: want 1 or more", c.Int("version"))
			}
			return packRead(ctx, c, env, func(st *ledger.Ledger) ([]record.PackInfo, error) {
				p, err := st.ShowPack(ctx, name, c.Int("version"))
				if err != nil {
					return nil, err
				}
				return []record.PackInfo{*p}, nil
			})
		},
	}
	list := &ucli.Command{
		Name:      "list",
		Usage:     "list the packs",
		UsageText: "linkledger pack list [options]",
		Description: `pack list prints one record per pack, by name, at its latest version
(without the brief).

EXAMPLES:
   linkledger pack list -r --jq '.pack | "\(.name)\t\(.version)\t\(.query)"'`,
		Flags: []ucli.Flag{cli.DBFlag()},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("pack list takes no arguments (got %q)", c.Args().First())
			}
			return packRead(ctx, c, env, func(st *ledger.Ledger) ([]record.PackInfo, error) {
				return st.ListPacks(ctx)
			})
		},
	}
	for _, cmd := range []*ucli.Command{save, refresh, show, list} {
		cli.Prepare(cmd, env)
	}
	one := 1
	pack := &ucli.Command{
		Name:      "pack",
		Usage:     "memory packs: briefs saved under a name, shown again and refreshed",
		UsageText: "linkledger pack save|show|refresh|list [options] ...",
		Description: `A memory pack is a brief saved under a name for a recurring task, kept in
the database with every version it was built as (who built it and when).

EXAMPLES:
   linkledger pack save weekly-retrieval --query "retrieval evaluation"
   linkledger pack show weekly-retrieval
   linkledger pack refresh weekly-retrieval
   linkledger pack list`,
		Commands:        []*ucli.Command{save, show, refresh, list},
		StopOnNthArg:    &one, // a mistyped subcommand's flags are not pack's
		Writer:          env.Stdout,
		ErrWriter:       env.Stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(context.Context, *ucli.Command, error) {},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return unknownWord(c, "subcommand", c.Args().First(), []string{"save", "show", "refresh", "list"})
			}
			return cli.Usage("want a subcommand: save, show, refresh or list")
		},
	}
	cite := &ucli.Command{
		Name:      "cite",
		Usage:     "record that an item was used in a piece of work",
		UsageText: "linkledger cite [options] ID|URL ... --task NAME",
		Description: `cite records that each item (an id, or its URL in any form that
canonicalizes to the saved one) was used in the task NAME (a draft, an
answer, a report; a pack's name is its task), with who used it and when.
'linkledger stats' counts these citations. Every argument is checked before
any citation is recorded.

EXAMPLES:
   linkledger cite ll_0123456789abcdef --task weekly-retrieval
   linkledger cite https://example.com/post --task "answer 42" --actor agent:writer`,
		Flags: []ucli.Flag{cli.DBFlag(), cli.BusyTimeoutFlag(), actorFlag("who used it"), rulesFlagPacks(),
			&ucli.StringFlag{Name: "task", Usage: "the piece of work `NAME` the items were used in"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			task := c.String("task")
			if err := ledger.CheckName("task", task); err != nil {
				return cli.Usage("--task: %v", err)
			}
			return writeItems(ctx, c, env, c.Args().Slice(), func(ctx context.Context, st *ledger.Ledger, arg string, wo ledger.WriteOptions) (*record.Record, error) {
				cit, err := st.Cite(ctx, arg, ledger.CiteOptions{Resolve: wo.Resolve, Task: task, Actor: wo.Actor})
				if err != nil {
					return nil, err
				}
				return &record.Record{ID: cit.ItemID, CanonicalURL: cit.URL, Title: cit.Title, Extra: map[string]json.RawMessage{"citation": mustJSON(cit)}}, nil
			})
		},
	}
	stats := &ucli.Command{
		Name:      "stats",
		Usage:     "evidence reuse over a period",
		UsageText: "linkledger stats [options]",
		Description: `stats measures what the design's success criteria ask, over a period
(--since, default 30d; --until, default now):

  tasks, tasks_reusing, reuse_share  the tasks active in the period (named by
      a citation or by a pack built in it) and the share that cited an item
      saved before the task began (its first citation or pack): a source
      reused from memory. reuse_goal is the design's bar, 0.3.
  citations                          citations recorded in the period
  items_saved, items_never_used      items saved in the period, and how many
      of them no task ever cited
  most_reused                        the sources cited by the most tasks
      (--limit, default 10), with their citation counts

--since and --until take RFC 3339, YYYY-MM-DD, today, yesterday or a span
ago (12h, 30d, 2w, 3mo, 1y); --since all counts from the start.

EXAMPLES:
   linkledger stats
   linkledger stats --since 7d --jq '.stats.reuse_share'
   linkledger stats --since all --limit 3`,
		Flags: []ucli.Flag{cli.DBFlag(),
			&ucli.StringFlag{Name: "since", Value: "30d", Usage: "start of the period (RFC 3339, YYYY-MM-DD, yesterday, a span ago such as 30d, 2w, 3mo, 1y, or all)"},
			&ucli.StringFlag{Name: "until", Usage: "end of the period (default now)"},
			&ucli.IntFlag{Name: "limit", Value: 10, Usage: "at most `N` most reused sources"}},
		Action: func(ctx context.Context, c *ucli.Command) error {
			if c.Args().Len() > 0 {
				return cli.Usage("stats takes no arguments (got %q)", c.Args().First())
			}
			now := time.Now().UTC()
			var o ledger.StatsOptions
			var err error
			since := c.String("since")
			if since == "all" {
				since = ""
			}
			if o.Since, o.Until, err = ledger.ParseSpan(since, c.String("until"), now); err != nil {
				return cli.Usage("--%v", err)
			}
			if o.Limit = c.Int("limit"); o.Limit < 1 {
				return cli.Usage("--limit %d: want 1 or more", o.Limit)
			}
			out, st, _, err := openOutput(ctx, c, env, false)
			if err != nil {
				return err
			}
			defer st.Close()
			u, err := st.Stats(ctx, o)
			if err != nil {
				return err
			}
			if out.IsHuman() {
				return out.Text(statsText(u))
			}
			if err := out.EmitValue(map[string]any{"stats": u}); err != nil {
				return err
			}
			return out.Finish()
		},
	}
	for _, cmd := range []*ucli.Command{cite, stats} {
		cli.Prepare(cmd, env)
	}
	return []*ucli.Command{pack, cite, stats}
}

func rulesFlagPacks() ucli.Flag {
	return &ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` (JSON) used to read URL arguments, as in ll-save", Sources: ucli.EnvVars("LINKLEDGER_RULES")}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs of strings and numbers
	}
	return b
}

// oneName reads the one NAME argument of a pack subcommand.
func oneName(c *ucli.Command, usage string) (string, error) {
	args := c.Args().Slice()
	if len(args) != 1 {
		return "", cli.Usage("want one pack name: linkledger %s", usage)
	}
	if err := ledger.CheckName("pack", args[0]); err != nil {
		return "", cli.Usage("%v", err)
	}
	return args[0], nil
}

// packOptions reads the brief flags of pack save and checks them
// (ledger.CheckPackOptions).
func packOptions(c *ucli.Command) (record.PackOptions, error) {
	o := record.PackOptions{MaxTokens: c.Int("max-tokens"), MaxItems: c.Int("max-items"), MaxPointers: c.Int("max-pointers"),
		PointerWords: c.Int("pointer-words"), Type: c.String("type")}
	o.Mode, o.SemanticWeight = findflags.Ranking(c)
	for _, v := range c.StringSlice("tags") {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				o.Tags = append(o.Tags, t)
			}
		}
	}
	return o, findflags.RequestError(ledger.CheckPackOptions(o))
}

// packWrite runs pack save or refresh: it checks --actor, opens the store
// for writing and writes the pack's record.
func packWrite(ctx context.Context, c *ucli.Command, env cli.Env, fn func(*ledger.Ledger, ledger.PackWriteOptions) (*record.PackInfo, error)) error {
	actor := c.String("actor")
	if err := record.CheckActor(actor); err != nil {
		return cli.Usage("--%v", err)
	}
	out, st, path, err := openOutput(ctx, c, env, true)
	if err != nil {
		return err
	}
	defer st.Close()
	// the query is embedded as ll-brief embeds it (a pack saved with
	// --mode lexical never asks)
	diag := cli.Diag{Prog: cli.FullName(c), W: env.Stderr}
	var fo ledger.FindOptions
	findflags.Embedder(ctx, env, st, &fo, diag)
	p, err := fn(st, ledger.PackWriteOptions{Actor: actor, Embedder: fo.Embedder})
	if err != nil {
		if ledger.IsBusy(err) {
			return cli.BusyError(path, cli.BusyTimeout(c.Duration("busy-timeout")), "nothing was changed")
		}
		return packErr(err)
	}
	findflags.Warn(diag, p.Warnings)
	return emitPacks(out, []record.PackInfo{*p}, false)
}

// packRead runs pack show or list.
func packRead(ctx context.Context, c *ucli.Command, env cli.Env, fn func(*ledger.Ledger) ([]record.PackInfo, error)) error {
	out, st, _, err := openOutput(ctx, c, env, false)
	if err != nil {
		return err
	}
	defer st.Close()
	ps, err := fn(st)
	if err != nil {
		return packErr(err)
	}
	return emitPacks(out, ps, c.Name == "show")
}

// packErr gives an unknown or taken pack name the usage exit code (2).
func packErr(err error) error {
	switch err.(type) {
	case *ledger.NoPackError, *ledger.PackExistsError, *ledger.NameError:
		return &cli.ExitError{Code: cli.ExitUsage, Err: err}
	}
	return err
}

func emitPacks(out *cli.Output, ps []record.PackInfo, markdown bool) error {
	if out.IsHuman() {
		var b strings.Builder
		for i := range ps {
			b.WriteString(packText(&ps[i], markdown))
		}
		return out.Text(b.String())
	}
	for i := range ps {
		if err := out.EmitValue(map[string]any{"pack": &ps[i]}); err != nil {
			return err
		}
	}
	return out.Finish()
}

// packText is a pack for a person: one line about it, what entered and
// left, and with markdown the brief itself.
func packText(p *record.PackInfo, markdown bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "pack %s v%d: %q, built %s by %s", p.Name, p.Version, p.Query, p.BuiltAt, p.BuiltBy)
	if p.Mode != "" {
		fmt.Fprintf(&b, ", ranked %s", p.Mode)
	}
	b.WriteString("\n")
	if len(p.Brief) == 0 {
		return b.String()
	}
	member := func(sign string, m record.PackMember) {
		title := m.Title
		if title == "" {
			title = m.URL
		}
		fmt.Fprintf(&b, "  %s %d. %s · %s (%s)\n", sign, m.Rank, termsafe.Line(title), termsafe.Line(m.URL), m.As)
	}
	for _, m := range p.Entered {
		member("+", m)
	}
	for _, m := range p.Left {
		member("-", m)
	}
	if len(p.Entered)+len(p.Left) == 0 {
		b.WriteString("  no source entered or left\n")
	}
	if markdown {
		var bp brief.Pack
		if err := json.Unmarshal(p.Brief, &bp); err == nil {
			b.WriteString("\n" + brief.Markdown(&bp))
		}
	}
	return b.String()
}

func statsText(u *record.UsageStats) string {
	var b strings.Builder
	since := u.Since
	if since == "" {
		since = "the start"
	}
	fmt.Fprintf(&b, "from %s to %s\n", since, u.Until)
	fmt.Fprintf(&b, "tasks %d, reusing a stored source %d (%.0f%%; goal %.0f%%)\n", u.Tasks, u.TasksReusing, 100*u.ReuseShare, 100*u.ReuseGoal)
	fmt.Fprintf(&b, "citations %d\n", u.Citations)
	fmt.Fprintf(&b, "items saved %d, never used %d\n", u.ItemsSaved, u.ItemsNeverUsed)
	if len(u.MostReused) > 0 {
		b.WriteString("most reused:\n")
		for _, s := range u.MostReused {
			title := s.Title
			if title == "" {
				title = s.URL
			}
			fmt.Fprintf(&b, "  %s, %s  %s · %s\n", human.Count(s.Tasks, "task"), human.Count(s.Citations, "citation"), termsafe.Line(title), termsafe.Line(s.URL))
		}
	}
	return b.String()
}
