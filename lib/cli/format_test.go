package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

func TestHumanForm(t *testing.T) {
	cases := []struct {
		format            string
		jq, envelope, tty bool
		want              bool
		usage             bool
	}{
		{"", false, false, true, true, false},
		{"auto", false, false, false, false, false},
		{"auto", true, false, true, false, false}, // --jq means records at a terminal too
		{"", false, true, true, false, false},     // --json too
		{"ndjson", false, false, true, false, false},
		{"json", false, false, true, false, false},
		{"human", false, false, false, true, false},
		{"md", false, false, false, true, false},
		{"human", true, false, true, false, true},
		{"md", false, true, true, false, true},
		{"yaml", false, false, true, false, true},
	}
	for _, c := range cases {
		got, err := humanForm(c.format, c.jq, c.envelope, c.tty)
		var ee *ExitError
		if isUsage := errors.As(err, &ee) && ee.Code == ExitUsage; isUsage != c.usage || got != c.want {
			t.Errorf("humanForm(%q, jq=%v, json=%v, tty=%v) = %v, %v; want %v, usage error %v", c.format, c.jq, c.envelope, c.tty, got, err, c.want, c.usage)
		}
	}
}

func TestColorWanted(t *testing.T) {
	cases := []struct {
		env  map[string]string
		tty  bool
		want bool
	}{
		{nil, true, true},
		{nil, false, false},
		{map[string]string{"NO_COLOR": "1"}, true, false},
		{map[string]string{"TERM": "dumb"}, true, false},
		{map[string]string{"CLICOLOR": "0"}, true, false},
		{map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, false, false},
	}
	for _, c := range cases {
		if got := ColorWanted(func(k string) string { return c.env[k] }, c.tty); got != c.want {
			t.Errorf("ColorWanted(%v, tty=%v) = %v, want %v", c.env, c.tty, got, c.want)
		}
	}
}

// The human form writes the view, not JSON; Progress (disabled off a
// terminal) is never written to stdout.
func TestOutputHuman(t *testing.T) {
	var out bytes.Buffer
	o, err := NewOutput(&out, "", false)
	if err != nil {
		t.Fatal(err)
	}
	o.Human(false)
	if !o.IsHuman() {
		t.Fatal("IsHuman false after Human")
	}
	o.Emit(&record.Record{ID: "ll_a", CanonicalURL: "https://a.test/", Title: "A", Index: &record.IndexResult{Status: "parsed", Chunks: 1}})
	o.Emit(&record.Record{URL: "https://b.test/", Error: &record.Error{Stage: "fetch", Code: "timeout", Message: "slow"}})
	if err := o.Finish(); !errors.Is(err, Partial) {
		t.Errorf("finish: %v, want Partial", err)
	}
	want := "parsed  A · 1 chunk · https://a.test/\nfailed  https://b.test/  fetch: timeout: slow\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	if o.Written() != 2 || strings.Contains(out.String(), "{") {
		t.Errorf("written %d: %q", o.Written(), out.String())
	}
}

// A progress line that is showing is erased before a record is written.
func TestProgressClearedBeforeRecord(t *testing.T) {
	var term bytes.Buffer // stdout and stderr on one terminal
	o, _ := NewOutput(&term, "", false)
	p := NewProgress("ll-x", &term, true)
	o.progress = p
	p.Tick(false)
	o.Emit(&record.Record{ID: "a"})
	p.Done()
	got := term.String()
	want := "\r\x1b[Kll-x: 1 done, 0 failed, "
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got %q, want prefix %q", got, want)
	}
	if !strings.Contains(got, "/s\r\x1b[K{\"id\":\"a\"}\n") {
		t.Errorf("record not after a cleared line: %q", got)
	}
}
