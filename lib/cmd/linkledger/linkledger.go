// Package linkledger is the front command: `linkledger VERB ...` forwards to
// the ll-* filters (git-style) and composes them for the verbs that are a
// pipeline (worker, stale, retry). The filters come as a Filters map: the
// linkledger binary runs the installed ll-* binaries (ExecFilters), tests
// may run them in process (package inprocess). Pipeline stages are
// connected by pipes and run concurrently, so records stream through
// exactly as in a shell pipeline.
package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/store"
)

// Filters maps each filter's name to its command constructor. This package
// imports none of the filters: the front command's main picks them
// (ExecFilters, or inprocess.Filters).
type Filters map[string]func(cli.Env) *ucli.Command

const usage = `linkledger — a local-first memory of links for people and their agents

USAGE:
   linkledger VERB [options] [args]

VERBS:
   save URL|PATH ... [--note T --tags a,b]      record links (ll-save)
   annotate ID|URL --highlight T [--confidence 0.8 --actor agent:NAME]
                                                 add a highlight, lowlight (--lowlight) or note (--note)
   tag ID|URL --add a,b [--remove c]             add or remove tags
   pin ID ANNOTATION_ID / unpin ID ANNOTATION_ID pin or unpin a highlight
   fetch | parse | index                         the ingest filters (ll-fetch, ll-parse, ll-index)
   find QUERY [options]                          search (ll-find)
   brief TOPIC [--max-items N --max-tokens N]    an evidence pack (ll-brief --query TOPIC)
   related ID [--max-items N]                    items related to an item (ll-find --related)
   worker [--limit N --max-attempts N --base-backoff-ms N]
                                                 ingest pending items: ll-find --pending | ll-fetch | ll-parse | ll-index
                                                 (also takes ll-fetch's --concurrency, --timeout, --lang, --*-base, ...
                                                 and ll-parse's --pdf-password, --chunk-tokens, --chunk-overlap)
   stale [--older-than 30d --limit N]            re-ingest stale items: ll-find --stale | ll-fetch | ll-parse | ll-index
   status ID                                     one item's full status (ll-find --id)
   show ID|URL [--text]                          everything about an item: metadata, status, tags,
                                                 annotations (with their ids), artifacts, text
   tags                                          every tag with its item count, by actor
   unannotate ID|URL ANNOTATION_ID ...           remove annotations (ids from show)
   archive ID|URL ... / unarchive ID|URL ...     leave items out of find and brief (--archived brings them back)
   delete ID|URL ... [--yes]                     delete items for good (the history stays)
   retry ID                                      make a failed item due now and ingest it again
   import FILE ... [--format F]                  import other tools' exports (ll-import | ll-save)
   export [--text] [--tags T --since WHEN ...]   the whole ledger as NDJSON (restore: ll-import --format linkledger | ll-save)
   backup FILE                                   a consistent copy of the database, while others write
   check [--repair]                              integrity, search index and orphan rows; --repair rebuilds the index
   help VERB                                     the help of a verb's filter

Every verb takes --db (or LINKLEDGER_DB) and the filters' common flags.

` + cli.ExitCodesHelp + "\n"

// Main runs the front command with args (args[0] is the program name).
func Main(filters Filters, env cli.Env, args []string) int {
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, filters, env, args)
}

// Run is Main without process-wide signal handling.
func Run(ctx context.Context, filters Filters, env cli.Env, args []string) int {
	if len(args) < 2 {
		fmt.Fprint(env.Stderr, usage)
		return cli.ExitUsage
	}
	verb, rest := args[1], args[2:]
	one := func(filter string, fargs []string) int {
		mk, ok := filters[filter]
		if !ok {
			fmt.Fprintf(env.Stderr, "linkledger: %s is not available in this build\n", filter)
			return cli.ExitFatal
		}
		cmd := mk(env)
		return cli.Report(filter, env.Stderr, cmd.Run(ctx, append([]string{filter}, fargs...)))
	}
	switch verb {
	case "-h", "--help", "help":
		if len(rest) > 0 {
			if f, ok := verbFilter[rest[0]]; ok {
				return one(f, []string{"--help"})
			}
			if cmd := portVerb(env, rest[0]); cmd != nil {
				return cli.Report("linkledger", env.Stderr, cmd.Run(ctx, []string{"linkledger " + rest[0], "--help"}))
			}
			if cmd := itemVerb(env, rest[0]); cmd != nil {
				return cli.Report("linkledger", env.Stderr, cmd.Run(ctx, []string{"linkledger " + rest[0], "--help"}))
			}
		}
		fmt.Fprint(env.Stdout, usage)
		return cli.ExitOK
	case "--version", "version":
		fmt.Fprintf(env.Stdout, "linkledger version %s\n", cli.Version)
		return cli.ExitOK
	case "save", "fetch", "parse", "index", "find", "brief":
		fargs := rest
		if verb == "brief" {
			fargs = briefArgs(rest)
		}
		return one("ll-"+verb, fargs)
	case "annotate":
		return one("ll-save", annotateArgs(rest))
	case "tag":
		return one("ll-save", tagArgs(rest))
	case "pin", "unpin":
		if len(rest) < 2 {
			fmt.Fprintf(env.Stderr, "linkledger: usage: linkledger %s ITEM_ID ANNOTATION_ID\n", verb)
			return cli.ExitUsage
		}
		return one("ll-save", append([]string{rest[0], "--" + verb, rest[1]}, rest[2:]...))
	case "related":
		return one("ll-find", relatedArgs(rest))
	case "status":
		if len(rest) < 1 {
			fmt.Fprintln(env.Stderr, "linkledger: usage: linkledger status ID")
			return cli.ExitUsage
		}
		return one("ll-find", append([]string{"--id", rest[0]}, rest[1:]...))
	case "worker":
		return worker(ctx, filters, env, rest, "--pending")
	case "stale":
		return worker(ctx, filters, env, rest, "--stale")
	case "retry":
		return retry(ctx, filters, env, rest)
	}
	if cmd := itemVerb(env, verb); cmd != nil {
		return cli.Report("linkledger", env.Stderr, cmd.Run(ctx, append([]string{"linkledger " + verb}, rest...)))
	}
	if cmd := portVerb(env, verb); cmd != nil { // import, export, backup, check (port.go)
		return cli.Report("linkledger", env.Stderr, cmd.Run(ctx, append([]string{"linkledger " + verb}, rest...)))
	}
	fmt.Fprintf(env.Stderr, "linkledger: unknown verb %q\nhint: run 'linkledger help' for the list\n", verb)
	return cli.ExitUsage
}

var verbFilter = map[string]string{
	"save": "ll-save", "annotate": "ll-save", "tag": "ll-save", "pin": "ll-save", "unpin": "ll-save",
	"fetch": "ll-fetch", "parse": "ll-parse", "index": "ll-index", "find": "ll-find", "brief": "ll-brief",
	"related": "ll-find", "status": "ll-find",
}

// annotateArgs maps `annotate ID --highlight T --note T` to ll-save flags.
func annotateArgs(in []string) []string {
	out := make([]string, 0, len(in))
	for _, a := range in {
		switch {
		case a == "--note":
			out = append(out, "--annotate-note")
		case strings.HasPrefix(a, "--note="):
			out = append(out, "--annotate-note="+strings.TrimPrefix(a, "--note="))
		default:
			out = append(out, a)
		}
	}
	return out
}

// tagArgs maps `tag ID --add a,b --remove c` to ll-save flags.
func tagArgs(in []string) []string {
	out := make([]string, 0, len(in))
	for _, a := range in {
		switch {
		case a == "--add":
			out = append(out, "--tags")
		case a == "--remove":
			out = append(out, "--untag")
		case strings.HasPrefix(a, "--add="):
			out = append(out, "--tags="+strings.TrimPrefix(a, "--add="))
		case strings.HasPrefix(a, "--remove="):
			out = append(out, "--untag="+strings.TrimPrefix(a, "--remove="))
		default:
			out = append(out, a)
		}
	}
	return out
}

// relatedArgs maps `related ID --max-items N` to ll-find flags.
func relatedArgs(in []string) []string {
	var out []string
	for i := 0; i < len(in); i++ {
		a := in[i]
		switch {
		case a == "--max-items":
			out = append(out, "--limit")
		case strings.HasPrefix(a, "--max-items="):
			out = append(out, "--limit="+strings.TrimPrefix(a, "--max-items="))
		case !strings.HasPrefix(a, "-") && !hasRelated(out):
			out = append(out, "--related", a)
		default:
			out = append(out, a)
		}
	}
	return out
}

func hasRelated(args []string) bool {
	for _, a := range args {
		if a == "--related" {
			return true
		}
	}
	return false
}

// briefArgs maps `brief "topic" ...` to `ll-brief --query "topic" ...`;
// with no positional topic, ll-brief reads ll-find results on stdin.
func briefArgs(in []string) []string {
	var out, topic []string
	valueFlags := map[string]bool{"--max-items": true, "--max-tokens": true, "--format": true, "--db": true, "--jq": true, "--tags": true, "--type": true, "--limit": true, "--since": true, "--until": true, "--actor": true}
	for i := 0; i < len(in); i++ {
		a := in[i]
		if strings.HasPrefix(a, "-") {
			out = append(out, a)
			if valueFlags[a] && i+1 < len(in) {
				out = append(out, in[i+1])
				i++
			}
			continue
		}
		topic = append(topic, a)
	}
	if len(topic) > 0 {
		out = append([]string{"--query", strings.Join(topic, " ")}, out...)
	}
	return out
}

// stage is one filter of a pipeline.
type stage struct {
	name string
	args []string
}

// pipeline runs the stages concurrently, stdout of each into stdin of the
// next, and returns the worst exit code (like pipefail).
func pipeline(ctx context.Context, filters Filters, env cli.Env, stages []stage) int {
	for _, s := range stages {
		if _, ok := filters[s.name]; !ok {
			fmt.Fprintf(env.Stderr, "linkledger: %s is not available in this build\n", s.name)
			return cli.ExitFatal
		}
	}
	codes := make([]int, len(stages))
	var wg sync.WaitGroup
	in := env.Stdin
	for i, s := range stages {
		e := env
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
			codes[i] = cli.Report(s.name, e.Stderr, cmd.Run(ctx, append([]string{s.name}, s.args...)))
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
	return worst
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

// worker splits its flags between the stages that own them.
func worker(ctx context.Context, filters Filters, env cli.Env, args []string, view string) int {
	findArgs := []string{view}
	var fetchArgs, parseArgs, outArgs, common []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(a, "=")
		takeVal := func() string {
			if hasVal {
				return val
			}
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch name {
		case "--limit", "--older-than":
			findArgs = append(findArgs, name, takeVal())
		case "--max-attempts":
			v := takeVal()
			fetchArgs = append(fetchArgs, name, v)
			findArgs = append(findArgs, name, v)
		case "--base-backoff-ms", "--concurrency", "--per-host", "--host-interval", "--timeout", "--connect-timeout",
			"--max-bytes", "--user-agent", "--rules", "--lang", "--youtube-base", "--x-syndication-base", "--x-fx-base", "--x-oembed-base":
			fetchArgs = append(fetchArgs, name, takeVal())
		case "--pdf-password", "--chunk-tokens", "--chunk-overlap":
			parseArgs = append(parseArgs, name, takeVal())
		case "--db":
			common = append(common, name, takeVal())
		case "--jq":
			outArgs = append(outArgs, name, takeVal())
		case "--json", "-r", "--raw-output":
			outArgs = append(outArgs, name)
		case "-q", "--quiet", "-v", "--verbose":
			common = append(common, name)
		default:
			fmt.Fprintf(env.Stderr, "linkledger: worker: unknown flag %s\nhint: run 'linkledger help' for usage\n", a)
			return cli.ExitUsage
		}
	}
	return pipeline(ctx, filters, env, []stage{
		{"ll-find", append(findArgs, common...)},
		{"ll-fetch", append(fetchArgs, quietOnly(common)...)},
		{"ll-parse", append(parseArgs, quietOnly(common)...)},
		{"ll-index", append(outArgs, common...)},
	})
}

// quietOnly keeps the flags a database-less stage understands.
func quietOnly(common []string) []string {
	var out []string
	for i := 0; i < len(common); i++ {
		if common[i] == "--db" {
			i++
			continue
		}
		out = append(out, common[i])
	}
	return out
}

// retry makes an item due now (attempts reset, audit event) and ingests it
// at once: its record goes through ll-fetch | ll-parse | ll-index.
func retry(ctx context.Context, filters Filters, env cli.Env, args []string) int {
	if len(args) < 1 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(env.Stderr, "linkledger: usage: linkledger retry ID [--db FILE]")
		return cli.ExitUsage
	}
	id, rest := args[0], args[1:]
	dbFlag := ""
	for i := 0; i < len(rest); i++ {
		if rest[i] == "--db" && i+1 < len(rest) {
			dbFlag = rest[i+1]
		} else if v, ok := strings.CutPrefix(rest[i], "--db="); ok {
			dbFlag = v
		}
	}
	loc, err := cli.LocateDB(dbFlag, env)
	if err != nil {
		return cli.Report("linkledger", env.Stderr, err)
	}
	// retry changes an existing item: a missing database is an error, not
	// a new empty file
	st, err := cli.OpenReader(ctx, loc, store.Options{BusyTimeout: cli.EnvBusyTimeout(env)})
	if err != nil {
		return cli.Report("linkledger", env.Stderr, err)
	}
	rec, err := st.Retry(ctx, id, "human")
	st.Close()
	if err != nil {
		return cli.Report("linkledger", env.Stderr, fmt.Errorf("retry %s: %w", id, err))
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return cli.Report("linkledger", env.Stderr, err)
	}
	e := env
	e.Stdin = bytes.NewReader(append(line, '\n'))
	return pipeline(ctx, filters, e, []stage{
		{"ll-fetch", quietOnly(rest)},
		{"ll-parse", quietOnly(rest)},
		{"ll-index", rest},
	})
}
