package inprocess

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
)

// TestInProcessVerbs: the front command runs with the filters compiled in,
// with no ll-* binary anywhere: save, then find what was saved.
func TestInProcessVerbs(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	db := filepath.Join(t.TempDir(), "ll.db")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
			if k == "LINKLEDGER_DB" {
				return db
			}
			return os.Getenv(k)
		}, Getwd: os.Getwd}
		code := linkledger.Run(context.Background(), Filters(), env, append([]string{"linkledger"}, args...))
		if errb.Len() > 0 {
			t.Logf("stderr: %s", errb.String())
		}
		return code, out.String()
	}
	if code, out := run("save", "https://example.com/inproc", "--note", "walrus migration notes"); code != 0 || !strings.Contains(out, `"new":true`) {
		t.Fatalf("save: %d %s", code, out)
	}
	code, out := run("find", "walrus", "-r", "--jq", ".canonical_url")
	if code != 0 || strings.TrimSpace(out) != "https://example.com/inproc" {
		t.Fatalf("find: %d %q", code, out)
	}
}

// TestFiltersMatchExecFilters: the in-process filters and the ones the
// linkledger binary runs as processes are the same set.
func TestFiltersMatchExecFilters(t *testing.T) {
	var got []string
	for name := range Filters() {
		got = append(got, name)
	}
	want := append([]string{}, linkledger.FilterNames...)
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("in-process filters %v, exec filters %v", got, want)
	}
}

// TestInProcessNames: a filter run in process for a verb speaks of the
// verb, in its per-record diagnostics and in its usage errors.
func TestInProcessNames(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	db := filepath.Join(t.TempDir(), "ll.db")
	run := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
			if k == "LINKLEDGER_DB" {
				return db
			}
			return os.Getenv(k)
		}, Getwd: os.Getwd}
		code := linkledger.Run(context.Background(), Filters(), env, append([]string{"linkledger"}, args...))
		return code, errb.String()
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"save", "ftp://example.com/f"}, cli.ExitPartial, "linkledger save: argument 1: "},
		{[]string{"save", "--agent-cap", "9", "https://example.com/a"}, cli.ExitUsage, "linkledger save: --agent-cap 9: want 3..7\nhint: run 'linkledger save --help' for usage\n"},
		{[]string{"find", "--limit", "x"}, cli.ExitUsage, "linkledger find: --limit: want a whole number, got \"x\"\n"},
		{[]string{"stale", "--older-than", "soon"}, cli.ExitUsage, "linkledger stale: find: --older-than"},
	}
	for _, c := range cases {
		code, stderr := run(c.args...)
		if code != c.code || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q...", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestForwardedFlagsExist: every flag worker, stale and retry pass to a
// filter is one of the filter's flags.
func TestForwardedFlagsExist(t *testing.T) {
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }, Getwd: os.Getwd}
	for filter, names := range linkledger.ForwardedFlags() {
		has := map[string]bool{}
		for _, f := range Filters()[filter](env).Flags {
			for _, n := range f.Names() {
				has[n] = true
			}
		}
		for _, n := range names {
			if !has[n] {
				t.Errorf("%s has no --%s, which the pipeline verbs pass to it", filter, n)
			}
		}
	}
}
