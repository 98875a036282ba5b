// Command loadserve puts a running `linkledger serve` under load (make
// bench, docs/benchmarks.md "Served ledger under load"): W clients save
// new links and S clients search, each over its own MCP session on
// streamable HTTP with a bearer token, for a fixed time. Afterwards every
// save the server acknowledged is looked up again; one missing is a
// failure (exit 1), as is any call that failed.
//
// It first times a floor in the same run: the same number of clients
// posting a JSON-RPC-sized body to a loopback HTTP handler that answers
// at once, so the served figures can be read as ratios that travel
// between machines.
//
//	loadserve -url BASE -token TOKEN [-writers 8] [-searchers 8] [-duration 60s]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	base := flag.String("url", "", "the server's base URL (the first line `linkledger serve` prints)")
	token := flag.String("token", os.Getenv("LOADSERVE_TOKEN"), "a write token (default $LOADSERVE_TOKEN)")
	writers := flag.Int("writers", 8, "clients saving links")
	searchers := flag.Int("searchers", 8, "clients searching")
	dur := flag.Duration("duration", time.Minute, "how long the load runs")
	ackedFile := flag.String("acked", "", "also write each acknowledged save's URL to `FILE` as it comes (for a check after the server was killed)")
	noVerify := flag.Bool("no-verify", false, "do not look the saves up again afterwards (the server may be gone)")
	flag.Parse()
	if *ackedFile != "" {
		f, err := os.Create(*ackedFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadserve:", err)
			os.Exit(2)
		}
		defer f.Close()
		ackedOut = f
	}
	verifyAfter = !*noVerify
	if *base == "" || *token == "" {
		fmt.Fprintln(os.Stderr, "loadserve: need -url and -token")
		os.Exit(2)
	}
	if err := run(strings.TrimRight(*base, "/"), *token, *writers, *searchers, *dur); err != nil {
		fmt.Fprintln(os.Stderr, "loadserve:", err)
		if ackedOut != nil {
			ackedOut.Close()
		}
		os.Exit(1)
	}
}

// ackedOut, when set, gets each acknowledged URL as a line, at once;
// verifyAfter looks them up again after the run.
var (
	ackedOut    *os.File
	verifyAfter = true
)

// bearer adds the token to every request the SDK's transport makes.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens one MCP session with the server.
func connect(ctx context.Context, base, token, name string) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}, Timeout: 60 * time.Second}
	c := sdk.NewClient(&sdk.Implementation{Name: name, Version: "1"}, nil)
	return c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: base + "/mcp", HTTPClient: hc}, nil)
}

// timings collects one operation's latencies.
type timings struct {
	mu   sync.Mutex
	d    []time.Duration
	errs int
	last error
}

func (t *timings) add(d time.Duration, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.errs++
		t.last = err
		return
	}
	t.d = append(t.d, d)
}

func (t *timings) quantile(q float64) time.Duration {
	if len(t.d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), t.d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(q*float64(len(s)-1))]
}

func (t *timings) line(label string, floor *timings) string {
	p50, p95 := t.quantile(0.5), t.quantile(0.95)
	out := fmt.Sprintf("%-34s n=%-6d p50=%-9s p95=%-9s errors=%d", label, len(t.d), round(p50), round(p95), t.errs)
	if floor != nil && floor.quantile(0.5) > 0 {
		out += fmt.Sprintf("  ratio to floor p50 %.1fx p95 %.1fx",
			float64(p50)/float64(floor.quantile(0.5)), float64(p95)/float64(floor.quantile(0.95)))
	}
	return out
}

func round(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(10 * time.Microsecond).String()
}

// callErr is a call's error, or the tool's own error result as one.
func callErr(res *sdk.CallToolResult, err error) error {
	if err != nil {
		return err
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return errors.New("tool error: " + b.String())
	}
	return nil
}

// floor times clients posting to a loopback handler that answers at once.
func floor(n int, dur time.Duration) *timings {
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	defer srv.Close()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"find","arguments":{"query":"agent memory retrieval"}}}`)
	t := &timings{}
	end := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				start := time.Now()
				res, err := http.Post(srv.URL, "application/json", bytes.NewReader(body))
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				t.add(time.Since(start), err)
			}
		}()
	}
	wg.Wait()
	return t
}

var queries = []string{"agent memory", "retrieval evaluation", "sqlite full text search", "load test", "token budget",
	"local first", "vector search", "highlights and notes", "reading list", "litestream replica"}

func run(base, token string, writers, searchers int, dur time.Duration) error {
	ctx := context.Background()
	fmt.Printf("== served ledger under load: %d writers, %d searchers, %s, MCP over streamable HTTP\n", writers, searchers, dur)
	fl := floor(writers+searchers, dur/6)
	fmt.Println(fl.line("floor: loopback HTTP POST", nil))

	save, find := &timings{}, &timings{}
	var mu sync.Mutex
	var acked []string
	end := time.Now().Add(dur)
	var wg sync.WaitGroup
	errc := make(chan error, writers+searchers)
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cs, err := connect(ctx, base, token, fmt.Sprintf("load-writer-%d", i))
			if err != nil {
				errc <- fmt.Errorf("writer %d: connect: %w", i, err)
				return
			}
			defer cs.Close()
			for n := 0; time.Now().Before(end); n++ {
				u := fmt.Sprintf("https://load.example/w%d/%d", i, n)
				start := time.Now()
				err := callErr(cs.CallTool(ctx, &sdk.CallToolParams{Name: "save", Arguments: map[string]any{
					"url": u, "note": "load test", "tags": []string{"load"}}}))
				save.add(time.Since(start), err)
				if err == nil {
					mu.Lock()
					acked = append(acked, u)
					if ackedOut != nil {
						fmt.Fprintln(ackedOut, u)
					}
					mu.Unlock()
				}
			}
		}(i)
	}
	for i := 0; i < searchers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cs, err := connect(ctx, base, token, fmt.Sprintf("load-searcher-%d", i))
			if err != nil {
				errc <- fmt.Errorf("searcher %d: connect: %w", i, err)
				return
			}
			defer cs.Close()
			for n := 0; time.Now().Before(end); n++ {
				start := time.Now()
				err := callErr(cs.CallTool(ctx, &sdk.CallToolParams{Name: "find", Arguments: map[string]any{
					"query": queries[(i+n)%len(queries)]}}))
				find.add(time.Since(start), err)
			}
		}(i)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		return err
	}
	fmt.Println(save.line("save (MCP tools/call)", fl))
	fmt.Println(find.line("find (MCP tools/call)", fl))
	if !verifyAfter {
		fmt.Printf("acknowledged saves: %d (not looked up again: -no-verify)\n", len(acked))
		return nil
	}

	lost, err := verify(ctx, base, token, acked)
	if err != nil {
		return err
	}
	fmt.Printf("acknowledged saves: %d; found again afterwards: %d; lost: %d\n", len(acked), len(acked)-lost, lost)
	switch {
	case lost > 0:
		return fmt.Errorf("%d acknowledged saves are missing", lost)
	case save.errs > 0:
		return fmt.Errorf("%d saves failed (last: %v)", save.errs, save.last)
	case find.errs > 0:
		return fmt.Errorf("%d searches failed (last: %v)", find.errs, find.last)
	}
	return nil
}

// verify looks every acknowledged URL up with the show tool and returns
// how many are missing.
func verify(ctx context.Context, base, token string, urls []string) (int, error) {
	cs, err := connect(ctx, base, token, "load-verify")
	if err != nil {
		return 0, fmt.Errorf("verify: connect: %w", err)
	}
	defer cs.Close()
	lost := 0
	for _, u := range urls {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "show", Arguments: map[string]any{"item": u}})
		if err != nil {
			return 0, fmt.Errorf("verify %s: %w", u, err)
		}
		var out struct {
			Item *struct {
				ID string `json:"id"`
			} `json:"item"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if res.IsError || json.Unmarshal(b, &out) != nil || out.Item == nil || out.Item.ID == "" {
			lost++
		}
	}
	return lost, nil
}
