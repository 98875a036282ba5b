package linkledger

// The front command on another machine: with LINKLEDGER_URL and
// LINKLEDGER_TOKEN set, the remote verbs (save, find/search, brief, show,
// annotate, status, tag, related) run on the server's ledger through its JSON API
// (lib/remote), which runs this same command code there, so the output,
// errors and exit codes are the local ones. docs/cli.md, "Remote ledger:
// LINKLEDGER_URL".

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
)

// isTerminal is cli.IsTerminal (a test pretends).
var isTerminal = cli.IsTerminal

// localWithURL are the verbs that run here even with LINKLEDGER_URL set:
// help, and the verbs of the server's own machine.
var localWithURL = map[string]bool{
	"help": true, "version": true, "completion": true,
	"serve": true, "token": true, "restore-replica": true,
	"outbox": true,
}

// remoteRun runs args on the server named by LINKLEDGER_URL when it is
// set; ok is false when the command runs here.
func remoteRun(ctx context.Context, env cli.Env, args []string) (code int, ok bool) {
	if env.Getenv == nil || env.Getenv(remote.EnvURL) == "" || len(args) < 2 {
		return 0, false
	}
	typed := args[1]
	if typed == "" || typed[0] == '-' || localWithURL[typed] {
		return 0, false // --help, --version, and the local verbs
	}
	prog := "linkledger " + typed
	for _, a := range args[2:] {
		if a == "--" {
			break
		}
		if a == "--help" || a == "-h" || a == "--generate-shell-completion" {
			return 0, false // the same help text here
		}
	}
	verb, isRemote := remote.Verb(typed)
	if !isRemote {
		if New(nil, env).Command(typed) == nil {
			return 0, false // an unknown verb: the usual did-you-mean
		}
		return cli.Report(prog, env.Stderr, cli.UsageHint(
			"unset LINKLEDGER_URL to run it on a local ledger file, or run it on the server",
			"LINKLEDGER_URL is set: %s works on a local ledger file only; the verbs that run on a server are %s",
			typed, joinOr(remote.Verbs))), true
	}
	token := env.Getenv(remote.EnvToken)
	if token == "" {
		return cli.Report(prog, env.Stderr, cli.UsageHint(
			"make one on the server (linkledger token add NAME) and set LINKLEDGER_TOKEN, or unset LINKLEDGER_URL",
			"LINKLEDGER_URL is set but LINKLEDGER_TOKEN is not")), true
	}
	base, err := remote.CheckURL(env.Getenv(remote.EnvURL), env.Getenv(remote.EnvAllowHTTP) == "1")
	if err != nil {
		return cli.Report(prog, env.Stderr, usageOf(err)), true
	}
	norm, err := remote.Normalize(verb, args[2:])
	if err != nil {
		return cli.Report(prog, env.Stderr, usageOf(err)), true
	}
	c := &remote.Client{Base: base, Token: token}
	// colour and hints as locally: the client's environment and
	// terminals decide, the server renders
	req := remote.Request{Verb: typed, Args: norm, Terminal: isTerminal(env.Stdout),
		StderrTerminal: isTerminal(env.Stderr)}
	req.Color = cli.ColorWanted(env.Getenv, req.Terminal)
	if f, ok := env.Stdout.(*os.File); ok && req.Terminal {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			req.Width = cols
		}
	}
	// the outbox (outbox.go): what waits is replayed first, in order; a
	// write the server is not reached for waits there
	obPath, obErr := outboxPath(env, base, token)
	ob := &remote.Outbox{Path: obPath}
	var pushErr error
	if obErr == nil {
		pushErr = autoPush(ctx, env, prog, ob, c)
	}
	var resp remote.Response
	if pushErr != nil {
		err = pushErr // not reached a moment ago: not tried twice
	} else {
		resp, err = c.Run(ctx, req)
	}
	if err != nil {
		if remote.Writes(verb) && remote.Queueable(err) {
			return queue(env, prog, base.Redacted(), verb, norm, ob, obErr, err), true
		}
		return cli.Report(prog, env.Stderr, remoteError(base.Redacted(), err)), true
	}
	// a terminal shows lines, never a server's control sequences
	if isTerminal(env.Stdout) {
		resp.Stdout = remote.TerminalSafe(resp.Stdout)
	}
	if isTerminal(env.Stderr) {
		resp.Stderr = remote.TerminalSafe(resp.Stderr)
	}
	// the view for a person goes through the pager as it does locally
	// (show pages; stdout and stdin terminals, longer than the screen)
	write := func() error { _, err := env.Stdout.Write(resp.Stdout); return err }
	if pagedVerbs[verb] && req.Terminal && humanArgs(norm) {
		write = func() error { return cli.WritePaged(env, resp.Stdout) }
	}
	if err := write(); err != nil {
		return cli.Report(prog, env.Stderr, err), true
	}
	_, _ = env.Stderr.Write(resp.Stderr)
	if resp.Truncated {
		return cli.Report(prog, env.Stderr, fatal(errors.New("the server cut the output at its bound: ask for less (--limit, no --text)"))), true
	}
	return resp.ExitCode, true
}

// pagedVerbs are the remote verbs whose local command pages its view
// for a person (cli.Output.Page).
var pagedVerbs = map[string]bool{"show": true}

// humanArgs reports whether a client at a terminal gets the view for a
// person with these (normalized) arguments, as the server decides it: no
// --json, and --format human or md when one is given.
func humanArgs(norm []string) bool {
	human := true
	for _, a := range norm {
		if a == "--" {
			break
		}
		if a == "--json" {
			return false
		}
		if f, ok := strings.CutPrefix(a, "--format="); ok {
			human = f == cli.FormatHuman || f == cli.FormatMD // the server adds none then
		}
	}
	return human
}

// usageOf is a remote.UsageError as the front command's usage error.
func usageOf(err error) error {
	var ue *remote.UsageError
	if errors.As(err, &ue) && ue.Hint != "" {
		return cli.UsageHint(ue.Hint, "%s", ue.Msg)
	}
	return cli.Usage("%s", err.Error())
}

// remoteError says in the user's terms why the server did not run the
// verb: exit 1 (could not run) when the server is unreachable, refuses
// the token (401) or its scope (403); exit 2 when it refused the request
// itself.
func remoteError(base string, err error) error {
	var ue *remote.UnreachableError
	var se *remote.ServerError
	switch {
	case errors.As(err, &ue):
		return withHint(fatal(err), "is 'linkledger serve' running there? unset LINKLEDGER_URL to use a local ledger file")
	case errors.As(err, &se):
		switch se.Status {
		case http.StatusUnauthorized:
			return withHint(fatal(fmt.Errorf("the server at %s refused LINKLEDGER_TOKEN (401 %s): unknown or revoked", base, se.Msg)),
				"make a token on the server: linkledger token add NAME; linkledger token list shows the names")
		case http.StatusForbidden:
			return withHint(fatal(fmt.Errorf("the server at %s refused: %s (403)", base, se.Msg)),
				"a token of scope write saves and annotates: linkledger token add NAME --scope write")
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusNotFound:
			return cli.Usage("the server at %s refused the request (%d): %s", base, se.Status, se.Msg)
		}
		return fatal(fmt.Errorf("the server at %s answered %d: %s", base, se.Status, se.Msg))
	}
	return err
}

// hinted is an error with a hint line (cli.Hinter).
type hinted struct {
	error
	hint string
}

func (h hinted) Hint() string  { return h.hint }
func (h hinted) Unwrap() error { return h.error }

func withHint(err error, hint string) error { return hinted{err, hint} }

func joinOr(words []string) string {
	out := ""
	for i, w := range words {
		switch {
		case i == 0:
		case i == len(words)-1:
			out += " and "
		default:
			out += ", "
		}
		out += w
	}
	return out
}

func fatal(err error) error { return &cli.ExitError{Code: cli.ExitFatal, Err: err} }
