package serve

// Hostile tests of the served handler: a real loopback listener (Serve),
// a real ledger file, and a client of our own over raw HTTP (JSON-RPC
// requests, as any MCP client sends them). Nothing leaves loopback.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
)

// syncBuf is the server's stderr.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) logf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(&s.b, format+"\n", args...)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type testServer struct {
	t    *testing.T
	l    *ledger.Ledger
	url  string
	log  *syncBuf
	opts Options
}

// start serves a new ledger on a loopback port until the test ends.
func start(t *testing.T, edit func(*Options)) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuf{}
	opt := Options{Ledger: l, MCP: mcp.Options{Version: "test"}, Logf: log.logf}
	if edit != nil {
		edit(&opt)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, New(opt), nil) }()
	t.Cleanup(func() {
		cancel()
		<-done
		l.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", log)
		}
	})
	return &testServer{t: t, l: l, url: "http://" + ln.Addr().String(), log: log, opts: opt}
}

func (s *testServer) token(name, scope string) string {
	s.t.Helper()
	sec, err := s.l.AddToken(context.Background(), name, scope)
	if err != nil {
		s.t.Fatal(err)
	}
	return sec
}

// post sends body to path with the headers given ("Name: value").
func (s *testServer) post(path, body string, headers ...string) (int, string) {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// toolResult is a tools/call answer.
type toolResult struct {
	Result struct {
		IsError           bool `json:"isError"`
		Content           []struct{ Text string }
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Result.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

var rpcID int

// call calls tool with args using token; the HTTP status must be 200.
func (s *testServer) call(token, tool string, args map[string]any) toolResult {
	s.t.Helper()
	rpcID++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	code, body := s.post("/mcp", string(b), "Authorization: Bearer "+token)
	if code != http.StatusOK {
		s.t.Fatalf("%s: HTTP %d: %s", tool, code, body)
	}
	var r toolResult
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		s.t.Fatalf("%s: %v: %s", tool, err, body)
	}
	return r
}

func (s *testServer) items() int {
	s.t.Helper()
	c, err := s.l.CountItems(context.Background())
	if err != nil {
		s.t.Fatal(err)
	}
	return c.Items
}

// annotations are the actors of item's annotations.
func (s *testServer) annotations(item string) []string {
	s.t.Helper()
	rec, err := s.l.Show(context.Background(), item, ledger.ShowOptions{})
	if err != nil {
		s.t.Fatal(err)
	}
	var actors []string
	for _, a := range rec.Annotations {
		actors = append(actors, a.Actor+":"+a.Text)
	}
	return actors
}

const saveArgs = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":{"url":"https://example.com/a","note":"n"}}}`

// TestRefused: no token, a wrong, malformed, doubled or revoked one: 401,
// nothing written, the token never in the log.
func TestRefused(t *testing.T) {
	s := start(t, nil)
	good := s.token("agent:box", "write")
	gone := s.token("agent:old", "write")
	if err := s.l.RevokeToken(context.Background(), "agent:old"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		headers []string
	}{
		{"no token", nil},
		{"wrong token", []string{"Authorization: Bearer llt_" + strings.Repeat("A", 43)}},
		{"good token, one letter off", []string{"Authorization: Bearer " + good[:len(good)-1] + "x"}},
		{"revoked token", []string{"Authorization: Bearer " + gone}},
		{"basic auth", []string{"Authorization: Basic " + good}},
		{"no scheme", []string{"Authorization: " + good}},
		{"two headers", []string{"Authorization: Bearer " + good, "Authorization: Bearer " + good}},
		{"huge header", []string{"Authorization: Bearer " + strings.Repeat("x", 10000)}},
		{"token in another header", []string{"X-Token: " + good}},
	} {
		code, body := s.post("/mcp", saveArgs, c.headers...)
		if code != http.StatusUnauthorized {
			t.Errorf("%s: HTTP %d, want 401: %s", c.name, code, body)
		}
	}
	if n := s.items(); n != 0 {
		t.Errorf("%d items written by refused requests", n)
	}
	log := s.log.String()
	if strings.Count(log, "refused POST /mcp") != 9 {
		t.Errorf("want 9 refusals logged:\n%s", log)
	}
	for _, sec := range []string{good, gone, good[len(ledger.TokenPrefix):]} {
		if strings.Contains(log, sec) || strings.Contains(log, sec[:20]) {
			t.Errorf("the log holds a token:\n%s", log)
		}
	}
	// the good token works (the refusals were not for want of a server)
	if r := s.call(good, "save", map[string]any{"url": "https://example.com/a"}); r.Result.IsError || s.items() != 1 {
		t.Fatalf("save with a good token: %s", r.text())
	}
}

// TestRevokeNextRequest: a token revoked while the server runs fails on
// its next request (nothing is cached).
func TestRevokeNextRequest(t *testing.T) {
	s := start(t, nil)
	tok := s.token("agent:box", "write")
	if r := s.call(tok, "status", nil); r.Result.IsError {
		t.Fatalf("status: %s", r.text())
	}
	if err := s.l.RevokeToken(context.Background(), "agent:box"); err != nil {
		t.Fatal(err)
	}
	if code, body := s.post("/mcp", saveArgs, "Authorization: Bearer "+tok); code != http.StatusUnauthorized {
		t.Fatalf("after revoke: HTTP %d: %s", code, body)
	}
	if s.items() != 0 {
		t.Error("a revoked token wrote")
	}
}

// TestReadScope: a read token may call every read-only tool, and every
// other tool (from the server's own list, so a tool added later is
// covered) is refused with a forbidden tool error, nothing written.
func TestReadScope(t *testing.T) {
	s := start(t, nil)
	w := s.token("agent:writer", "write")
	r := s.token("human:phone", "read")
	saved := s.call(w, "save", map[string]any{"url": "https://example.com/a", "note": "first"})
	if saved.Result.IsError {
		t.Fatal(saved.text())
	}
	var out struct{ Item struct{ ID string } }
	json.Unmarshal(saved.Result.StructuredContent, &out)
	id := out.Item.ID
	code, body := s.post("/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Authorization: Bearer "+r)
	if code != http.StatusOK {
		t.Fatalf("tools/list: %d %s", code, body)
	}
	var list struct {
		Result struct {
			Tools []struct {
				Name        string
				Annotations *struct {
					ReadOnlyHint bool `json:"readOnlyHint"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Result.Tools) < 10 {
		t.Fatalf("tools/list: %v %s", err, body)
	}
	writes := 0
	// valid arguments for each tool: the scope is checked after the
	// arguments; a tool missing here gets none and, if it writes and
	// wants some, fails this test until it is added
	args := map[string]map[string]any{
		"save": {"url": "https://example.com/b"}, "annotate": {"item": id, "type": "note", "text": "x"},
		"tag": {"item": id, "add": []string{"t"}}, "pin": {"item": id, "annotation_id": 1},
		"cite": {"item": id, "task": "t"}, "pack_save": {"name": "p", "query": "x"}, "pack_refresh": {"name": "p"},
		"brief": {"query": "x"}, "show": {"item": id}, "related": {"item": id}, "pack_show": {"name": "p"},
	}
	for _, tool := range list.Result.Tools {
		res := s.call(r, tool.Name, args[tool.Name])
		ro := tool.Annotations != nil && tool.Annotations.ReadOnlyHint
		forbidden := res.Result.IsError && strings.HasPrefix(res.text(), "forbidden: ")
		if ro && forbidden {
			t.Errorf("read-only %s refused to a read token: %s", tool.Name, res.text())
		}
		if !ro {
			writes++
			if !forbidden || !strings.Contains(res.text(), "needs write") {
				t.Errorf("%s with a read token: %s", tool.Name, res.text())
			}
		}
	}
	for _, want := range []string{"save", "annotate", "tag", "pin", "cite", "pack_save", "pack_refresh"} {
		if !strings.Contains(body, `"name":"`+want+`"`) {
			t.Errorf("no tool %s listed", want)
		}
	}
	if writes < 7 {
		t.Errorf("%d tools that write, want at least 7", writes)
	}
	if n := s.items(); n != 1 {
		t.Errorf("%d items after a read token's calls, want 1", n)
	}
	if a := s.annotations(id); len(a) != 1 {
		t.Errorf("annotations after a read token's calls: %v", a)
	}
	if res := s.call(r, "find", map[string]any{}); res.Result.IsError || !strings.Contains(res.text(), id) {
		t.Errorf("find with a read token: %s", res.text())
	}
}

// TestActorIsToken: a write is by the token's actor whatever the call's
// actor says; a human:DEVICE token writes as human.
func TestActorIsToken(t *testing.T) {
	s := start(t, nil)
	box := s.token("agent:build-box", "write")
	phone := s.token("human:phone", "write")
	res := s.call(box, "save", map[string]any{"url": "https://example.com/a", "note": "saved", "actor": "agent:someone-else"})
	if res.Result.IsError {
		t.Fatal(res.text())
	}
	var out struct{ Item struct{ ID string } }
	json.Unmarshal(res.Result.StructuredContent, &out)
	for _, c := range []struct{ tok, actor, text string }{
		{box, "human", "spoofed human"},
		{box, "agent:phone", "spoofed agent"},
		{box, "not an actor", "bad actor"},
		{phone, "", "from the phone"},
	} {
		args := map[string]any{"item": out.Item.ID, "type": "note", "text": c.text}
		if c.actor != "" {
			args["actor"] = c.actor
		}
		if r := s.call(c.tok, "annotate", args); r.Result.IsError {
			t.Fatalf("annotate %q: %s", c.text, r.text())
		}
	}
	got := strings.Join(s.annotations(out.Item.ID), "|")
	want := "agent:build-box:saved|agent:build-box:spoofed human|agent:build-box:spoofed agent|agent:build-box:bad actor|human:from the phone"
	if got != want {
		t.Errorf("annotations:\n got %s\nwant %s", got, want)
	}
}

// TestTokenInURL: a token in the query is refused (400) on every path,
// even with a good header, and never logged.
func TestTokenInURL(t *testing.T) {
	s := start(t, nil)
	tok := s.token("agent:box", "write")
	for _, q := range []string{"?token=" + tok, "?access_token=" + tok, "?TOKEN=x", "?x=" + tok, "?a=1&api_key=2"} {
		for _, p := range []string{"/mcp", "/", "/anything"} {
			code, _ := s.post(p+q, saveArgs, "Authorization: Bearer "+tok)
			if code != http.StatusBadRequest {
				t.Errorf("POST %s%s: HTTP %d, want 400", p, q, code)
			}
		}
	}
	if s.items() != 0 {
		t.Error("a request with a token in its URL wrote")
	}
	if log := s.log.String(); strings.Contains(log, tok[len(ledger.TokenPrefix):len(ledger.TokenPrefix)+12]) || !strings.Contains(log, "refused a token in the URL") {
		t.Errorf("log:\n%s", log)
	}
}

// TestOversized: a body over MaxMCPBody is refused (413), declared or
// chunked, and nothing is written.
func TestOversized(t *testing.T) {
	s := start(t, nil)
	tok := s.token("agent:box", "write")
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":{"url":"https://example.com/a","note":"` + strings.Repeat("x", MaxMCPBody) + `"}}}`
	if code, _ := s.post("/mcp", big, "Authorization: Bearer "+tok); code != http.StatusRequestEntityTooLarge {
		t.Errorf("declared oversized body: HTTP %d, want 413", code)
	}
	// chunked: no Content-Length, the cap applies while reading
	req, _ := http.NewRequest(http.MethodPost, s.url+"/mcp", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("chunked oversized body: HTTP %d, want 413", res.StatusCode)
	}
	if s.items() != 0 {
		t.Error("an oversized body wrote")
	}
}

// TestCrossOrigin: a browser's cross-origin POST to /mcp is refused (403)
// with a good token; a same-origin one and a client that sends no Origin
// (every MCP client) pass.
func TestCrossOrigin(t *testing.T) {
	s := start(t, nil)
	tok := s.token("agent:box", "write")
	auth := "Authorization: Bearer " + tok
	for _, h := range [][]string{{"Origin: https://evil.example"}, {"Sec-Fetch-Site: cross-site"}, {"Origin: http://localhost:1"}} {
		if code, _ := s.post("/mcp", saveArgs, append(h, auth)...); code != http.StatusForbidden {
			t.Errorf("%v: HTTP %d, want 403", h, code)
		}
	}
	if s.items() != 0 {
		t.Error("a cross-origin request wrote")
	}
	if code, body := s.post("/mcp", saveArgs, auth, "Origin: "+s.url); code != http.StatusOK || s.items() != 1 {
		t.Errorf("same origin: HTTP %d: %s", code, body)
	}
}

// TestBadJSONRPC: malformed messages get a 400 or a JSON-RPC error, write
// nothing, and the server goes on.
func TestBadJSONRPC(t *testing.T) {
	s := start(t, nil)
	tok := s.token("agent:box", "write")
	auth := "Authorization: Bearer " + tok
	for _, body := range []string{
		"", "{", "null", "[]", "42", `{"jsonrpc":"1.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":"not an object"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":{"url":["x"]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"save","arguments":{"url":"https://example.com/a","note":` + strings.Repeat("[", 5000) + `}}}`,
		`{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`,
	} {
		code, resp := s.post("/mcp", body, auth)
		if code == http.StatusOK && !strings.Contains(resp, `"error"`) && !strings.Contains(resp, `"isError":true`) {
			t.Errorf("%.60q: HTTP 200 without an error: %s", body, resp)
		}
		if code >= 500 {
			t.Errorf("%.60q: HTTP %d: %s", body, code, resp)
		}
	}
	if s.items() != 0 {
		t.Error("a malformed message wrote")
	}
	if r := s.call(tok, "status", nil); r.Result.IsError {
		t.Errorf("status after bad messages: %s", r.text())
	}
}

// TestRateLimit: past MaxFailures bad attempts in a window, an address is
// refused (429) even with a good token; another loopback address is not;
// after the window the first may try again.
func TestRateLimit(t *testing.T) {
	var mu sync.Mutex
	now := time.Now()
	s := start(t, func(o *Options) {
		o.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	})
	tok := s.token("agent:box", "read")
	for i := 0; i < MaxFailures; i++ {
		if code, _ := s.post("/mcp", saveArgs, "Authorization: Bearer llt_wrong"); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: HTTP %d", i, code)
		}
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if code, _ := s.post("/mcp", list, "Authorization: Bearer "+tok); code != http.StatusTooManyRequests {
		t.Errorf("after %d failures: HTTP %d, want 429", MaxFailures, code)
	}
	// another loopback address (127.0.0.2) is counted on its own
	other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	req, _ := http.NewRequest(http.MethodPost, s.url+"/mcp", strings.NewReader(list))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if res, err := other.Do(req); err != nil {
		t.Logf("127.0.0.2 not usable here: %v", err)
	} else {
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("from 127.0.0.2: HTTP %d, want 200", res.StatusCode)
		}
	}
	mu.Lock()
	now = now.Add(FailWindow + time.Second)
	mu.Unlock()
	if code, _ := s.post("/mcp", list, "Authorization: Bearer "+tok); code != http.StatusOK {
		t.Errorf("after the window: HTTP %d, want 200", code)
	}
	if !strings.Contains(s.log.String(), "(10 failed in the last 1m0s)") {
		t.Errorf("log:\n%s", s.log)
	}
}

// TestFailuresBounded: a flood of failures from many addresses keeps the
// counter at most maxTracked addresses.
func TestFailuresBounded(t *testing.T) {
	f := newFailures(time.Now)
	for i := 0; i < 3*maxTracked; i++ {
		f.add(fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
	}
	if len(f.m) > maxTracked {
		t.Errorf("%d addresses tracked, want at most %d", len(f.m), maxTracked)
	}
}

// TestSlowClient: a client that never finishes its headers is cut off
// after readHeaderTimeout.
func TestSlowClient(t *testing.T) {
	old := readHeaderTimeout
	readHeaderTimeout = 300 * time.Millisecond
	t.Cleanup(func() { readHeaderTimeout = old })
	s := start(t, nil)
	c, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\n") // and nothing more
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("the server did not close the slow connection: %v", err)
	}
	if len(b) > 0 && !strings.Contains(string(b), "408") {
		t.Errorf("answer to a slow client: %q", b)
	}
}

// TestManyConnections: past maxConns open connections, the next waits
// (is not served) until one closes.
func TestManyConnections(t *testing.T) {
	old := maxConns
	maxConns = 4
	t.Cleanup(func() { maxConns = old })
	s := start(t, nil)
	tok := s.token("agent:box", "read")
	addr := strings.TrimPrefix(s.url, "http://")
	var held []net.Conn
	for i := 0; i < maxConns; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// a whole request, so each connection is surely accepted
		fmt.Fprintf(c, "GET /none HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	one := func(timeout time.Duration) error {
		cl := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		req, _ := http.NewRequest(http.MethodPost, s.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := cl.Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", res.StatusCode)
		}
		return nil
	}
	if err := one(500 * time.Millisecond); err == nil {
		t.Errorf("a request past %d open connections was served", maxConns)
	}
	held[0].Close()
	if err := one(10 * time.Second); err != nil {
		t.Errorf("after one connection closed: %v", err)
	}
}

func TestCheckAddr(t *testing.T) {
	for _, c := range []struct {
		addr           string
		tls, proxy, ok bool
	}{
		{"127.0.0.1:0", false, false, true},
		{"localhost:7475", false, false, true},
		{"[::1]:7475", false, false, true},
		{"0.0.0.0:7475", false, false, false},
		{":7475", false, false, false},
		{"192.168.1.5:7475", false, false, false},
		{"example.com:7475", false, false, false},
		{"0.0.0.0:7475", true, false, true},
		{"100.64.0.7:7475", false, true, true},
		{"127.0.0.1", false, false, false},
		{"127.0.0.1:99999", false, false, false},
	} {
		err := CheckAddr(c.addr, c.tls, c.proxy)
		if (err == nil) != c.ok {
			t.Errorf("CheckAddr(%q, tls %v, proxy %v) = %v", c.addr, c.tls, c.proxy, err)
		}
	}
}
