package linkledger

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
)

// fakeFilter writes an executable shell script named name into dir.
func fakeFilter(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestExecFilters: a verb runs the filter binary found next to the front
// command (before PATH) with the arguments, standard input and output
// passed through, and its exit code comes back without an extra message.
// The filter is told the verb's name (cli.DisplayNameEnv).
func TestExecFilters(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	fakeFilter(t, dir, "ll-save", `echo "args:$*"; echo "name:$LINKLEDGER_DISPLAY_NAME"; /bin/cat; echo "diag" >&2; exit 3`)
	fakeFilter(t, other, "ll-save", `echo "from PATH"`)
	fakeFilter(t, other, "ll-find", `echo "find from PATH: $*"`)
	t.Setenv("PATH", other)
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader("line on stdin\n"), Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Getwd: os.Getwd}
	code := Run(context.Background(), ExecFilters(dir), env, []string{"linkledger", "save", "ll_x", "--tags", "a,b"})
	if code != 3 {
		t.Errorf("exit code %d, want the filter's 3", code)
	}
	if got, want := out.String(), "args:ll_x --tags a,b\nname:linkledger save\nline on stdin\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	if got := errb.String(); got != "diag\n" {
		t.Errorf("stderr %q, want only the filter's own diagnostic", got)
	}
	out.Reset()
	if code := Run(context.Background(), ExecFilters(dir), env, []string{"linkledger", "search", "--related", "ll_y"}); code != 0 {
		t.Errorf("search: exit %d", code)
	}
	if got, want := out.String(), "find from PATH: --related ll_y\n"; got != want {
		t.Errorf("a filter missing from dir comes from PATH: %q, want %q", got, want)
	}
}

// TestExecFiltersMissing: a filter found nowhere is a fatal error that
// says how to install it.
func TestExecFiltersMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: os.Getenv, Getwd: os.Getwd}
	code := Run(context.Background(), ExecFilters(t.TempDir()), env, []string{"linkledger", "find", "x"})
	if code != cli.ExitFatal {
		t.Errorf("exit %d, want %d", code, cli.ExitFatal)
	}
	if !strings.Contains(errb.String(), "ll-find not found") || !strings.Contains(errb.String(), "install") {
		t.Errorf("stderr %q", errb.String())
	}
}
