package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/linkledger/inprocess"
	"github.com/linkledger/linkledger/lib/remote"
)

// The test identity: the X-Test-Token header names a token of the table.
var testTokens = map[string][2]string{
	"w-secret": {"agent:laptop", "write"},
	"r-secret": {"agent:phone", "read"},
	"h-secret": {"human:phone", "write"}, // writes as human
	"x-secret": {"robot", "write"},       // not a token name
}

func identity(r *http.Request) (string, string, bool) {
	secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return "", "", false
	}
	t, ok := testTokens[secret]
	return t[0], t[1], ok
}

type fixture struct {
	db  string
	srv *httptest.Server
}

// newFixture is a real ledger file with two saved links, served on
// loopback by the handler running the front command in process.
func newFixture(t testing.TB, o remote.Options) *fixture {
	t.Helper()
	f := &fixture{db: filepath.Join(t.TempDir(), "ll.db")}
	for _, args := range [][]string{
		{"save", "https://example.com/quokka", "--note", "quokkas smile at visitors", "--tags", "animals"},
		{"save", "https://example.com/lighthouse", "--note", "a lighthouse with a fresnel lens, quokka island"},
	} {
		if code, _, stderr := f.local(t, false, args...); code != 0 {
			t.Fatalf("seed %v: exit %d: %s", args, code, stderr)
		}
	}
	o.DB = f.db
	o.Run = func(ctx context.Context, env cli.Env, args []string) int {
		return linkledger.Run(ctx, inprocess.Filters(), env, args)
	}
	o.Identity = identity
	f.srv = httptest.NewServer(remote.Handler(o))
	t.Cleanup(f.srv.Close)
	return f
}

// run runs the front command in process with vars as its environment.
func run(t testing.TB, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return vars[k] }, Getwd: os.Getwd}
	code := linkledger.Run(context.Background(), inprocess.Filters(), env, append([]string{"linkledger"}, args...))
	return code, out.String(), errb.String()
}

func (f *fixture) local(t testing.TB, _ bool, args ...string) (int, string, string) {
	return run(t, map[string]string{"LINKLEDGER_DB": f.db}, args...)
}

func (f *fixture) remote(t testing.TB, token string, args ...string) (int, string, string) {
	return run(t, map[string]string{remote.EnvURL: f.srv.URL + "/", remote.EnvToken: token}, args...)
}

// TestSameAsLocal: the remote verbs write the same bytes, the same
// diagnostics and the same exit code as the local ones on the same
// ledger, errors included.
func TestSameAsLocal(t *testing.T) {
	f := newFixture(t, remote.Options{})
	cases := [][]string{
		{"find", "quokka"},
		{"search", "quokka", "--limit", "1", "--tags", "animals"},
		{"find", "--", "fresnel", "lens"},
		{"find", "quokka", "-n", "1", "-t", "animals", "-q"},
		{"find", "-n"},
		{"find", "nothing-matches-this", "-e"},
		{"brief", "quokka", "--max-tokens", "300"},
		{"brief", "quokka", "--format", "md"},
		{"show", "https://example.com/quokka"},
		{"status", "https://example.com/lighthouse"},
		{"show", "https://example.com/missing"},
		{"find", "--limit", "nope", "q"},
		{"status"},
		{"related", "https://example.com/quokka", "--limit", "3"},
	}
	for _, args := range cases {
		lc, lo, le := f.local(t, false, args...)
		rc, ro, re := f.remote(t, "r-secret", args...)
		if lc != rc || lo != ro || le != re {
			t.Errorf("%v:\nlocal  exit %d, stdout %q, stderr %q\nremote exit %d, stdout %q, stderr %q", args, lc, lo, le, rc, ro, re)
		}
		if lo == "" && le == "" && lc == 0 {
			t.Errorf("%v: no output at all: the case shows nothing", args)
		}
	}
}

// TestTerminalForm: a client at a terminal gets the form for a person,
// as --format human gives it locally.
func TestTerminalForm(t *testing.T) {
	f := newFixture(t, remote.Options{})
	_, want, _ := f.local(t, false, "find", "quokka", "--format", "human")
	body, _ := json.Marshal(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true})
	resp := post(t, f.srv.URL+remote.RunPath, "r-secret", body)
	if resp.status != 200 || string(resp.run.Stdout) != want || strings.HasPrefix(want, "{") {
		t.Fatalf("terminal form: %d %q; want %q", resp.status, resp.run.Stdout, want)
	}
	// the client's width reaches the command (the wrapping itself, of
	// snippets, is shown by the e2e script h32c_remote_cli under a pty)
	_, narrow, _ := run(t, map[string]string{"LINKLEDGER_DB": f.db, cli.WidthEnv: "40"}, "find", "quokka", "--format", "human")
	body, _ = json.Marshal(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true, Width: 40})
	resp = post(t, f.srv.URL+remote.RunPath, "r-secret", body)
	if string(resp.run.Stdout) != narrow {
		t.Errorf("width 40: %q; want %q", resp.run.Stdout, narrow)
	}
}

// TestWritesByToken: save and annotate through the server go into its
// ledger with the token's name as the actor; another --actor is refused.
func TestWritesByToken(t *testing.T) {
	f := newFixture(t, remote.Options{})
	if code, out, stderr := f.remote(t, "w-secret", "save", "https://example.com/wombat", "--note", "wombats dig burrows"); code != 0 || !strings.Contains(out, `"new":true`) {
		t.Fatalf("remote save: exit %d %s %s", code, out, stderr)
	}
	if code, _, stderr := f.remote(t, "w-secret", "annotate", "https://example.com/wombat", "--note", "burrows are cube-shaped"); code != 0 {
		t.Fatalf("remote annotate: exit %d %s", code, stderr)
	}
	code, out, stderr := f.local(t, false, "show", "https://example.com/wombat")
	if code != 0 {
		t.Fatalf("local show: %d %s", code, stderr)
	}
	var item struct {
		Annotations []struct{ Text, Actor string } `json:"annotations"`
	}
	if err := json.Unmarshal([]byte(out), &item); err != nil {
		t.Fatal(err, out)
	}
	if len(item.Annotations) != 2 {
		t.Fatalf("annotations: %+v", item.Annotations)
	}
	for _, a := range item.Annotations {
		if a.Actor != "agent:laptop" {
			t.Errorf("annotation %q by %q; want the token's name agent:laptop", a.Text, a.Actor)
		}
	}
	if code, _, stderr := f.remote(t, "w-secret", "tag", "https://example.com/wombat", "--add", "burrowers"); code != 0 {
		t.Fatalf("remote tag: exit %d %s", code, stderr)
	}
	if _, out, _ := f.local(t, false, "show", "https://example.com/wombat"); !strings.Contains(out, `"tag":"burrowers","actor":"agent:laptop"`) {
		t.Errorf("the tag is not by agent:laptop: %s", out)
	}
	code, _, stderr = f.remote(t, "w-secret", "annotate", "https://example.com/wombat", "--note", "x", "--actor", "human")
	if code != cli.ExitUsage || !strings.Contains(stderr, `--actor "human": this token's writes are by agent:laptop`) {
		t.Errorf("--actor human through an agent's token: exit %d %s", code, stderr)
	}
	// the token's own name is no conflict
	if code, _, stderr := f.remote(t, "w-secret", "annotate", "https://example.com/wombat", "--note", "y", "--actor=agent:laptop"); code != 0 {
		t.Errorf("--actor with the token's name: exit %d %s", code, stderr)
	}
	// a token whose name is no actor's cannot write
	code, _, stderr = f.remote(t, "x-secret", "save", "https://example.com/x")
	if code != cli.ExitFatal || !strings.Contains(stderr, "token robot cannot write") {
		t.Errorf("token robot saving: exit %d %s", code, stderr)
	}
	// human:DEVICE writes as human (linkledger serve's rule)
	if code, _, stderr := f.remote(t, "h-secret", "annotate", "https://example.com/wombat", "--note", "seen on the phone"); code != 0 {
		t.Fatalf("human:phone annotating: exit %d %s", code, stderr)
	}
	_, out, _ = f.local(t, false, "show", "https://example.com/wombat")
	if !strings.Contains(out, `"text":"seen on the phone","actor":"human"`) {
		t.Errorf("human:phone's note is not by human: %s", out)
	}
}

// TestRefusals: what the server does not run, and that it wrote nothing.
func TestRefusals(t *testing.T) {
	f := newFixture(t, remote.Options{})
	_, before, _ := f.local(t, false, "find", "--all-matches", "--limit", "100", "--pending")
	cases := []struct {
		token string
		args  []string
		code  int
		say   string
	}{
		{"r-secret", []string{"save", "https://example.com/new"}, cli.ExitFatal, "token agent:phone has scope read: save writes and needs scope write (403)"},
		{"r-secret", []string{"annotate", "https://example.com/quokka", "--note", "n"}, cli.ExitFatal, "needs scope write"},
		{"bad", []string{"find", "q"}, cli.ExitFatal, "refused LINKLEDGER_TOKEN (401"},
		{"w-secret", []string{"save", "/etc/passwd"}, cli.ExitUsage, `"/etc/passwd": not a web link`},
		{"w-secret", []string{"save", "file:///etc/passwd"}, cli.ExitUsage, "not a web link"},
		{"w-secret", []string{"save", "example.com/x"}, cli.ExitUsage, "not a web link"},
		{"w-secret", []string{"save"}, cli.ExitUsage, "takes its links as arguments"},
		{"r-secret", []string{"brief", "--max-tokens", "100"}, cli.ExitUsage, "a remote brief takes its topic as arguments"},
		{"w-secret", []string{"find", "--db", "/tmp/other.db", "q"}, cli.ExitUsage, "--db: LINKLEDGER_URL is set"},
		{"w-secret", []string{"find", "--queries", "/etc/passwd"}, cli.ExitUsage, "--queries: names a file"},
		{"w-secret", []string{"show", "--rules=/etc/passwd", "https://example.com/quokka"}, cli.ExitUsage, "--rules: names a file"},
		{"w-secret", []string{"find", "q", "--jq", ".title"}, cli.ExitUsage, "--jq: a remote find runs no jq program"},
		{"w-secret", []string{"find", "--pending", "--claim"}, cli.ExitUsage, "--claim: not taken by a remote find"},
		{"w-secret", []string{"show", "/etc/passwd"}, cli.ExitUsage, "names an item by id or web link"},
		{"w-secret", []string{"worker"}, cli.ExitUsage, "worker works on a local ledger file only"},
		{"w-secret", []string{"import", "x.html"}, cli.ExitUsage, "import works on a local ledger file only"},
	}
	for _, c := range cases {
		code, out, stderr := f.remote(t, c.token, c.args...)
		if code != c.code || !strings.Contains(stderr, c.say) || out != "" {
			t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want exit %d saying %q", c.token, c.args, code, out, stderr, c.code, c.say)
		}
	}
	if _, after, _ := f.local(t, false, "find", "--all-matches", "--limit", "100", "--pending"); after != before {
		t.Errorf("the refusals changed the ledger:\n%s\n%s", before, after)
	}
}

type answer struct {
	status int
	body   string
	run    remote.Response
}

func post(t testing.TB, url, token string, body []byte) answer {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, body: string(data)}
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(data, &a.run); err != nil {
			t.Fatalf("%s: %v", data, err)
		}
	}
	return a
}

// TestHostileRequests: requests no client of ours sends, straight to the
// handler.
func TestHostileRequests(t *testing.T) {
	f := newFixture(t, remote.Options{MaxBody: 64 << 10})
	u := f.srv.URL + remote.RunPath
	mk := func(verb string, args ...string) []byte {
		b, _ := json.Marshal(remote.Request{Verb: verb, Args: args})
		return b
	}
	many := make([]string, 300)
	for i := range many {
		many[i] = "q"
	}
	cases := []struct {
		name   string
		token  string
		body   []byte
		status int
		code   int
		say    string
	}{
		{"no token", "", mk("find", "q"), 401, 0, "no valid token"},
		{"oversized body", "w-secret", mk("find", strings.Repeat("q", 100<<10)), 413, 0, "request over 65536 bytes"},
		{"too many args", "w-secret", mk("find", many...), 413, 0, "300 arguments"},
		{"unknown field", "w-secret", []byte(`{"verb":"find","args":["q"],"db":"/tmp/x"}`), 400, 0, "unknown field"},
		{"not json", "w-secret", []byte(`verb=find`), 400, 0, "bad request"},
		{"unknown token", "admin-less", mk("find", "q"), 401, 0, "no valid token"},
		{"verb not on the list", "w-secret", mk("delete", "ll_0123456789abcdef"), 404, 0, `delete\" does not run on a server`},
		{"export", "w-secret", mk("export"), 404, 0, "does not run on a server"},
		{"db smuggled", "w-secret", mk("find", "--db=/tmp/other.db", "q"), 200, cli.ExitUsage, "--db: LINKLEDGER_URL is set"},
		{"db short form", "w-secret", mk("find", "-db=/tmp/other.db", "q"), 200, cli.ExitUsage, "--db:"},
		{"value not joined", "w-secret", mk("find", "--limit", "--db=/x"), 200, cli.ExitUsage, "the server takes a flag's value as --limit=VALUE"},
		{"bool with a value", "w-secret", mk("find", "--archived=/etc/passwd", "q"), 200, cli.ExitUsage, "want --archived"},
		{"actor forged", "w-secret", mk("save", "--actor=human", "https://example.com/f"), 200, cli.ExitUsage, "this token's writes are by agent:laptop"},
		{"file link", "w-secret", mk("save", "file:///etc/passwd"), 200, cli.ExitUsage, "not a web link"},
		{"credentials in link", "w-secret", mk("save", "https://user:pw@example.com/"), 200, cli.ExitUsage, "not a web link"},
	}
	for _, c := range cases {
		a := post(t, u, c.token, c.body)
		got := a.body
		if a.status == 200 {
			got = string(a.run.Stderr)
		}
		if a.status != c.status || a.run.ExitCode != c.code || !strings.Contains(got, c.say) {
			t.Errorf("%s: %d exit %d %q; want %d exit %d saying %q", c.name, a.status, a.run.ExitCode, got, c.status, c.code, c.say)
		}
	}
	// a GET, another content type, another path
	resp, err := http.Get(u)
	if err != nil || resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", resp.StatusCode, err)
	}
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(string(mk("find", "q"))))
	req.Header.Set("Authorization", "Bearer w-secret")
	req.Header.Set("Content-Type", "text/plain")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("text/plain: %v %v", resp.StatusCode, err)
	}
	// nothing of the above was written
	if code, _, _ := f.local(t, false, "show", "https://example.com/f"); code != cli.ExitUsage {
		t.Errorf("the forged-actor save was stored")
	}
}

// TestNoteThatLooksLikeAFlag: a value that starts with "-" stays a value.
func TestNoteThatLooksLikeAFlag(t *testing.T) {
	f := newFixture(t, remote.Options{})
	if code, _, stderr := f.remote(t, "w-secret", "annotate", "https://example.com/quokka", "--note", "--db=/tmp/x.db"); code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	_, out, _ := f.local(t, false, "show", "https://example.com/quokka")
	if !strings.Contains(out, `"text":"--db=/tmp/x.db"`) {
		t.Errorf("the note is not the text given: %s", out)
	}
}

// TestBounds: output over the bound is cut and said (exit 1); a verb
// over its time is stopped (exit 1).
func TestBounds(t *testing.T) {
	f := newFixture(t, remote.Options{MaxStdout: 100})
	code, out, stderr := f.remote(t, "r-secret", "find", "quokka")
	if code != cli.ExitFatal || len(out) > 100 || !strings.Contains(stderr, "the server cut the output") {
		t.Errorf("cut output: exit %d, %d bytes, %s", code, len(out), stderr)
	}
	slow := newFixture(t, remote.Options{Timeout: time.Nanosecond})
	code, _, stderr = slow.remote(t, "r-secret", "find", "quokka")
	if code != cli.ExitFatal || !strings.Contains(stderr, "stopped by the server after 1ns") {
		t.Errorf("timeout: exit %d %s", code, stderr)
	}
}

// TestClientRules: unreachable server, plain http beyond loopback,
// credentials in the URL, no token, --db with LINKLEDGER_URL.
func TestClientRules(t *testing.T) {
	f := newFixture(t, remote.Options{})
	gone := httptest.NewServer(http.NotFoundHandler())
	goneURL := gone.URL
	gone.Close()
	cases := []struct {
		vars map[string]string
		args []string
		code int
		say  string
	}{
		{map[string]string{remote.EnvURL: goneURL, remote.EnvToken: "r-secret"}, []string{"find", "q"}, cli.ExitFatal, "cannot reach the server at " + goneURL},
		{map[string]string{remote.EnvURL: "http://ledger.example:8080/", remote.EnvToken: "r-secret"}, []string{"find", "q"}, cli.ExitUsage, "plain http to a host other than loopback"},
		{map[string]string{remote.EnvURL: f.srv.URL + "/?token=r-secret", remote.EnvToken: "r-secret"}, []string{"find", "q"}, cli.ExitUsage, "no credentials, query or fragment"},
		{map[string]string{remote.EnvURL: "ftp://x/", remote.EnvToken: "r-secret"}, []string{"find", "q"}, cli.ExitUsage, "want an http or https URL"},
		{map[string]string{remote.EnvURL: f.srv.URL}, []string{"find", "q"}, cli.ExitUsage, "LINKLEDGER_TOKEN is not"},
		{map[string]string{remote.EnvURL: f.srv.URL, remote.EnvToken: "r-secret"}, []string{"show", "--db", f.db, "https://example.com/quokka"}, cli.ExitUsage, "--db: LINKLEDGER_URL is set"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.vars, c.args...)
		if code != c.code || !strings.Contains(stderr, c.say) {
			t.Errorf("%v %v: exit %d %q; want %d saying %q", c.vars, c.args, code, stderr, c.code, c.say)
		}
	}
	for _, c := range []struct {
		raw   string
		allow bool
		ok    bool
	}{
		{"https://ledger.example/", false, true},
		{"http://127.0.0.1:8080/", false, true},
		{"http://[::1]:8080/", false, true},
		{"http://localhost:8080", false, true},
		{"http://box.tailnet.example:8080/", false, false},
		{"http://box.tailnet.example:8080/", true, true},
		{"https://u:p@ledger.example/", false, false},
	} {
		if _, err := remote.CheckURL(c.raw, c.allow); (err == nil) != c.ok {
			t.Errorf("CheckURL(%q, %v): %v", c.raw, c.allow, err)
		}
	}
}

// TestConcurrency: runs beyond Concurrency wait, then get 503 with
// Retry-After; a slot freed serves the next request.
func TestConcurrency(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	h := remote.Handler(remote.Options{
		DB: filepath.Join(t.TempDir(), "ll.db"),
		Run: func(ctx context.Context, env cli.Env, args []string) int {
			started <- struct{}{}
			<-release
			return 0
		},
		Identity:    identity,
		Concurrency: 1,
		QueueWait:   200 * time.Millisecond,
	})
	srv := httptest.NewServer(h)
	defer srv.Close()
	body, _ := json.Marshal(remote.Request{Verb: "find", Args: []string{"q"}})
	first := make(chan answer, 1)
	go func() { first <- post(t, srv.URL+remote.RunPath, "r-secret", body) }()
	<-started
	req, _ := http.NewRequest(http.MethodPost, srv.URL+remote.RunPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer r-secret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("second request while the slot is taken: %d, Retry-After %q; want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	close(release)
	if a := <-first; a.status != 200 {
		t.Errorf("first request: %d", a.status)
	}
	if a := post(t, srv.URL+remote.RunPath, "r-secret", body); a.status != 200 {
		t.Errorf("after the slot is free: %d %s", a.status, a.body)
	}
}

// TestColorAndHints: the server renders colour only when the client asks
// (Request.Color), whatever the server's own NO_COLOR, TERM and
// CLICOLOR_FORCE, and writes the "hint:" lines only for a client whose
// stderr is a terminal (Request.StderrTerminal); both as the same command
// gives them locally.
func TestColorAndHints(t *testing.T) {
	serverEnv := map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1", "TERM": "dumb"}
	f := newFixture(t, remote.Options{Getenv: func(k string) string { return serverEnv[k] }})
	ask := func(req remote.Request) remote.Response {
		t.Helper()
		body, _ := json.Marshal(req)
		a := post(t, f.srv.URL+remote.RunPath, "r-secret", body)
		if a.status != 200 || a.run.ExitCode != 0 {
			t.Fatalf("%+v: %d %s", req, a.status, a.body)
		}
		return a.run
	}
	_, colour, _ := run(t, map[string]string{"LINKLEDGER_DB": f.db, "CLICOLOR_FORCE": "1"}, "find", "quokka", "--format", "human")
	if !strings.Contains(colour, "\x1b[") {
		t.Fatalf("the local human form with CLICOLOR_FORCE=1 has no colour: %q", colour)
	}
	if got := ask(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true, Color: true}); string(got.Stdout) != colour {
		t.Errorf("color asked: %q; want the local colour form %q", got.Stdout, colour)
	}
	got := ask(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true})
	if bytes.Contains(got.Stdout, []byte("\x1b")) || len(got.Stdout) == 0 {
		t.Errorf("color not asked (the server's own CLICOLOR_FORCE=1): %q", got.Stdout)
	}
	// hints: local, with stderr "a terminal", there is one
	_, _, localErr := run(t, map[string]string{"LINKLEDGER_DB": f.db, cli.StderrTerminalEnv: "1"}, "find", "quokka", "--format", "human")
	if !strings.Contains(localErr, "hint: ") {
		t.Fatalf("no hint locally: %q", localErr)
	}
	if got := ask(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true, StderrTerminal: true}); string(got.Stderr) != localErr {
		t.Errorf("stderr a terminal: %q; want the local %q", got.Stderr, localErr)
	}
	if got := ask(remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true}); bytes.Contains(got.Stderr, []byte("hint:")) {
		t.Errorf("stderr not a terminal: %q has a hint", got.Stderr)
	}
	// a pipe's records: no colour, no hint, whatever is asked
	got = ask(remote.Request{Verb: "find", Args: []string{"quokka"}, Color: true, StderrTerminal: true})
	if bytes.Contains(got.Stdout, []byte("\x1b")) || !bytes.HasPrefix(got.Stdout, []byte("{")) || bytes.Contains(got.Stderr, []byte("hint:")) {
		t.Errorf("records: stdout %q stderr %q", got.Stdout, got.Stderr)
	}
}

// TestOlderServer: a server that knows no color nor stderr_terminal
// refuses them as unknown fields, as the handler before them did; the
// client asks again without them and gets that server's plain form.
func TestOlderServer(t *testing.T) {
	f := newFixture(t, remote.Options{})
	type oldRequest struct {
		Verb     string   `json:"verb"`
		Args     []string `json:"args"`
		Terminal bool     `json:"terminal,omitempty"`
		Width    int      `json:"width,omitempty"`
	}
	asked := 0
	old := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked++
		body, _ := io.ReadAll(r.Body)
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&oldRequest{}); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "bad request: " + err.Error()})
			return
		}
		r2, _ := http.NewRequest(r.Method, f.srv.URL+r.URL.Path, bytes.NewReader(body))
		r2.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(r2)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	defer old.Close()
	base, _ := remote.CheckURL(old.URL+"/", false)
	c := &remote.Client{Base: base, Token: "r-secret"}
	resp, err := c.Run(context.Background(), remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true, Color: true, StderrTerminal: true})
	if err != nil || resp.ExitCode != 0 || asked != 2 {
		t.Fatalf("older server: %v, exit %d, %d requests; want the answer of a second request", err, resp.ExitCode, asked)
	}
	if bytes.Contains(resp.Stdout, []byte("\x1b")) || !bytes.Contains(resp.Stdout, []byte("quokka")) {
		t.Errorf("older server's answer: %q", resp.Stdout)
	}
	// without the new fields: one request
	asked = 0
	if _, err = c.Run(context.Background(), remote.Request{Verb: "find", Args: []string{"quokka"}, Terminal: true}); err != nil || asked != 1 {
		t.Errorf("a request the old server takes: %v after %d requests", err, asked)
	}
}
