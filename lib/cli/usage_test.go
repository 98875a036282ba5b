package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	ucli "github.com/urfave/cli/v3"
)

// testCommand is a prepared command with one flag of each type.
func testCommand(stderr *bytes.Buffer) *ucli.Command {
	cmd := &ucli.Command{
		Name: "ll-test",
		Flags: []ucli.Flag{
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}},
			&ucli.FloatFlag{Name: "confidence"},
			&ucli.DurationFlag{Name: "timeout", Value: time.Second},
			&ucli.BoolFlag{Name: "keep-body"},
			&ucli.StringFlag{Name: "note"},
		},
		Action: func(context.Context, *ucli.Command) error { return nil },
	}
	Prepare(cmd, Env{Stdout: &bytes.Buffer{}, Stderr: stderr, Getenv: func(string) string { return "" }})
	return cmd
}

// TestUsageErrors: every flag type's bad value, a missing value and an
// unknown flag are said in the user's terms, exit 2.
func TestUsageErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "abc"}, "ll-test: --limit: want a whole number, got \"abc\"\nhint: run 'll-test --help' for usage\n"},
		{[]string{"-n", "1.5"}, "ll-test: -n: want a whole number, got \"1.5\"\nhint: run 'll-test --help' for usage\n"},
		{[]string{"--confidence=high"}, "ll-test: --confidence: want a number, got \"high\"\nhint: run 'll-test --help' for usage\n"},
		{[]string{"--timeout", "5"}, "ll-test: --timeout: want a duration such as 500ms, 30s, 5m or 2h, got \"5\"\nhint: run 'll-test --help' for usage\n"},
		{[]string{"--keep-body=maybe"}, "ll-test: --keep-body: want true or false, got \"maybe\"\nhint: run 'll-test --help' for usage\n"},
		{[]string{"--note"}, "ll-test: --note: needs a value\nhint: run 'll-test --help' for usage\n"},
		{[]string{"--limt", "3"}, "ll-test: unknown flag --limt\nhint: did you mean --limit?\n"},
		{[]string{"--zzzzzz"}, "ll-test: unknown flag --zzzzzz\nhint: run 'll-test --help' for usage\n"},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		cmd := testCommand(&stderr)
		code := Report(cmd.Name, &stderr, cmd.Run(context.Background(), append([]string{"ll-test"}, c.args...)))
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", c.args, code, ExitUsage)
		}
		if got := stderr.String(); got != c.want {
			t.Errorf("%v:\n got %q\nwant %q", c.args, got, c.want)
		}
	}
}

// TestDisplayName: a filter run for a verb of the front command speaks of
// the verb in its usage line, examples and errors.
func TestDisplayName(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cmd := &ucli.Command{Name: "ll-x", UsageText: "ll-x [options] URL", Description: "EXAMPLES:\n   ll-x https://example.com | ll-y",
		Action: func(context.Context, *ucli.Command) error { return Usage("--n 0: want 1..9") }}
	Prepare(cmd, Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
		if k == DisplayNameEnv {
			return "linkledger x"
		}
		return ""
	}})
	Report(cmd.Name, &stderr, cmd.Run(context.Background(), []string{"ll-x", "--help"}))
	for _, want := range []string{"linkledger x [options] URL", "   linkledger x https://example.com | ll-y"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, stdout.String())
		}
	}
	stderr.Reset()
	Report(cmd.Name, &stderr, cmd.Run(context.Background(), []string{"ll-x"}))
	if got, want := stderr.String(), "linkledger x: --n 0: want 1..9\nhint: run 'linkledger x --help' for usage\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"save", "search", "find", "annotate", "status", "stale", "limit", "max-attempts", "max-bytes"}
	for typed, want := range map[string]string{
		"serch": "search", "anotate": "annotate", "statsu": "status", "limt": "limit",
		"max-atempts": "max-attempts", "sav": "save", "xyzzy": "", "q": "",
	} {
		if got := Suggest(typed, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", typed, got, want)
		}
	}
}

// TestReportHint: an error with its own hint prints that hint.
func TestReportHint(t *testing.T) {
	var b bytes.Buffer
	code := Report("linkledger status", &b, &ExitError{Code: ExitUsage, Err: WithHint(errors.New(`no item "x" in a.db`), "find it with: linkledger find WORDS")})
	if code != ExitUsage || b.String() != "linkledger status: no item \"x\" in a.db\nhint: find it with: linkledger find WORDS\n" {
		t.Errorf("%d %q", code, b.String())
	}
}
