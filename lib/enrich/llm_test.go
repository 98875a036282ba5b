package enrich

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

const secretKey = "sk-test-SECRET-4242"

var testChunks = []record.Chunk{
	{Index: 0, Text: "Rust compiles to native code.\nThe borrow checker   rejects\ndata races at compile time."},
	{Index: 1, Text: "Cargo builds and tests crates. Teams report fewer crashes after the move."},
}

// server starts a fake chat completions server on 127.0.0.1 only.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.Listener.Close()
	s.Listener = ln
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func answer(content string) []byte {
	b, _ := json.Marshal(map[string]any{
		"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}},
		"usage":   map[string]int{"prompt_tokens": 120, "completion_tokens": 45},
	})
	return b
}

func newLLM(u string) *LLM {
	return &LLM{URL: u + "/v1", Model: "fake-1", Key: secretKey, Timeout: 2 * time.Second,
		MaxInputTokens: DefaultMaxInputTokens, MaxTokens: DefaultMaxTokens, Attempts: 3,
		Client: &http.Client{}, Sleep: func(context.Context, time.Duration) error { return nil }}
}

var opts = Options{MaxClaims: 5, MaxHighlights: 3, SummarySentences: 3}

func TestLLMGoodAnswerIsGrounded(t *testing.T) {
	var gotAuth, gotPath string
	var gotReq chatRequest
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotPath = r.Header.Get("Authorization"), r.URL.Path
		json.NewDecoder(r.Body).Decode(&gotReq)
		w.Write(answer(`{"summary":"Rust is safe.","claims":[{"text":"The borrow checker rejects data races at compile time."},{"text":"Rust is the fastest language ever."}],"highlights":[{"text":"Teams report fewer crashes after the move."},{"text":"Invented highlight text here."}],"tags":["rust"]}`))
	})
	rec := &record.Record{Chunks: testChunks}
	if e := newLLM(s.URL).Enrich(context.Background(), rec, opts); e != nil {
		t.Fatal(e)
	}
	if gotAuth != "Bearer "+secretKey || gotPath != "/v1/chat/completions" {
		t.Errorf("auth %q path %q", gotAuth, gotPath)
	}
	if gotReq.ResponseFormat["type"] != "json_object" || gotReq.Model != "fake-1" || gotReq.MaxTokens != DefaultMaxTokens {
		t.Errorf("request %+v", gotReq)
	}
	want := &record.Artifact{
		Summary:   "Rust is safe.",
		KeyClaims: []string{"The borrow checker   rejects\ndata races at compile time."},
		CreatedBy: Actor, Method: "llm", Model: "fake-1", EndpointHost: "127.0.0.1", SummaryBy: "model",
		Tokens: &record.TokenUsage{Prompt: 120, Completion: 45}, Tags: []string{"rust"},
		Claims: []record.Claim{
			{Text: "The borrow checker   rejects\ndata races at compile time.", ChunkIndex: 0, Confidence: ConfidenceClaim},
			{Text: "Rust is the fastest language ever.", ChunkIndex: -1, Confidence: ConfidenceUnsupported, Unsupported: true},
		},
	}
	if d := cmp.Diff(want, rec.Artifact); d != "" {
		t.Errorf("artifact (-want +got):\n%s", d)
	}
	if len(rec.Annotations) != 1 || rec.Annotations[0].Text != "Teams report fewer crashes after the move." || *rec.Annotations[0].ChunkIndex != 1 {
		t.Errorf("highlights: %+v", rec.Annotations)
	}
	b, _ := json.Marshal(rec)
	if strings.Contains(string(b), secretKey) {
		t.Error("key in record")
	}
}

func TestLLMFailures(t *testing.T) {
	for _, tc := range []struct {
		name      string
		h         http.HandlerFunc
		code      string
		retryable bool
		calls     int32
	}{
		{"malformed content", func(w http.ResponseWriter, r *http.Request) { w.Write(answer(`{"summary": "x", claims`)) }, record.CodeBadContent, false, 1},
		{"not a completion", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`<html>`)) }, record.CodeBadContent, false, 1},
		{"always 503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, record.CodeUpstream, true, 3},
		{"401 not retried", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(401) }, record.CodeUpstream, false, 1},
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(time.Second): // well past the 200ms timeout; the server waits for it on close
			}
		}, record.CodeTimeout, true, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			s := server(t, func(w http.ResponseWriter, r *http.Request) { calls.Add(1); tc.h(w, r) })
			l := newLLM(s.URL)
			l.Timeout = 200 * time.Millisecond
			rec := &record.Record{Chunks: testChunks}
			e := l.Enrich(context.Background(), rec, opts)
			if e == nil {
				t.Fatal("no error")
			}
			if e.Stage != record.StageEnrich || e.Code != tc.code || e.Retryable != tc.retryable || calls.Load() != tc.calls {
				t.Errorf("got %+v after %d calls, want code %s retryable %v after %d", e, calls.Load(), tc.code, tc.retryable, tc.calls)
			}
			if rec.Artifact != nil || strings.Contains(e.Message, secretKey) {
				t.Errorf("record changed or key in message: %+v", e)
			}
		})
	}
}

func TestLLMRetryAfter429(t *testing.T) {
	var calls atomic.Int32
	s := server(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(429)
			return
		}
		w.Write(answer(`{"summary":"ok","claims":[],"highlights":[],"tags":[]}`))
	})
	l := newLLM(s.URL)
	var waits []time.Duration
	l.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
	rec := &record.Record{Chunks: testChunks}
	if e := l.Enrich(context.Background(), rec, opts); e != nil {
		t.Fatal(e)
	}
	if d := cmp.Diff([]time.Duration{MaxRetryAfter}, waits); d != "" || rec.Artifact.Summary != "ok" {
		t.Errorf("waits (-want +got) %s, artifact %+v", d, rec.Artifact)
	}
}

func TestEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:1/v1":                   "http://h:1/v1/chat/completions",
		"http://h:1/v1/":                  "http://h:1/v1/chat/completions",
		"http://h:1/v1/chat/completions":  "http://h:1/v1/chat/completions",
		"http://h:1/v1/chat/completions/": "http://h:1/v1/chat/completions",
	} {
		if got := (&LLM{URL: in}).Endpoint(); got != want {
			t.Errorf("%s: got %s want %s", in, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	s := strings.Repeat("word ", 1000)
	got := Cut(s, 100)
	if got == s || !strings.HasPrefix(s, got) || len(got) < 100 {
		t.Errorf("cut to %d bytes", len(got))
	}
}

func TestSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`prog a b`, []string{"prog", "a", "b"}},
		{`prog 'a b' "c \"d\"" e\ f`, []string{"prog", "a b", `c "d"`, "e f"}},
		{`  prog   ''  `, []string{"prog", ""}},
	} {
		got, err := SplitArgs(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: %s", tc.in, d)
		}
	}
	for _, bad := range []string{``, `  `, `prog 'open`} {
		if _, err := SplitArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLLMCmd(t *testing.T) {
	l := &LLM{Cmd: []string{"sh", "-c", fmt.Sprintf(`cat >/dev/null; printf '%%s' '%s'`, `{"summary":"s","claims":[{"text":"Cargo builds and tests crates."}],"highlights":[],"tags":[]}`)}, Timeout: 5 * time.Second}
	rec := &record.Record{Chunks: testChunks}
	if e := l.Enrich(context.Background(), rec, opts); e != nil {
		t.Fatal(e)
	}
	if len(rec.Artifact.Claims) != 1 || rec.Artifact.Claims[0].ChunkIndex != 1 || rec.Artifact.Claims[0].Unsupported || rec.Artifact.EndpointHost != "" {
		t.Errorf("%+v", rec.Artifact)
	}
	l = &LLM{Cmd: []string{"sleep", "5"}, Timeout: 100 * time.Millisecond}
	if e := l.Enrich(context.Background(), &record.Record{Chunks: testChunks}, opts); e == nil || e.Code != record.CodeTimeout {
		t.Errorf("slow command: %+v", e)
	}
}

// TestLLMRetryAfterForms: a 429 or 503 with Retry-After in seconds or as an
// HTTP date (RFC 1123, RFC 850, asctime) waits that long, capped at
// MaxRetryAfter; a past date retries at once; a value of neither form falls
// back to the default backoff (1s).
func TestLLMRetryAfterForms(t *testing.T) {
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		name, header string
		status       int
		want         time.Duration
	}{
		{"seconds", "7", 429, 7 * time.Second},
		{"zero seconds", "0", 503, 0},
		{"seconds over the cap", "99999999999999", 429, MaxRetryAfter},
		{"http date", now.Add(12 * time.Second).Format(http.TimeFormat), 503, 12 * time.Second},
		{"http date over the cap", now.Add(time.Hour).Format(http.TimeFormat), 429, MaxRetryAfter},
		{"http date in the past", now.Add(-time.Minute).Format(http.TimeFormat), 429, 0},
		{"rfc 850 date", now.Add(5 * time.Second).Format("Monday, 02-Jan-06 15:04:05 GMT"), 503, 5 * time.Second},
		{"asctime date", now.Add(3 * time.Second).Format(time.ANSIC), 503, 3 * time.Second},
		{"garbage", "soon", 429, time.Second},
		{"negative", "-5", 429, time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			s := server(t, func(w http.ResponseWriter, r *http.Request) {
				if calls.Add(1) == 1 {
					w.Header().Set("Retry-After", c.header)
					w.WriteHeader(c.status)
					return
				}
				w.Write(answer(`{"summary":"ok","claims":[],"highlights":[],"tags":[]}`))
			})
			l := newLLM(s.URL)
			l.Now = func() time.Time { return now }
			var waits []time.Duration
			l.Sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			rec := &record.Record{Chunks: testChunks}
			if e := l.Enrich(context.Background(), rec, opts); e != nil {
				t.Fatal(e)
			}
			if d := cmp.Diff([]time.Duration{c.want}, waits); d != "" {
				t.Errorf("Retry-After %q: waits (-want +got) %s", c.header, d)
			}
			if calls.Load() != 2 || rec.Artifact == nil || rec.Artifact.Summary != "ok" {
				t.Errorf("calls %d, artifact %+v", calls.Load(), rec.Artifact)
			}
		})
	}
}
