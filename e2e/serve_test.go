package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/mcp"
)

// startServe starts `linkledger serve --addr 127.0.0.1:0 ARGS` and returns
// its base URL (its first line on stdout); it is stopped (SIGINT) when
// the test ends, and its stderr shown if the test failed.
func startServe(t *testing.T, dir string, args ...string) string {
	t.Helper()
	u, _ := startServeEnv(t, dir, nil, args...)
	return u
}

// startServeEnv is startServe with env added to the server's environment;
// stop stops it at once (Ctrl-C, and a wait for it to exit) rather than
// when the test ends.
func startServeEnv(t *testing.T, dir string, env []string, args ...string) (u string, stop func()) {
	t.Helper()
	bin, err := exec.LookPath("linkledger")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(mcpEnv(dir), env...)
	cmd.Dir = dir
	logf, err := os.CreateTemp(dir, "serve-stderr-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("linkledger serve after Ctrl-C: %v", err)
				}
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Errorf("linkledger serve did not stop within 20s of Ctrl-C")
			}
			logf.Close()
			if t.Failed() {
				if b, err := os.ReadFile(logf.Name()); err == nil && len(b) > 0 {
					t.Logf("linkledger serve stderr:\n%s", b)
				}
			}
		})
	}
	t.Cleanup(stop)
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
	}()
	select {
	case u, ok := <-line:
		if !ok || !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("first line of linkledger serve: %q", u)
		}
		return u, stop
	case <-time.After(30 * time.Second):
		t.Fatal("linkledger serve printed no URL in 30s")
	}
	return "", stop
}

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP connects the SDK's streamable HTTP client to url/mcp with
// token.
func connectHTTP(t *testing.T, url, token string) (*sdk.ClientSession, error) {
	t.Helper()
	tr := &sdk.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "remote e2e", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { cs.Close() })
	}
	return cs, err
}

// lastWord is the token `linkledger token add` printed.
func lastWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// TestServe: linkledger serve through the real binary, with tokens made by
// linkledger token add, and the SDK's streamable HTTP client on the other
// side: a write token saves (its background worker ingests the page from
// the loopback test server), annotates, finds and briefs; the
// annotation's actor is the token's, whatever the call said; a read
// token cannot write; no token, a wrong one and a revoked one are refused
// (401), and nothing they sent is written.
func TestServe(t *testing.T) {
	srv := newTestServer()
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	w := lastWord(run(t, dir, "linkledger", "token", "add", "agent:build-box", "--scope", "write", "--db", db))
	r := lastWord(run(t, dir, "linkledger", "token", "add", "human:phone", "--scope", "read", "--db", db))
	if !strings.HasPrefix(w, "llt_") || !strings.HasPrefix(r, "llt_") {
		t.Fatalf("token add printed %q and %q", w, r)
	}
	if fi, err := os.Stat(db); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("ledger mode after token add: %v %v", fi.Mode(), err)
	}
	url := startServe(t, dir, "--db", db)

	cs, err := connectHTTP(t, url, w)
	if err != nil {
		t.Fatal(err)
	}
	schemas := outputSchemas(t, cs)
	var saved mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html", "note": "for the island essay", "actor": "agent:someone-else", "wait": 20}, &saved)
	if saved.Item.Status != "parsed" {
		t.Fatalf("save with wait: %+v", saved.Item)
	}
	id := saved.Item.ID
	call(t, cs, schemas, "annotate", map[string]any{"item": id, "type": "note", "text": "checked on the map", "actor": "human"}, &saved)
	var found mcp.FindOutput
	call(t, cs, schemas, "find", map[string]any{"query": "quokka island"}, &found)
	if len(found.Items) == 0 || found.Items[0].ID != id {
		t.Fatalf("find: %+v", found)
	}
	var br mcp.BriefOutput
	res := call(t, cs, schemas, "brief", map[string]any{"query": "quokka island"}, &br)
	if !strings.Contains(text(res), id) {
		t.Errorf("brief does not name %s:\n%s", id, text(res))
	}
	shown := run(t, dir, "linkledger", "show", id, "--db", db)
	var rec struct {
		Annotations []struct{ Actor, Text string }
	}
	if err := json.Unmarshal([]byte(shown), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Annotations) != 2 {
		t.Fatalf("annotations: %+v", rec.Annotations)
	}
	for _, a := range rec.Annotations {
		if a.Actor != "agent:build-box" {
			t.Errorf("annotation %q by %s, want agent:build-box (the token's)", a.Text, a.Actor)
		}
	}

	// a read token finds, and cannot save or annotate
	rs, err := connectHTTP(t, url, r)
	if err != nil {
		t.Fatal(err)
	}
	call(t, rs, schemas, "find", map[string]any{"query": "quokka"}, &found)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"save", map[string]any{"url": srv.URL + "/lighthouse.html"}},
		{"annotate", map[string]any{"item": id, "type": "note", "text": "from the phone"}},
		{"tag", map[string]any{"item": id, "add": []string{"x"}}},
	} {
		if msg := callErr(t, rs, c.tool, c.args); !strings.Contains(msg, "forbidden: ") || !strings.Contains(msg, "needs write") {
			t.Errorf("%s with a read token: %q", c.tool, msg)
		}
	}

	// no token, a wrong one, a revoked one: refused before any call
	if _, err := connectHTTP(t, url, ""); err == nil {
		t.Error("connected without a token")
	}
	if _, err := connectHTTP(t, url, "llt_"+strings.Repeat("x", 43)); err == nil {
		t.Error("connected with a wrong token")
	}
	run(t, dir, "linkledger", "token", "revoke", "agent:build-box", "--db", db)
	if err := cs.Ping(context.Background(), nil); err == nil {
		t.Error("the revoked token's session still answered")
	}
	if _, err := connectHTTP(t, url, w); err == nil {
		t.Error("connected with a revoked token")
	}
	for _, tok := range []string{"", "llt_wrong", w} {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":{"url":"`+srv.URL+`/lighthouse.html"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %.8q: HTTP %d, want 401", tok, res.StatusCode)
		}
	}
	// the one item saved with the write token, and nothing else
	all := strings.TrimSpace(run(t, dir, "linkledger", "find", "--db", db, "--limit", "50"))
	if n := strings.Count(all, "\n") + 1; n != 1 || strings.Contains(all, "lighthouse") || !strings.Contains(all, id) {
		t.Errorf("items after refused writes (%d):\n%s", n, all)
	}
}
