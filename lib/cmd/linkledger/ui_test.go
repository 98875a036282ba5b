package linkledger_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/linkledger/inprocess"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
)

// syncBuffer is a Buffer safe to read while the server writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func uiEnv(db string, stdout, stderr io.Writer) cli.Env {
	return cli.Env{Stdin: strings.NewReader(""), Stdout: stdout, Stderr: stderr, Getenv: func(k string) string {
		if k == "LINKLEDGER_DB" {
			return db
		}
		return os.Getenv(k)
	}, Getwd: os.Getwd}
}

func TestUIRefusesNonLoopback(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ll.db")
	for _, addr := range []string{"0.0.0.0:7474", ":7474", "192.168.1.5:80", "example.com:80"} {
		var out, errb bytes.Buffer
		code := linkledger.Run(context.Background(), inprocess.Filters(), uiEnv(db, &out, &errb), []string{"linkledger", "ui", "--addr", addr})
		if code != cli.ExitUsage {
			t.Errorf("--addr %s: exit %d, want 2\n%s", addr, code, errb.String())
		}
		if !strings.Contains(errb.String(), "loopback") && !strings.Contains(errb.String(), "HOST:PORT") {
			t.Errorf("--addr %s: stderr does not say why:\n%s", addr, errb.String())
		}
		if out.Len() != 0 {
			t.Errorf("--addr %s: stdout %q", addr, out.String())
		}
	}
	if _, err := os.Stat(db); err == nil {
		t.Errorf("a refused --addr created the database")
	}
}

// TestUIServesIngestsAndStops: `linkledger ui` prints its URL first, the
// token opens a session, a link saved through the add form is ingested by
// the background worker (a page of a local server), and cancelling (as
// Ctrl-C does) stops it cleanly with exit 0.
func TestUIServesIngestsAndStops(t *testing.T) {
	uiIngest(t, nil, nil)
}

// TestUIWorkerEmbeds: with an embeddings endpoint configured, the ui's
// background worker is the one of linkledger mcp (backgroundWorker): its
// passes run ll-embed before ll-index, so the endpoint is asked for the
// item's vectors.
func TestUIWorkerEmbeds(t *testing.T) {
	fake := &embedfake.Server{}
	es := httptest.NewServer(fake)
	defer es.Close()
	uiIngest(t, map[string]string{cli.EnvEmbedURL: es.URL + "/v1", cli.EnvEmbedModel: "hash-64"}, nil)
	if fake.Requests() == 0 {
		t.Error("the ui's worker ingested the item without asking the embeddings endpoint")
	}
	// the endpoint stored in the ledger (linkledger config embed), none
	// in the environment
	before := fake.Requests()
	uiIngest(t, map[string]string{cli.EnvEmbedURL: "", cli.EnvEmbedModel: ""}, func(db string) {
		var out, errb bytes.Buffer
		env := uiEnv(db, &out, &errb)
		l, err := ledger.Open(context.Background(), db, ledger.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		l.Close()
		if code := linkledger.Run(context.Background(), nil, env, []string{"linkledger", "config", "embed", "--url", es.URL + "/v1", "--model", "hash-64"}); code != 0 {
			t.Fatalf("config embed: exit %d\n%s", code, errb.String())
		}
	})
	if fake.Requests() == before {
		t.Error("the ui's worker ingested the item without asking the stored embeddings endpoint")
	}
}

// uiIngest runs `linkledger ui` with the worker (and the environment
// extra), saves a page through the app and waits for the worker to
// ingest it, then stops the app with Ctrl-C.
func uiIngest(t *testing.T, extra map[string]string, setup func(db string)) {
	t.Helper()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Worker test page</title></head><body><article><h1>Worker test page</h1>`+
			strings.Repeat(`<p>The background worker fetches and parses this paragraph so the reader can show it to a person.</p>`, 8)+`</article></body></html>`)
	}))
	defer page.Close()
	db := filepath.Join(t.TempDir(), "ll.db")
	if setup != nil {
		setup(db)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var errb syncBuffer
	codec := make(chan int, 1)
	go func() {
		env := uiEnv(db, pw, &errb)
		getenv := env.Getenv
		env.Getenv = func(k string) string {
			if v, ok := extra[k]; ok {
				return v
			}
			return getenv(k)
		}
		codec <- linkledger.Run(ctx, inprocess.Filters(), env, []string{"linkledger", "ui", "--addr", "127.0.0.1:0"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL line: %v\n%s", err, errb.String())
	}
	go io.Copy(io.Discard, pr)
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || len(u.Query().Get("token")) != 32 {
		t.Fatalf("first line %q: want http://127.0.0.1:PORT/?token=…", line)
	}
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := hc.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "<h1>Inbox</h1>") {
		t.Fatalf("opening the URL: %d\n%s", res.StatusCode, body)
	}
	base := "http://" + u.Host
	req, _ := http.NewRequest("POST", base+"/save", strings.NewReader(url.Values{"url": {page.URL + "/post"}, "tags": {"go"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if res, err = hc.Do(req); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 { // 303 followed to the inbox
		t.Fatalf("save: %d", res.StatusCode)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := hc.Get(base + "/status.json")
		if err != nil {
			t.Fatal(err)
		}
		var counts map[string]int
		err = json.NewDecoder(res.Body).Decode(&counts)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if counts["parsed"]+counts["enriched"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ingested in 30 s: %v\n%s", counts, errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-codec:
		if code != 0 {
			t.Errorf("exit %d after Ctrl-C, want 0\n%s", code, errb.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("did not stop")
	}
}

// runUI starts `linkledger ui` on db and returns its base URL, a client
// with its session, and stop, which stops it and returns its exit code.
func runUI(t *testing.T, db string) (string, *http.Client, func() int) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return runUIOn(t, db, "127.0.0.1:0", &http.Client{Jar: jar, Timeout: 10 * time.Second})
}

// runUIOn is runUI on addr, signing hc in with the printed link.
func runUIOn(t *testing.T, db, addr string, hc *http.Client) (string, *http.Client, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var errb syncBuffer
	codec := make(chan int, 1)
	go func() {
		codec <- linkledger.Run(ctx, inprocess.Filters(), uiEnv(db, pw, &errb), []string{"linkledger", "ui", "--addr", addr, "--no-worker"})
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no URL line: %v\n%s", err, errb.String())
	}
	go io.Copy(io.Discard, pr)
	u, _ := url.Parse(strings.TrimSpace(line))
	res, err := hc.Get(u.String())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	res.Body.Close()
	return "http://" + u.Host, hc, func() int { cancel(); return <-codec }
}

// TestUIBookmarkletTokenKept: the bookmarklet's token is kept next to the
// database (mode 0600), so it is the same after a restart, while the
// session token is new each run.
func TestUIBookmarkletTokenKept(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ll.db")
	bt := func() string {
		base, hc, stop := runUI(t, db)
		res, err := hc.Get(base + "/bookmarklet")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if code := stop(); code != 0 {
			t.Fatalf("exit %d", code)
		}
		_, after, ok := strings.Cut(string(body), "/capture?bt=")
		if !ok || len(after) < 32 {
			t.Fatalf("no capture token in the bookmarklet page:\n%s", body)
		}
		return after[:32]
	}
	first, second := bt(), bt()
	if first != second {
		t.Errorf("the bookmarklet token changed across restarts: %s, %s", first, second)
	}
	fi, err := os.Stat(db + ".ui-token")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	// a damaged file is replaced by a fresh token
	if err := os.WriteFile(db+".ui-token", []byte("not a token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if third := bt(); third == first || len(third) != 32 {
		t.Errorf("after damage: %q", third)
	}
}

// TestUIStaysSignedIn: a browser signed in to `linkledger ui` is still
// signed in after the server restarts on the same address (its session
// is kept in the ledger); `linkledger ui --sign-in-link` prints a link
// for that server that signs a second browser in once; a link for an
// address where nothing answers says so on stderr.
func TestUIStaysSignedIn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "ll.db")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	base, _, stop := runUIOn(t, db, addr, hc)
	if code := stop(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// restarted: the same cookie jar, without opening the new link
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := linkledger.Run(context.Background(), inprocess.Filters(), uiEnv(db, &out, &errb), append([]string{"linkledger", "ui"}, args...))
		return code, out.String(), errb.String()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	codec := make(chan int, 1)
	go func() {
		codec <- linkledger.Run(ctx, inprocess.Filters(), uiEnv(db, io.Discard, io.Discard), []string{"linkledger", "ui", "--addr", addr, "--no-worker"})
	}()
	var res *http.Response
	for i := 0; ; i++ {
		if res, err = hc.Get(base + "/"); err == nil {
			break
		}
		if i == 100 {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "<h1>Inbox</h1>") {
		t.Errorf("after a restart: %d, want the inbox\n%s", res.StatusCode, body)
	}
	// a fresh link for the running server, for another browser
	code, out, errs := run("--sign-in-link", "--addr", addr)
	link := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(link, base+"/?token=") || strings.Count(out, "\n") != 1 || errs != "" {
		t.Fatalf("--sign-in-link: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	jar2, _ := cookiejar.New(nil)
	other := &http.Client{Jar: jar2, Timeout: 10 * time.Second}
	for i, want := range []int{200, 401} {
		res, err := other.Get(link)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("the sign-in link, use %d: %d, want %d", i+1, res.StatusCode, want)
		}
		if i == 0 {
			jar2, _ = cookiejar.New(nil)
			other.Jar = jar2
		}
	}
	cancel()
	if code := <-codec; code != 0 {
		t.Errorf("exit %d", code)
	}
	// nothing answers there now: the link is printed, and stderr says so
	code, out, errs = run("--sign-in-link", "--addr", addr)
	if code != 0 || !strings.HasPrefix(out, base+"/?token=") || !strings.Contains(errs, "no linkledger ui answers on "+addr) {
		t.Errorf("--sign-in-link with no server: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, _, errs := run("--sign-in-link", "--addr", "127.0.0.1:0"); code != cli.ExitUsage || !strings.Contains(errs, "no port") {
		t.Errorf("--sign-in-link on port 0: exit %d, %s", code, errs)
	}
}
