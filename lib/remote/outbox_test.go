package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func testOutbox(t *testing.T) *Outbox {
	t.Helper()
	return &Outbox{Path: filepath.Join(t.TempDir(), "state", "linkledger", "outbox.ndjson")}
}

// TestOutboxAppendRead: entries come back in order, as queued; the file
// is 0600 in a 0700 directory and holds no token (the outbox is never
// given one).
func TestOutboxAppendRead(t *testing.T) {
	o := testOutbox(t)
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	e1, n, err := o.Append("save", []string{"https://example.com/a", "--note=x y"}, now)
	if err != nil || n != 1 {
		t.Fatalf("append: %v, %d waiting", err, n)
	}
	e2, n, err := o.Append("annotate", []string{"ll_0123456789abcdef", "--note=--db=x"}, now)
	if err != nil || n != 2 {
		t.Fatalf("append: %v, %d waiting", err, n)
	}
	if e1.ID == e2.ID || !strings.HasPrefix(e1.ID, "ob_") || len(e1.ID) != 19 {
		t.Errorf("ids %q %q", e1.ID, e2.ID)
	}
	es, bad, err := o.Read()
	if err != nil || len(bad) != 0 {
		t.Fatal(err, bad)
	}
	want := []Entry{
		{ID: e1.ID, Verb: "save", Args: []string{"https://example.com/a", "--note=x y"}, QueuedAt: "2026-11-28T12:00:00Z"},
		{ID: e2.ID, Verb: "annotate", Args: []string{"ll_0123456789abcdef", "--note=--db=x"}, QueuedAt: "2026-11-28T12:00:00Z"},
	}
	if d := cmp.Diff(want, es); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	fi, err := os.Stat(o.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v %v", fi.Mode(), err)
	}
	di, err := os.Stat(filepath.Dir(o.Path))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("directory mode: %v %v", di.Mode(), err)
	}
	// removal and failure keep the others, in order
	if err := o.Fail(e1.ID, Failure{ExitCode: 2, Message: "bad"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Remove(e2.ID); err != nil {
		t.Fatal(err)
	}
	if err := o.Remove(e2.ID); !errors.Is(err, ErrNoEntry) {
		t.Errorf("remove twice: %v", err)
	}
	es, _, _ = o.Read()
	if len(es) != 1 || es[0].ID != e1.ID || es[0].Failed == nil || es[0].Failed.Message != "bad" || Waiting(es) != 0 {
		t.Errorf("after fail and remove: %+v", es)
	}
	fi, _ = os.Stat(o.Path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten file mode %v", fi.Mode())
	}
	// a missing outbox is empty, and reading it makes no directory
	empty := &Outbox{Path: filepath.Join(t.TempDir(), "none", "outbox.ndjson")}
	if es, bad, err := empty.Read(); err != nil || len(es)+len(bad) != 0 {
		t.Errorf("missing outbox: %v %v %v", es, bad, err)
	}
	if _, err := os.Stat(filepath.Dir(empty.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reading made the directory: %v", err)
	}
}

// TestOutboxConcurrentAppends: goroutines and processes appending at once
// (each append opens and flocks the file on its own) lose and interleave
// nothing.
func TestOutboxConcurrentAppends(t *testing.T) {
	o := testOutbox(t)
	const goroutines, each, procs = 8, 25, 3
	// processes: this test binary run again as an appender
	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOutboxAppender$")
		cmd.Env = append(os.Environ(), "OUTBOX_APPENDER="+o.Path, "OUTBOX_APPENDER_N="+strconv.Itoa(each), "OUTBOX_APPENDER_TAG=p"+strconv.Itoa(p))
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := &Outbox{Path: o.Path}
			for i := 0; i < each; i++ {
				// a long argument makes a torn or interleaved write show
				long := strings.Repeat(fmt.Sprintf("g%d-%d.", g, i), 400)
				if _, _, err := mine.Append("save", []string{"https://example.com/" + long}, time.Now()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("appender process: %v", err)
		}
	}
	es, bad, err := o.Read()
	if err != nil || len(bad) != 0 {
		t.Fatalf("read: %v, bad lines %v", err, bad)
	}
	if len(es) != (goroutines+procs)*each {
		t.Fatalf("%d entries, want %d", len(es), (goroutines+procs)*each)
	}
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Args[0]] {
			t.Errorf("twice: %.40s", e.Args[0])
		}
		seen[e.Args[0]] = true
	}
	// every process's own entries are in its order
	for p := 0; p < procs; p++ {
		next := 0
		for _, e := range es {
			if strings.HasPrefix(e.Args[0], fmt.Sprintf("https://example.com/p%d-", p)) {
				if e.Args[0] != fmt.Sprintf("https://example.com/p%d-%d", p, next) {
					t.Fatalf("process %d: %s, want entry %d", p, e.Args[0], next)
				}
				next++
			}
		}
		if next != each {
			t.Errorf("process %d: %d entries", p, next)
		}
	}
}

// TestOutboxAppender is the appender process of
// TestOutboxConcurrentAppends (skipped otherwise).
func TestOutboxAppender(t *testing.T) {
	path := os.Getenv("OUTBOX_APPENDER")
	if path == "" {
		t.Skip("run by TestOutboxConcurrentAppends")
	}
	n, _ := strconv.Atoi(os.Getenv("OUTBOX_APPENDER_N"))
	o := &Outbox{Path: path}
	for i := 0; i < n; i++ {
		if _, _, err := o.Append("tag", []string{fmt.Sprintf("https://example.com/%s-%d", os.Getenv("OUTBOX_APPENDER_TAG"), i), "--add=x"}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOutboxTornLine: a last line cut short (a command killed mid-write)
// is reported, never read as an entry, does not hide the good entries,
// is not glued to the next append, and is set aside into PATH.bad (not
// lost) at the next rewrite.
func TestOutboxTornLine(t *testing.T) {
	o := testOutbox(t)
	good, _, err := o.Append("save", []string{"https://example.com/good"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	torn := `{"id":"ob_00000000000000aa","verb":"save","args":["https://exa`
	f, err := os.OpenFile(o.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(torn)
	f.Close()
	es, bad, err := o.Read()
	if err != nil || len(es) != 1 || es[0].ID != good.ID {
		t.Fatalf("entries %+v %v", es, err)
	}
	if len(bad) != 1 || !bad[0].Torn || bad[0].Line != 2 || !strings.Contains(bad[0].String(), "line 2 is torn") {
		t.Fatalf("bad lines %+v", bad)
	}
	after, n, err := o.Append("annotate", []string{"https://example.com/good", "--note=after"}, time.Now())
	if err != nil || n != 2 {
		t.Fatalf("append after a torn line: %v %d", err, n)
	}
	es, bad, _ = o.Read()
	if len(es) != 2 || es[1].ID != after.ID || len(bad) != 1 || bad[0].Torn || bad[0].Line != 2 {
		t.Fatalf("after an append: entries %+v, bad %+v", es, bad)
	}
	// a line of garbage in the middle is another bad line
	set, err := o.Update(func(es []Entry) ([]Entry, error) { return es, nil })
	if err != nil || len(set) != 1 {
		t.Fatalf("update: %v %v", set, err)
	}
	es, bad, _ = o.Read()
	if len(es) != 2 || len(bad) != 0 {
		t.Errorf("after the rewrite: %+v %+v", es, bad)
	}
	kept, err := os.ReadFile(o.Path + ".bad")
	if err != nil || string(kept) != torn+"\n" {
		t.Errorf(".bad holds %q (%v), want the torn line", kept, err)
	}
}

// TestOutboxBounds: over the bounds nothing is queued, the error says so,
// and what waits is untouched.
func TestOutboxBounds(t *testing.T) {
	o := testOutbox(t)
	o.MaxEntries = 3
	for i := 0; i < 3; i++ {
		if _, _, err := o.Append("tag", []string{fmt.Sprintf("ll_000000000000000%d", i), "--add=x"}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(o.Path)
	_, _, err := o.Append("tag", []string{"ll_0000000000000009", "--add=x"}, time.Now())
	var fe *FullError
	if !errors.As(err, &fe) || fe.Entries != 3 || !strings.Contains(err.Error(), "is full (3 entries") {
		t.Fatalf("a fourth entry: %v", err)
	}
	if after, _ := os.ReadFile(o.Path); string(after) != string(before) {
		t.Errorf("the refused append changed the file")
	}
	// bytes
	b := testOutbox(t)
	b.MaxBytes = 300
	if _, _, err := b.Append("save", []string{"https://example.com/" + strings.Repeat("a", 100)}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Append("save", []string{"https://example.com/" + strings.Repeat("b", 200)}, time.Now()); !errors.As(err, &fe) || !strings.Contains(err.Error(), "300 bytes") {
		t.Errorf("over the byte bound: %v", err)
	}
	if es, _, _ := b.Read(); len(es) != 1 {
		t.Errorf("%d entries after a refused one", len(es))
	}
	if DefaultOutboxEntries != 10000 || DefaultOutboxBytes != 16<<20 {
		t.Errorf("the documented bounds changed")
	}
}

// fakeRun is a server that runs nothing: it records each request and
// answers as answer says.
type fakeRun struct {
	mu     sync.Mutex
	got    []Request
	answer func(Request) (int, Response)
}

func (f *fakeRun) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	f.mu.Lock()
	f.got = append(f.got, req)
	f.mu.Unlock()
	status, resp := f.answer(req)
	w.Header().Set("Content-Type", "application/json")
	if status != 200 {
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":"status %d"}`, status)
		return
	}
	_ = json.NewEncoder(w).Encode(resp)
}

func clientFor(t *testing.T, raw string) *Client {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &Client{Base: u, Token: "tok"}
}

// TestPush: entries are replayed in order; one answered exit 0 goes, one
// answered with an error is kept as failed with the server's words; the
// push stops at a 503 (the rest waits) and at a refused token.
func TestPush(t *testing.T) {
	f := &fakeRun{answer: func(r Request) (int, Response) {
		switch r.Args[0] {
		case "https://example.com/bad":
			return 200, Response{ExitCode: 2, Stderr: []byte("linkledger annotate: no such item\nhint: try this\n")}
		case "https://example.com/busy":
			return 503, Response{}
		}
		return 200, Response{Stdout: []byte("{}\n")}
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	o := testOutbox(t)
	for _, u := range []string{"https://example.com/1", "https://example.com/bad", "https://example.com/2", "https://example.com/busy", "https://example.com/3"} {
		if _, _, err := o.Append("annotate", []string{u, "--note=n"}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var outcomes []string
	sum, err := Push(context.Background(), o, clientFor(t, srv.URL), true, func(oc Outcome) {
		outcomes = append(outcomes, oc.Entry.Args[0]+" "+oc.Result)
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"https://example.com/1 replayed", "https://example.com/bad failed", "https://example.com/2 replayed"}, outcomes); d != "" {
		t.Errorf("outcomes (-want +got):\n%s", d)
	}
	if sum.Replayed != 2 || sum.Failed != 1 || sum.Waiting != 2 || !Queueable(sum.Stopped) {
		t.Errorf("summary %+v", sum)
	}
	es, _, _ := o.Read()
	var left []string
	for _, e := range es {
		s := e.Args[0]
		if e.Failed != nil {
			s += " failed: " + e.Failed.Message
		}
		left = append(left, s)
	}
	want := []string{"https://example.com/bad failed: linkledger annotate: no such item", "https://example.com/busy", "https://example.com/3"}
	if d := cmp.Diff(want, left); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	// a refused token, a server error: the push stops and fails nothing
	for _, status := range []int{401, 403, 500, 429} {
		f.answer = func(Request) (int, Response) { return status, Response{} }
		sum, err = Push(context.Background(), o, clientFor(t, srv.URL), true, nil)
		var se *ServerError
		if err != nil || sum.Failed != 0 || sum.Waiting != 2 || !errors.As(sum.Stopped, &se) || se.Status != status {
			t.Errorf("%d: %+v %v", status, sum, err)
		}
	}
	// a failed entry is never sent again
	f.mu.Lock()
	f.got = nil
	f.mu.Unlock()
	f.answer = func(Request) (int, Response) { return 200, Response{} }
	sum, err = Push(context.Background(), o, clientFor(t, srv.URL), true, nil)
	if err != nil || sum.Replayed != 2 || sum.Waiting != 0 {
		t.Errorf("push: %+v %v", sum, err)
	}
	for _, r := range f.got {
		if r.Args[0] == "https://example.com/bad" {
			t.Errorf("a failed entry was sent again")
		}
	}
	// a request refused as such (413) fails
	if _, _, err := o.Append("save", []string{"https://example.com/big"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.answer = func(Request) (int, Response) { return 413, Response{} }
	sum, err = Push(context.Background(), o, clientFor(t, srv.URL), true, nil)
	if err != nil || sum.Failed != 1 || sum.Waiting != 0 || sum.Stopped != nil {
		t.Errorf("413: %+v %v", sum, err)
	}
}

// TestPushBusy: while another command pushes the outbox, a push that does
// not wait does nothing.
func TestPushBusy(t *testing.T) {
	o := testOutbox(t)
	if _, _, err := o.Append("save", []string{"https://example.com/a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockFile(o.Path+".push", true)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	sum, err := Push(context.Background(), o, clientFor(t, "http://127.0.0.1:1/"), false, nil)
	if err != nil || !sum.Busy || sum.Replayed != 0 {
		t.Errorf("busy push: %+v %v", sum, err)
	}
}

// TestQueueable: what queues a write and what does not, against loopback
// listeners this test starts.
func TestQueueable(t *testing.T) {
	ctx := context.Background()
	// refused: a port that was listening and is closed
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()
	_, err = clientFor(t, closed).Run(ctx, Request{Verb: "save"})
	if !Queueable(err) {
		t.Errorf("connection refused: %v, want queueable", err)
	}
	// a reset before any answer: a listener that closes what it accepts
	rl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	go func() {
		for {
			c, err := rl.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 1024))
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.SetLinger(0) // RST
			}
			c.Close()
		}
	}()
	_, err = clientFor(t, "http://"+rl.Addr().String()+"/").Run(ctx, Request{Verb: "save"})
	if !Queueable(err) {
		t.Errorf("reset before an answer: %v, want queueable", err)
	}
	// answers: 502/503/504 queue; 500, 400 and a run with any exit code do not
	for status, want := range map[int]bool{502: true, 503: true, 504: true, 500: false, 400: false, 401: false, 413: false} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			w.WriteHeader(status)
		}))
		_, err := clientFor(t, srv.URL).Run(ctx, Request{Verb: "save"})
		if Queueable(err) != want {
			t.Errorf("%d: queueable %v, want %v (%v)", status, Queueable(err), want, err)
		}
		srv.Close()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(Response{ExitCode: 1})
	}))
	defer srv.Close()
	if _, err := clientFor(t, srv.URL).Run(ctx, Request{Verb: "save"}); err != nil || Queueable(err) {
		t.Errorf("an answered run: %v", err)
	}
	// a wait for the answer that timed out: the server may be running it
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second)
	}))
	defer slow.Close()
	c := clientFor(t, slow.URL)
	c.HTTP = &http.Client{Timeout: 300 * time.Millisecond}
	if _, err := c.Run(ctx, Request{Verb: "save"}); err == nil || Queueable(err) {
		t.Errorf("timed out waiting for the answer: %v, want not queueable", err)
	}
	// a certificate refused is not "the server is down"
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer tlsSrv.Close()
	if _, err := clientFor(t, tlsSrv.URL).Run(ctx, Request{Verb: "save"}); err == nil || Queueable(err) {
		t.Errorf("an unknown certificate: %v, want not queueable", err)
	}
}

// TestOutboxConcurrentBound: appends racing for the last places of a
// bounded outbox: exactly the bound gets in (the count and the write are
// one step under the lock), and every refused one is told.
func TestOutboxConcurrentBound(t *testing.T) {
	o := testOutbox(t)
	o.MaxEntries = 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok, full := 0, 0
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := &Outbox{Path: o.Path, MaxEntries: o.MaxEntries}
			for i := 0; i < 10; i++ {
				_, _, err := mine.Append("save", []string{"https://example.com/" + strings.Repeat(fmt.Sprintf("g%d-%d.", g, i), 300)}, time.Now())
				var fe *FullError
				mu.Lock()
				switch {
				case err == nil:
					ok++
				case errors.As(err, &fe):
					full++
				default:
					t.Error(err)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	es, bad, err := o.Read()
	if err != nil || len(bad) != 0 || len(es) != 40 || ok != 40 || full != 40 {
		t.Errorf("%d entries (%v, %d bad), %d accepted, %d refused; want 40, 40, 40", len(es), err, len(bad), ok, full)
	}
}

// TestOutboxOversize: a file grown past twice the byte bound (not by
// linkledger) is refused whole: neither read in part nor rewritten, so a
// push or drop cannot lose its tail.
func TestOutboxOversize(t *testing.T) {
	o := testOutbox(t)
	o.MaxBytes = 300
	if _, _, err := o.Append("save", []string{"https://example.com/a"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(o.Path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat("x", 700) + "\n")
	f.Close()
	before, _ := os.ReadFile(o.Path)
	if _, _, err := o.Read(); err == nil || !strings.Contains(err.Error(), "over 600 bytes") {
		t.Errorf("read of an oversize outbox: %v", err)
	}
	if _, err := o.Update(func(es []Entry) ([]Entry, error) { return nil, nil }); err == nil {
		t.Errorf("an oversize outbox was rewritten")
	}
	if after, _ := os.ReadFile(o.Path); string(after) != string(before) {
		t.Errorf("the oversize outbox changed")
	}
}
