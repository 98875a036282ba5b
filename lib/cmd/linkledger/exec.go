package linkledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
)

// FilterNames are the filters the front command forwards to.
var FilterNames = []string{"ll-save", "ll-import", "ll-fetch", "ll-parse", "ll-enrich", "ll-embed", "ll-index", "ll-find", "ll-brief"}

// ExecFilters returns filters that run the ll-* binaries as processes,
// git-style: from dir (the front command's own folder, so a build uses its
// own filters) when they are there, else from PATH. Arguments, standard
// input and output, and the exit code pass through unchanged; pipeline
// stages are connected by pipes as in a shell. The front command links
// none of the filters' code, so `linkledger save` starts as fast as
// ll-save, not as slow as the slowest filter (the parse chain's
// dependencies take ~0.25 s to initialise).
func ExecFilters(dir string) Filters {
	f := Filters{}
	for _, name := range FilterNames {
		f[name] = func(env cli.Env) *ucli.Command {
			return &ucli.Command{
				Name:            name,
				SkipFlagParsing: true,
				HideHelp:        true,
				HideVersion:     true,
				Action: func(ctx context.Context, c *ucli.Command) error {
					return runFilter(ctx, dir, name, env, c.Args().Slice())
				},
			}
		}
	}
	return f
}

// ExecutableDir is the folder of the running binary ("" when unknown).
func ExecutableDir() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return filepath.Dir(exe)
}

func findFilter(dir, name string) (string, error) {
	if dir != "" {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found next to linkledger or on PATH: install all the binaries (make install, or go install -tags sqlite_fts5 ./cmd/...)", name)
	}
	return p, nil
}

func runFilter(ctx context.Context, dir, name string, env cli.Env, args []string) error {
	path, err := findFilter(dir, name)
	if err != nil {
		return &cli.ExitError{Code: cli.ExitFatal, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = env.Stdin, env.Stdout, env.Stderr
	// the filter speaks of the command that was typed (cli.DisplayNameEnv)
	// and, for shell completion, lists its flags (cli.CompleteEnv); an
	// embeddings endpoint stored in the ledger reaches ll-embed as the
	// environment it reads (storedEmbedEnv; the last value of a key wins);
	// linkledger serve's public-only fetching reaches ll-fetch and ll-index
	// the same way (cli.PublicOnlyEnv)
	// linkledger serve's remote runs decide the colour and the hints of
	// the human form (lib/remote): those variables are env's, the
	// process's own dropped (locally env's are the process's)
	cmd.Env = withoutVars(os.Environ(), handedVars...)
	for _, k := range handedVars {
		if v := env.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for _, k := range []string{cli.DisplayNameEnv, cli.CompleteEnv, cli.EmptyInputEnv, cli.EnvEmbedURL, cli.EnvEmbedModel, cli.WidthEnv, cli.PublicOnlyEnv} {
		if v := env.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	// a stored task prefix too, even "" (an explicit none, which the
	// model's default must not replace)
	for _, k := range []string{cli.EnvEmbedDocPrefix, cli.EnvEmbedQueryPrefix} {
		if v, ok := env.Lookup(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	// On SIGINT/SIGTERM to the front command, ask the filter to stop the
	// way a shell would, and give it time to finish its transaction.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		code := ee.ExitCode()
		if code < 0 { // killed by a signal
			code = cli.ExitFatal
		}
		return &cli.ExitError{Code: code} // the filter has said why
	default:
		return &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("run %s: %w", name, err)}
	}
}

// handedVars are the variables a filter gets from env alone, never from
// the process: the colour of the human form and the terminal on stderr,
// which a remote run decides for its client.
var handedVars = []string{"NO_COLOR", "CLICOLOR_FORCE", "CLICOLOR", "TERM", cli.StderrTerminalEnv}

// withoutVars is environ less the variables named.
func withoutVars(environ []string, names ...string) []string {
	out := environ[:0:0]
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}
