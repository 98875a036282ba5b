package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
)

// TestRemoteHostileServer: what a server sends reaches a terminal as
// lines, never as control sequences, while a pipe gets its bytes as they
// came; the token goes in the Authorization header only; a redirect is
// not followed.
func TestRemoteHostileServer(t *testing.T) {
	evil := "\x1b]0;pwned\x07title\x1b[2J \u202eevil\n\tnext\n"
	var gotAuth, gotQuery string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/moved/api/v1/run" {
			t.Errorf("the redirect was followed")
		}
		if r.URL.Path == "/redirect/api/v1/run" {
			http.Redirect(w, r, "/moved/api/v1/run", http.StatusTemporaryRedirect)
			return
		}
		gotAuth, gotQuery = r.Header.Get("Authorization"), r.URL.RawQuery
		_, _ = io.Copy(io.Discard, r.Body)
		_ = json.NewEncoder(w).Encode(remote.Response{Stdout: []byte(evil), Stderr: []byte(evil), ExitCode: 0})
	}))
	defer srv.Close()
	run := func(base string, terminal bool) (int, string, string) {
		old := isTerminal
		isTerminal = func(io.Writer) bool { return terminal }
		defer func() { isTerminal = old }()
		var out, errb bytes.Buffer
		vars := map[string]string{remote.EnvURL: base, remote.EnvToken: "s3cret"}
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Getwd: os.Getwd}
		code := Run(context.Background(), nil, env, []string{"linkledger", "find", "q"})
		return code, out.String(), errb.String()
	}
	code, out, errs := run(srv.URL+"/", true)
	want := " ]0;pwned title [2J  evil\n\tnext\n"
	if code != 0 || out != want || errs != want {
		t.Errorf("terminal: exit %d, stdout %q, stderr %q; want %q", code, out, errs, want)
	}
	if gotAuth != "Bearer s3cret" || strings.Contains(gotQuery, "s3cret") {
		t.Errorf("token: header %q, query %q", gotAuth, gotQuery)
	}
	if _, out, _ := run(srv.URL+"/", false); out != evil {
		t.Errorf("a pipe: %q; want the bytes as they came", out)
	}
	code, _, errs = run(srv.URL+"/redirect/", false)
	if code != cli.ExitFatal || !strings.Contains(errs, "answered 307") {
		t.Errorf("redirect: exit %d %s", code, errs)
	}
}

// TestRemoteColor: the client asks for colour by the local rule
// (cli.ColorWanted, its own environment and terminal) and says whether
// its stderr is a terminal; at a terminal the colours of the answer
// arrive while its other escapes are blanked.
func TestRemoteColor(t *testing.T) {
	answer := "\x1b[1;36mquokka\x1b[0m \x1b]8;;http://e.example\x07link\x1b[1A\x1b[31;1m!\x1b[m\n"
	var got remote.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = remote.Request{}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			t.Error(err)
		}
		_ = json.NewEncoder(w).Encode(remote.Response{Stdout: []byte(answer), Stderr: []byte("hint: \x1b[2Jnext\n")})
	}))
	defer srv.Close()
	run := func(terminal bool, vars map[string]string) (string, string) {
		old := isTerminal
		isTerminal = func(io.Writer) bool { return terminal }
		defer func() { isTerminal = old }()
		var out, errb bytes.Buffer
		vars[remote.EnvURL], vars[remote.EnvToken] = srv.URL+"/", "s3cret"
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Getwd: os.Getwd}
		if code := Run(context.Background(), nil, env, []string{"linkledger", "find", "q"}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String(), errb.String()
	}
	cases := []struct {
		terminal  bool
		vars      map[string]string
		color, tt bool
	}{
		{true, map[string]string{}, true, true},
		{true, map[string]string{"NO_COLOR": "1"}, false, true},
		{true, map[string]string{"TERM": "dumb"}, false, true},
		{true, map[string]string{"CLICOLOR": "0"}, false, true},
		{false, map[string]string{}, false, false},
		{false, map[string]string{"CLICOLOR_FORCE": "1"}, true, false},
	}
	for _, c := range cases {
		run(c.terminal, c.vars)
		if got.Color != c.color || got.StderrTerminal != c.tt || got.Terminal != c.terminal {
			t.Errorf("terminal %v, env %v: sent color %v, stderr_terminal %v, terminal %v; want %v, %v, %v",
				c.terminal, c.vars, got.Color, got.StderrTerminal, got.Terminal, c.color, c.tt, c.terminal)
		}
	}
	out, errs := run(true, map[string]string{})
	if want := "\x1b[1;36mquokka\x1b[0m  ]8;;http://e.example link [1A\x1b[31;1m!\x1b[m\n"; out != want {
		t.Errorf("terminal: %q; want %q", out, want)
	}
	if want := "hint:  [2Jnext\n"; errs != want {
		t.Errorf("terminal stderr: %q; want %q", errs, want)
	}
}
