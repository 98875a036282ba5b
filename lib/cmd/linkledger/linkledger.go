// Package linkledger is the front command: `linkledger VERB ...`, a
// urfave/cli command tree whose verbs forward to the ll-* filters
// (git-style) and compose them for the verbs that are a pipeline (worker,
// stale, retry). The filters come as a Filters map: the linkledger binary
// runs the installed ll-* binaries (ExecFilters), tests may run them in
// process (package inprocess). Pipeline stages are connected by pipes and
// run concurrently, so records stream through exactly as in a shell
// pipeline.
//
// Verbs are of two kinds. Pass-through verbs (save, fetch, parse, index,
// find/search, brief) hand their arguments to one filter untouched; their
// help, flags and flag completion are the filter's own, asked of the
// filter, which is told the verb's name (cli.DisplayNameEnv) so that its
// usage and errors say `linkledger find`, not `ll-find`. Translating verbs
// (annotate, tag, pin, unpin, status, related, retry, worker, stale)
// define their own flags and build the filter's arguments from the parsed
// values; those that take an item resolve it first (id or URL), so an
// unknown item gets the same message and exit code from every verb.
//
// The front command links none of the filters' code (see ExecFilters):
// `linkledger find x` costs one exec more than `ll-find x`, not the start-up
// of every filter.
package linkledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
)

// Filters maps each filter's name to its command constructor. This package
// imports none of the filters: the front command's main picks them
// (ExecFilters, or inprocess.Filters).
type Filters map[string]func(cli.Env) *ucli.Command

const rootDescription = `linkledger is the front command of the ll-* filters: each verb runs one
filter (save, find, ...) or a pipeline of them (worker, stale, retry).
Records go to stdout as NDJSON, diagnostics to stderr. 'linkledger help
VERB' or 'linkledger VERB --help' shows a verb's options and examples.

An item is named by its id (ll_ and 16 hex digits) or by its URL in any
form that canonicalizes to the saved one. An unknown item is a usage
error (exit 2) from every verb.

With LINKLEDGER_URL and LINKLEDGER_TOKEN set, save, find, brief, show,
annotate, status, tag and related run on a server (linkledger serve); a
save, annotate or tag the server cannot be reached for waits in the outbox
and exits 5 (linkledger outbox).

EXAMPLES:
   linkledger save https://example.com/post --note "read later" --tags ai
   linkledger worker -q
   linkledger find "agent memory" --limit 5
   linkledger annotate https://example.com/post --highlight "the key claim"
   linkledger brief "agent memory" --max-tokens 1500 --format md
   source <(linkledger completion bash)

` + cli.ExitCodesHelp + `
   5  queued in the outbox: a remote write waits for the server (linkledger outbox)`

// Main runs the front command with args (args[0] is the program name).
func Main(filters Filters, env cli.Env, args []string) int {
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, filters, env, args)
}

// Run is Main without process-wide signal handling.
func Run(ctx context.Context, filters Filters, env cli.Env, args []string) int {
	// LINKLEDGER_URL: the remote verbs run on the server (remote.go)
	if code, ok := remoteRun(ctx, env, args); ok {
		return code
	}
	cmd := New(filters, env)
	if len(args) < 2 {
		cmd.Writer = env.Stderr
		_ = cmd.Run(ctx, []string{"linkledger", "--help"})
		return cli.ExitUsage
	}
	prune(cmd, args[1])
	err := cmd.Run(ctx, args)
	prog := "linkledger"
	var ve *verbError
	if errors.As(err, &ve) {
		prog = ve.prog
	}
	return cli.Report(prog, env.Stderr, err)
}

// prune leaves in root only the verb that will run, when first (the first
// argument) names one, and no verb for --version: urfave/cli sets up every
// command of the tree at each run (~1 ms for this tree), which only help,
// completion of verbs, --man and an unknown verb's suggestion need.
func prune(root *ucli.Command, first string) {
	if first == "--version" || first == "-v" {
		root.Commands = nil
		return
	}
	for _, v := range root.Commands {
		if v.HasName(first) {
			root.Commands = []*ucli.Command{v}
			return
		}
	}
}

// verbError is an error of a verb, reported as "linkledger VERB: ...".
type verbError struct {
	prog string
	err  error
}

func (e *verbError) Error() string { return e.err.Error() }
func (e *verbError) Unwrap() error { return e.err }

// inVerb tags err with the command that failed (nil stays nil).
func inVerb(c *ucli.Command, err error) error {
	if err == nil {
		return nil
	}
	var ve *verbError
	if errors.As(err, &ve) {
		return err
	}
	return &verbError{prog: cli.FullName(c), err: err}
}

// New returns the front command's tree. Its verbs are Verbs(filters, env).
func New(filters Filters, env cli.Env) *ucli.Command {
	one := 1
	root := &ucli.Command{
		Name:                  "linkledger",
		Usage:                 "a local-first memory of links for people and their agents",
		UsageText:             "linkledger VERB [options] [args]",
		Description:           rootDescription,
		Version:               cli.Version,
		Writer:                env.Stdout,
		ErrWriter:             env.Stderr,
		Reader:                env.Stdin,
		Commands:              Verbs(filters, env),
		StopOnNthArg:          &one, // an unknown verb's flags are not the root's
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *ucli.Command) {
			c.Hidden = false
			c.Usage = "print the shell completion script (bash, zsh or fish)"
			c.UsageText = "linkledger completion bash|zsh|fish"
			c.Description = completionDescription
			var shells []*ucli.Command
			for _, s := range c.Commands {
				if s.Name == "bash" {
					s.Action = bashCompletion(s.Action)
				}
				if s.Name != "pwsh" {
					shells = append(shells, s)
				}
			}
			c.Commands = shells
			// a mistyped shell's flags are not completion's: the
			// did-you-mean comes first, and usage errors read as the
			// other verbs' do
			c.StopOnNthArg = &one
			c.OnUsageError = func(_ context.Context, c *ucli.Command, err error, _ bool) error {
				return inVerb(c, cli.UsageError(c, err))
			}
			for _, s := range shells {
				s.OnUsageError = c.OnUsageError
			}
			c.Action = func(_ context.Context, c *ucli.Command) error {
				if c.Args().Present() {
					return inVerb(c, unknownWord(c, "shell", c.Args().First(), []string{"bash", "zsh", "fish"}))
				}
				return ucli.ShowSubcommandHelp(c)
			}
		},
		HideHelpCommand: true,
		ExitErrHandler:  func(context.Context, *ucli.Command, error) {},
		OnUsageError: func(_ context.Context, c *ucli.Command, err error, _ bool) error {
			return inVerb(c, cli.UsageError(c, err))
		},
		Flags: []ucli.Flag{cli.ManFlag()},
		Action: func(_ context.Context, c *ucli.Command) error {
			if c.Bool("man") {
				return cli.Man(c.Root().Writer, c)
			}
			if !c.Args().Present() {
				return ucli.ShowRootCommandHelp(c)
			}
			return unknownVerb(c, c.Args().First())
		},
	}
	root.Commands = append(root.Commands, helpVerb(filters, env), versionVerb())
	for _, v := range root.Commands {
		sayVerb(v, root.OnUsageError)
	}
	return root
}

// sayVerb makes every error of v and of its subcommands (pack save, config
// decay), usage errors too, say the command as typed: "linkledger pack
// save: ...", with its own --help in the hint.
func sayVerb(v *ucli.Command, onUsage ucli.OnUsageErrorFunc) {
	v.OnUsageError = onUsage
	// a highlight or note may hold commas: a value is forwarded whole
	// (the filters split tag lists themselves)
	v.DisableSliceFlagSeparator = true
	if act := v.Action; act != nil {
		v.Action = func(ctx context.Context, c *ucli.Command) error { return inVerb(c, act(ctx, c)) }
	}
	for _, sub := range v.Commands {
		sayVerb(sub, onUsage)
	}
}

const completionDescription = `Prints a script that completes linkledger's verbs, flags and item ids.

EXAMPLES:
   source <(linkledger completion bash)                       # in ~/.bashrc
   source <(linkledger completion zsh)                        # in ~/.zshrc
   linkledger completion fish > ~/.config/fish/completions/linkledger.fish

'make install' installs the three scripts where each shell looks for them.`

// Verbs are the front command's verbs, in the order of its help. The verbs
// of other parts (e.g. the item verbs) are appended here; New gives every
// verb the front's usage errors and "linkledger VERB:" error prefix.
func Verbs(filters Filters, env cli.Env) []*ucli.Command {
	verbs := []*ucli.Command{
		passVerb(filters, env, "save", "ll-save", "record links, notes and tags (ll-save)", "linkledger save [options] URL|PATH ..."),
		annotateVerb(filters, env),
		tagVerb(filters, env),
		pinVerb(filters, env, "pin"),
		pinVerb(filters, env, "unpin"),
		passVerb(filters, env, "find", "ll-find", "search saved links, best first (ll-find); alias: search", "linkledger find [options] [--] [QUERY ...]", "search"),
		passVerb(filters, env, "brief", "ll-brief", "an evidence pack for a topic under a token budget (ll-brief)", "linkledger brief [options] TOPIC ..."),
		relatedVerb(filters, env),
		statusVerb(filters, env),
		workerVerb(filters, env, "worker"),
		workerVerb(filters, env, "stale"),
		retryVerb(filters, env),
		enrichVerb(filters, env),
		passVerb(filters, env, "fetch", "ll-fetch", "fetch the records on stdin (ll-fetch)", "linkledger fetch [options] < records"),
		passVerb(filters, env, "parse", "ll-parse", "extract text from fetched records (ll-parse)", "linkledger parse [options] < records"),
		passVerb(filters, env, "index", "ll-index", "store parsed records in the index (ll-index)", "linkledger index [options] < records"),
	}
	// show, tags, unannotate, archive, unarchive, delete (items.go)
	for _, v := range itemVerbs(env) {
		if v.Name != "tags" && v.ShellComplete == nil {
			v.ShellComplete = completeItems(env)
		}
		verbs = append(verbs, v)
	}
	// memory packs, citations and reuse statistics (packs.go)
	verbs = append(verbs, packVerbs(env)...)
	// import, export, backup, check (port.go)
	verbs = append(verbs, portVerbs(filters, env)...)
	// what the ledger holds (overview.go)
	verbs = append(verbs, overviewVerb(env))
	// the MCP server for agents (mcp.go)
	verbs = append(verbs, mcpVerb(filters, env))
	// the review queue of agent annotations (review.go)
	verbs = append(verbs, reviewVerb(env))
	// highlights and lowlights whose quote left the text (orphans.go)
	verbs = append(verbs, orphansVerb(env))
	// the ledger's stored policies: decay (config.go)
	verbs = append(verbs, configVerb(env))
	// vectors for stored items: semantic and hybrid search (embed.go)
	verbs = append(verbs, embedVerb(env))
	// the local web app (ui.go)
	verbs = append(verbs, uiVerb(filters, env))
	// the served ledger and its tokens (serve.go, tokens.go)
	verbs = append(verbs, serveVerb(filters, env), tokenVerb(env))
	// the offline writes of a remote front command (outbox.go)
	verbs = append(verbs, outboxVerb(env))
	return verbs
}

// unknownVerb says verb is not one, with the nearest verb as a hint.
func unknownVerb(root *ucli.Command, verb string) error {
	var names []string
	canonical := map[string]string{}
	for _, v := range root.Commands {
		if v.Hidden {
			continue
		}
		for _, n := range v.Names() {
			names = append(names, n)
			canonical[n] = v.Name
		}
	}
	hint := "run 'linkledger help' for the list of verbs"
	if s := cli.Suggest(verb, names); s != "" {
		hint = fmt.Sprintf("did you mean 'linkledger %s'?", s)
		if canonical[s] != s {
			hint = fmt.Sprintf("did you mean 'linkledger %s' (%s)?", s, canonical[s])
		}
	}
	return cli.UsageHint(hint, "unknown verb %q", verb)
}

// unknownWord says that word is not one of choices at a verb level below
// the front (pack's subcommands, config's settings, completion's shells):
// "unknown subcommand "shwo": want save, show, refresh or list", with the
// nearest choice as the full command to type ("did you mean 'linkledger
// pack show'?"), as for an unknown verb.
func unknownWord(c *ucli.Command, kind, word string, choices []string) error {
	want := strings.Join(choices, ", ")
	if n := len(choices); n > 1 {
		want = strings.Join(choices[:n-1], ", ") + " or " + choices[n-1]
	}
	hint := fmt.Sprintf("run '%s --help' for usage", cli.FullName(c))
	if s := cli.Suggest(word, choices); s != "" {
		hint = fmt.Sprintf("did you mean '%s %s'?", cli.FullName(c), s)
	}
	return cli.UsageHint(hint, "unknown %s %q: want %s", kind, word, want)
}

// helpVerb is `linkledger help [VERB [SUBVERB]]`: the same as `linkledger
// VERB [SUBVERB] --help`.
func helpVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      "help",
		Usage:     "show the help of linkledger or of a verb",
		UsageText: "linkledger help [VERB [SUBVERB]]",
		HideHelp:  true,
		Action: func(_ context.Context, c *ucli.Command) error {
			args := []string{"linkledger", "--help"}
			if c.Args().Present() {
				verb := c.Args().First()
				if verb != "completion" && New(filters, env).Command(verb) == nil {
					return inVerb(c, unknownVerb(New(filters, env), verb))
				}
				// help pack save: the sub-verb's help, as pack save --help
				args = append(append([]string{"linkledger"}, c.Args().Slice()...), "--help")
			}
			// a fresh context: the tree must run as a root, not as a
			// subcommand of this one
			return New(filters, env).Run(context.Background(), args)
		},
	}
}

// versionVerb is `linkledger version`, the same as --version.
func versionVerb() *ucli.Command {
	return &ucli.Command{
		Name:      "version",
		Usage:     "print the version",
		UsageText: "linkledger version",
		Action: func(_ context.Context, c *ucli.Command) error {
			_, err := fmt.Fprintln(c.Root().Writer, cli.VersionLine("linkledger"))
			return err
		},
	}
}

// displayEnv is env for a filter run on behalf of the command named name.
func displayEnv(env cli.Env, name string) cli.Env {
	get := env.Getenv
	env.Getenv = func(k string) string {
		if k == cli.DisplayNameEnv {
			return name
		}
		if get == nil {
			return ""
		}
		return get(k)
	}
	return env
}

// runOne runs one filter for the command named name, with args.
func runOne(ctx context.Context, filters Filters, env cli.Env, filter, name string, args []string) error {
	mk, ok := filters[filter]
	if !ok {
		return &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("%s is not available in this build", filter)}
	}
	e := displayEnv(env, name)
	cmd := mk(e)
	code := cli.Report(cmd.Name, e.Stderr, cmd.Run(detached{ctx}, append([]string{filter}, args...)))
	if code != cli.ExitOK {
		return &cli.ExitError{Code: code}
	}
	return nil
}

// detached is ctx without its values: a filter's command runs as a root
// command of its own, not as a subcommand of the verb that runs it
// (urfave/cli finds a command's parent in the context), while it still
// stops when ctx is cancelled.
type detached struct{ context.Context }

func (detached) Value(any) any { return nil }

// passVerb is a verb that hands all its arguments to filter: its help and
// flags are the filter's.
func passVerb(filters Filters, env cli.Env, name, filter, usage, usageText string, aliases ...string) *ucli.Command {
	display := "linkledger " + name
	return &ucli.Command{
		Name:            name,
		Aliases:         aliases,
		Usage:           usage,
		UsageText:       usageText,
		Description:     fmt.Sprintf("The options are %s's: 'linkledger %s --help' shows them.", filter, name),
		SkipFlagParsing: true,
		HideHelp:        true,
		Action: func(ctx context.Context, c *ucli.Command) error {
			return inVerb(c, runOne(ctx, filters, env, filter, display, c.Args().Slice()))
		},
		ShellComplete: func(ctx context.Context, c *ucli.Command) {
			args := c.Args().Slice()
			if completeTags(ctx, c, env, args) {
				return
			}
			if len(args) == 0 || !strings.HasPrefix(args[len(args)-1], "-") {
				return
			}
			// the filter lists its own flags
			e := env
			get := env.Getenv
			e.Getenv = func(k string) string {
				if k == cli.CompleteEnv {
					return "1"
				}
				return get(k)
			}
			_ = runOne(ctx, filters, e, filter, display, append(args, "--generate-shell-completion"))
		},
	}
}
