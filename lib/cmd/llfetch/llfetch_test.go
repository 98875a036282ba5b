package llfetch

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
)

func runCmd(t *testing.T, env cli.Env, args ...string) int {
	t.Helper()
	cmd := Command(env)
	err := cmd.Run(context.Background(), append([]string{"ll-fetch"}, args...))
	return cli.Report("ll-fetch", env.Stderr, err)
}

func testEnv(t *testing.T, dir string) (cli.Env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return cli.Env{
		Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		Getenv: func(string) string { return "" },
		Getwd:  func() (string, error) { return dir, nil },
	}, &stdout, &stderr
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--concurrency", "0"}, {"--per-host", "0"}, {"--max-attempts", "0"}, {"--timeout", "0s"},
		{"--connect-timeout", "-1s"}, {"--host-interval", "-1ms"}, {"--base-backoff-ms", "0"}, {"--max-bytes", "0"},
		{"--jq", ".["},
	} {
		env, stdout, stderr := testEnv(t, dir)
		if code := runCmd(t, env, append(args, "x.html")...); code != cli.ExitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, cli.ExitUsage)
		}
		if !strings.Contains(stderr.String(), args[0]) || stdout.Len() > 0 {
			t.Errorf("%v: stderr %q does not name the flag, or stdout %q not empty", args, stderr, stdout)
		}
	}
}

// TestTerminalOmitsBodies uses /dev/null as stdout: a character device, so
// it counts as a terminal. Bodies must be left out and the hint printed once.
func TestTerminalOmitsBodies(t *testing.T) {
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer devnull.Close()
	if !cli.IsTerminal(devnull) {
		t.Skipf("%s is not a character device here", os.DevNull)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.html", "b.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("hello"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, _, stderr := testEnv(t, dir)
	env.Stdout = devnull
	if code := runCmd(t, env, "a.html", "b.txt"); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	hint := "ll-fetch: stdout is a terminal: bodies omitted (pipe into ll-parse or use --jq)\n"
	if stderr.String() != hint {
		t.Errorf("stderr = %q, want the hint once: %q", stderr, hint)
	}

	// With --jq the user asked for what they see: no hint.
	env, _, stderr = testEnv(t, dir)
	env.Stdout = devnull
	if code := runCmd(t, env, "--jq", ".body", "a.html"); code != 0 || stderr.Len() != 0 {
		t.Errorf("--jq: exit %d, stderr %q", code, stderr)
	}
}

func TestPipeKeepsBodies(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	env, stdout, stderr := testEnv(t, dir)
	if code := runCmd(t, env, "a.txt"); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout.String(), `"body":"hello"`) || stderr.Len() != 0 {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
}
