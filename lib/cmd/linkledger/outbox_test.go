package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
)

// TestOutboxPath: one file per server and token under the state
// directory, never naming the token; LINKLEDGER_OUTBOX wins.
func TestOutboxPath(t *testing.T) {
	base, _ := url.Parse("https://ledger.example:8443/")
	env := func(vars map[string]string) cli.Env { return cli.Env{Getenv: func(k string) string { return vars[k] }} }
	p, err := outboxPath(env(map[string]string{"HOME": "/home/u"}), base, "llt_s3cret")
	if err != nil || !strings.HasPrefix(p, "/home/u/.local/state/linkledger/outbox-ledger.example_8443-") || !strings.HasSuffix(p, ".ndjson") || strings.Contains(p, "s3cret") {
		t.Errorf("HOME: %q %v", p, err)
	}
	q, _ := outboxPath(env(map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/state"}), base, "llt_s3cret")
	if filepath.Dir(q) != "/state/linkledger" || filepath.Base(q) != filepath.Base(p) {
		t.Errorf("XDG_STATE_HOME: %q (HOME gave %q)", q, p)
	}
	// the trailing slash is the same server; another token another file
	noSlash, _ := url.Parse("https://ledger.example:8443")
	if r, _ := outboxPath(env(map[string]string{"HOME": "/home/u"}), noSlash, "llt_s3cret"); r != p {
		t.Errorf("without the slash: %q, want %q", r, p)
	}
	if r, _ := outboxPath(env(map[string]string{"HOME": "/home/u"}), base, "llt_other"); r == p {
		t.Errorf("another token shares the file")
	}
	if r, _ := outboxPath(env(map[string]string{"HOME": "/home/u", envOutbox: "/x/ob.ndjson"}), base, "t"); r != "/x/ob.ndjson" {
		t.Errorf("LINKLEDGER_OUTBOX: %q", r)
	}
	if _, err := outboxPath(env(map[string]string{}), base, "t"); err == nil {
		t.Errorf("no HOME: no error")
	}
}

// TestRemoteQueue: the front command queues a write on a 502 from a
// proxy (exit 5, nothing on stdout), not on a 500 or on a read verb; the
// next command that reaches the server sends the queued write first,
// and its own stdout is only its own.
func TestRemoteQueue(t *testing.T) {
	var mu sync.Mutex
	status := http.StatusBadGateway
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req remote.Request
		_ = json.NewDecoder(r.Body).Decode(&req)
		mu.Lock()
		defer mu.Unlock()
		if status != 200 {
			w.WriteHeader(status)
			return
		}
		got = append(got, req.Verb+" "+strings.Join(req.Args, " "))
		_ = json.NewEncoder(w).Encode(remote.Response{Stdout: []byte(`{"verb":"` + req.Verb + `"}` + "\n")})
	}))
	defer srv.Close()
	dir := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		vars := map[string]string{remote.EnvURL: srv.URL + "/", remote.EnvToken: "s3cret", "HOME": dir}
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Getwd: os.Getwd}
		code := Run(context.Background(), nil, env, append([]string{"linkledger"}, args...))
		return code, out.String(), errb.String()
	}
	code, out, errs := run("annotate", "https://example.com/a", "--note", "offline words")
	if code != cli.ExitQueued || out != "" || !strings.Contains(errs, "linkledger annotate: server unreachable (502 Bad Gateway): queued in the outbox as ob_") || !strings.Contains(errs, ", 1 waiting;") {
		t.Fatalf("502: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := run("find", "q"); code != cli.ExitFatal || strings.Contains(errs, "queued") {
		t.Errorf("a read verb on 502: exit %d %s", code, errs)
	}
	status = http.StatusInternalServerError
	if code, _, errs := run("save", "https://example.com/b"); code != cli.ExitFatal || strings.Contains(errs, "queued") || !strings.Contains(errs, "answered 500") {
		t.Errorf("500: exit %d %s", code, errs)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".local/state/linkledger/outbox-*.ndjson"))
	if len(matches) != 1 {
		t.Fatalf("outbox files: %v", matches)
	}
	data, _ := os.ReadFile(matches[0])
	if n := strings.Count(string(data), "\n"); n != 1 || strings.Contains(string(data), "s3cret") || !strings.Contains(string(data), `"args":["https://example.com/a","--note=offline words"]`) {
		t.Errorf("the outbox holds %q", data)
	}
	status = 200
	code, out, errs = run("find", "q")
	if code != 0 || out != `{"verb":"find"}`+"\n" || !strings.Contains(errs, "linkledger find: outbox: replayed 1, failed 0, 0 waiting") {
		t.Errorf("back online: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	want := []string{"annotate https://example.com/a --note=offline words", "find q"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the server got %q, want %q", got, want)
	}
}
