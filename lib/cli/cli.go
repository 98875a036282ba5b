// Package cli holds what every ll-* command shares: the common flags
// (--db, -q, -v, --jq, --json, --format), exit codes, database location,
// the output (records, jq filter, one-shot envelope, or the view for a
// person at a terminal; quiet end on a closed pipe), the progress line and
// error reporting on stderr. It is the command layer: it may read the
// environment; lib/ packages below it never do.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"
	"golang.org/x/term"

	"github.com/linkledger/linkledger/lib/ndjson"
)

// Exit codes, the same for every binary and listed in every --help.
const (
	ExitOK      = 0 // everything succeeded
	ExitFatal   = 1 // could not run (database, I/O, internal error)
	ExitUsage   = 2 // bad flags or arguments
	ExitPartial = 3 // finished, but some records failed (error records were written)
	ExitNoMatch = 4 // ll-find/ll-brief with -e: nothing matched
	ExitQueued  = 5 // linkledger save/annotate/tag with LINKLEDGER_URL: the server was not reached, the write waits in the outbox
)

// ExitCodesHelp is the exit-code section appended to every --help.
const ExitCodesHelp = `EXIT CODES:
   0  ok
   1  fatal error (database, I/O)
   2  usage error (bad flag or argument)
   3  finished, but some records failed (see the error records)
   4  nothing matched (ll-find and ll-brief, only with -e)`

// ExitError carries an exit code up to Main.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return ""
	}
	return e.Err.Error()
}
func (e *ExitError) Unwrap() error { return e.Err }

// Usage returns a usage error (exit 2).
func Usage(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Partial is returned by a command that finished with some failed records.
var Partial = &ExitError{Code: ExitPartial}

// NoMatch is returned by a search that found nothing when -e was given.
var NoMatch = &ExitError{Code: ExitNoMatch}

// CommonFlags are the flags every ll-* binary has.
func CommonFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "jq", Usage: "apply a jq `FILTER` to every output record"},
		&ucli.BoolFlag{Name: "raw-output", Aliases: []string{"r"}, Usage: "with --jq: write strings without JSON quotes"},
		&ucli.BoolFlag{Name: "json", Usage: "write one JSON document {ok, data, meta} instead of a stream"},
		FormatFlag(),
		&ucli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress, counts or per-record failure lines on stderr (failed records still carry their error)"},
		&ucli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more diagnostics on stderr"},
	}
}

// DBFlag is the --db flag of the binaries that open the store.
func DBFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "db", Usage: "database `FILE` (default: $LINKLEDGER_DB, else .linkledger/linkledger.db found upward, else $XDG_DATA_HOME/linkledger/linkledger.db)", Sources: ucli.EnvVars("LINKLEDGER_DB")}
}

// DefaultBusyTimeout is how long a writer waits for another process's
// write lock before it gives up (--busy-timeout).
const DefaultBusyTimeout = 30 * time.Second

// BusyTimeoutFlag is the --busy-timeout flag of the binaries that write to
// the store (ll-save, ll-index).
func BusyTimeoutFlag() ucli.Flag {
	return &ucli.DurationFlag{Name: "busy-timeout", Value: DefaultBusyTimeout, Sources: ucli.EnvVars("LINKLEDGER_BUSY_TIMEOUT"),
		Usage: "how long to wait for another process's write lock before giving up (0: not at all)"}
}

// BusyTimeout turns a --busy-timeout value into store.Options.BusyTimeout
// (where 0 means the default): 0 and below become 1 ms, "do not wait".
func BusyTimeout(d time.Duration) time.Duration {
	return max(d, time.Millisecond)
}

// EnvBusyTimeout is LINKLEDGER_BUSY_TIMEOUT for commands without the flag
// (0, the store's default, when unset or not a duration).
func EnvBusyTimeout(env Env) time.Duration {
	d, err := time.ParseDuration(env.Getenv("LINKLEDGER_BUSY_TIMEOUT"))
	if err != nil {
		return 0
	}
	return BusyTimeout(d)
}

// BusyError explains a write given up because another process held the
// database's write lock for longer than the busy timeout.
func BusyError(path string, wait time.Duration, done string) error {
	return fmt.Errorf("%s: database is locked by another process (gave up after %v; --busy-timeout or LINKLEDGER_BUSY_TIMEOUT waits longer); %s", path, wait, done)
}

// Env is what a command run sees of its process, so tests and the front
// command can run commands in-process.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Getwd  func() (string, error)
	// LookupEnv tells a variable set to "" from one unset (where that
	// differs: an explicit empty task prefix); nil: Getenv's value, set
	// when not empty (Lookup).
	LookupEnv func(string) (string, bool)
}

// Lookup is the value of variable k in env and whether it is set.
func (e Env) Lookup(k string) (string, bool) {
	switch {
	case e.LookupEnv != nil:
		return e.LookupEnv(k)
	case e.Getenv != nil:
		v := e.Getenv(k)
		return v, v != ""
	}
	return os.LookupEnv(k)
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Getwd: os.Getwd, LookupEnv: os.LookupEnv}
}

// Prepare fills in the parts of a command every binary shares: the common
// flags, the exit codes in --help, usage errors in the user's terms (exit
// 2), slice flags that take each value whole (no splitting on commas),
// and, when the front command runs the filter for a verb (DisplayNameEnv),
// that verb's name in help and errors.
func Prepare(cmd *ucli.Command, env Env) {
	cmd.Version = Version
	cmd.Flags = append(cmd.Flags, CommonFlags()...)
	cmd.Writer = env.Stdout
	cmd.ErrWriter = env.Stderr
	cmd.Reader = env.Stdin
	cmd.HideHelpCommand = true
	// A slice flag's value is one value: a highlight or note keeps its
	// commas. Repeating the flag gives several; list flags (--tags) split
	// on commas themselves.
	cmd.DisableSliceFlagSeparator = true
	if cmd.Description != "" {
		cmd.Description += "\n\n"
	}
	cmd.Description += ExitCodesHelp
	cmd.ExitErrHandler = func(context.Context, *ucli.Command, error) {}
	cmd.OnUsageError = onUsageError
	cmd.Flags = append(cmd.Flags, ManFlag())
	if act := cmd.Action; act != nil {
		cmd.Action = func(ctx context.Context, c *ucli.Command) error {
			if Flags(c).Bool("man") {
				return Man(c.Root().Writer, c)
			}
			return act(ctx, c)
		}
	}
	if env.Getenv != nil {
		if name := env.Getenv(DisplayNameEnv); name != "" && name != cmd.Name {
			Rename(cmd, name)
		}
		// the front command asks a filter for its flags this way (see
		// linkledger's completion of pass-through verbs)
		cmd.EnableShellCompletion = env.Getenv(CompleteEnv) != ""
	}
}

// EmptyInputEnv, when set, is what a filter that reads records says on
// stderr, for a person at a terminal, when none came in: the front's
// pipeline verbs set it for their last stage, so `linkledger worker` with
// nothing to do says that nothing is pending, not that ll-index got no
// records. A second line, if any, is the hint.
const EmptyInputEnv = "LINKLEDGER_EMPTY_INPUT"

// CompleteEnv, when set, turns on a filter's shell completion
// (--generate-shell-completion); the front command sets it to complete
// the flags of the verbs it passes through.
const CompleteEnv = "LINKLEDGER_COMPLETE"

// Rename gives cmd the name a person typed: its usage line and examples
// then read "linkledger find ..." instead of "ll-find ...".
func Rename(cmd *ucli.Command, name string) {
	cmd.UsageText = strings.ReplaceAll(cmd.UsageText, cmd.Name+" ", name+" ")
	cmd.Description = strings.ReplaceAll(cmd.Description, cmd.Name+" ", name+" ")
	cmd.Name = name
}

// Main runs cmd with args and returns the process exit code. Errors are
// printed once on stderr as "prog: message".
func Main(cmd *ucli.Command, env Env, args []string) int {
	// A closed stdout must surface as EPIPE from Write, not kill us.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// stop (signal.Stop) waits until the runtime's signal goroutine is
	// idle, which in a short process it may not even have started yet
	// (0.1-0.4 ms measured under load); a process exits right after Main,
	// so it need not wait, and an in-process caller is unregistered a
	// moment later
	defer func() { go stop() }()
	err := cmd.Run(ctx, args)
	return Report(cmd.Name, env.Stderr, err)
}

// Hinter is an error that knows the next command to try (such as
// ledger.NoItemError, OpenReader's missing database): Report prints its
// Hint on a "hint:" line instead of the generic usage hint.
type Hinter interface{ Hint() string }

// Report prints err on w prefixed with prog and returns its exit code.
// A usage error is followed by a hint: the error's own (Hinter), else
// where to find the usage.
func Report(prog string, w io.Writer, err error) int {
	if err == nil || ndjson.IsClosedPipe(err) {
		return ExitOK
	}
	if errors.Is(err, context.Canceled) {
		// Ctrl-C or SIGTERM: every filter says it the same way. Filters
		// stop between records, so what they wrote stays.
		fmt.Fprintf(w, "%s: interrupted: records written before it are kept; running the same input again is safe\n", prog)
		return ExitFatal
	}
	code := ExitFatal
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
	} else if strings.Contains(err.Error(), "flag provided but not defined") || strings.HasPrefix(err.Error(), "invalid value") {
		code = ExitUsage
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(w, "%s: %s\n", prog, msg)
		var h Hinter
		switch {
		case errors.As(err, &h) && h.Hint() != "":
			fmt.Fprintf(w, "hint: %s\n", h.Hint())
		case code == ExitUsage:
			fmt.Fprintf(w, "hint: run '%s --help' for usage\n", prog)
		}
	}
	return code
}

// ResolveDB returns the database path (see LocateDB, which also says how
// it was chosen).
func ResolveDB(flag string, env Env) (string, error) {
	loc, err := LocateDB(flag, env)
	return loc.Path, err
}

// IsTerminal reports whether w is a terminal: stdout for the output form
// (OutputOn), stderr for progress.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Diag prints diagnostics on stderr prefixed with the program name.
type Diag struct {
	Prog    string
	W       io.Writer
	Verbose bool
	// Quiet (-q) silences the per-record lines (Itemf): a failed record
	// still goes on as a record with its error.
	Quiet bool
	// Progress, when set, is cleared before each diagnostic.
	Progress *Progress
}

// Printf prints one diagnostic line.
func (d Diag) Printf(format string, args ...any) {
	d.Progress.Clear()
	fmt.Fprintf(d.W, d.Prog+": "+format+"\n", args...)
}

// Itemf prints a line about one record (why it failed), unless -q.
func (d Diag) Itemf(format string, args ...any) {
	if !d.Quiet {
		d.Printf(format, args...)
	}
}

// Debugf prints a line only with -v.
func (d Diag) Debugf(format string, args ...any) {
	if d.Verbose {
		d.Printf(format, args...)
	}
}
