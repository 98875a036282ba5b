package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// sleeps records the waits a Fetcher asked for instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// newFetcher returns a Fetcher that never really sleeps, has no host
// interval and a jitter of 1 (the backoff ceiling), with opts on top.
func newFetcher(t testing.TB, opts Options) (*Fetcher, *sleeps) {
	t.Helper()
	s := &sleeps{}
	if opts.Sleep == nil {
		opts.Sleep = s.sleep
	}
	if opts.HostInterval == 0 {
		opts.HostInterval = -1
	}
	if opts.Rand == nil {
		opts.Rand = func() float64 { return 1 }
	}
	return New(opts), s
}

func fetch(t *testing.T, f *Fetcher, rec *record.Record) *record.Record {
	t.Helper()
	out, err := f.Fetch(context.Background(), rec)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return out
}

func body(rec *record.Record) string {
	if rec.Body == nil {
		return "<nil>"
	}
	return *rec.Body
}

// errOf returns the record's error without its message, for comparison.
func errOf(rec *record.Record) *record.Error {
	if rec.Error == nil {
		return nil
	}
	e := *rec.Error
	e.Message = ""
	return &e
}

func TestRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			fmt.Fprint(w, "arrived")
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/ftp", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "ftp://example.com/x", http.StatusFound)
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "file:///etc/passwd")
		w.WriteHeader(http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f, _ := newFetcher(t, Options{})

	tests := []struct {
		path     string
		wantErr  *record.Error
		wantURL  string
		wantBody string
	}{
		{path: "/hop/3", wantURL: srv.URL + "/hop/0", wantBody: "arrived"},
		{path: "/hop/10", wantURL: srv.URL + "/hop/0", wantBody: "arrived"},
		{path: "/hop/11", wantErr: &record.Error{Stage: "fetch", Code: record.CodeTooManyRedirect}},
		{path: "/loop", wantErr: &record.Error{Stage: "fetch", Code: record.CodeTooManyRedirect}},
		{path: "/ftp", wantErr: &record.Error{Stage: "fetch", Code: record.CodeBadRedirect}},
		{path: "/file", wantErr: &record.Error{Stage: "fetch", Code: record.CodeBadRedirect}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			rec := fetch(t, f, &record.Record{URL: srv.URL + tt.path})
			if diff := cmp.Diff(tt.wantErr, errOf(rec)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if rec.Fetch == nil || rec.Fetch.Attempts != 1 {
				t.Errorf("fetch = %+v, want 1 attempt", rec.Fetch)
			}
			if tt.wantErr != nil {
				return
			}
			if rec.Fetch.FinalURL != tt.wantURL || body(rec) != tt.wantBody {
				t.Errorf("final_url %q body %q, want %q %q", rec.Fetch.FinalURL, body(rec), tt.wantURL, tt.wantBody)
			}
		})
	}
}

// flaky answers with the given statuses in turn (then 200 "ok"), setting
// headers from hdr on the failures.
func flaky(statuses []int, hdr map[string]string) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(calls.Add(1)) - 1
		if i < len(statuses) {
			for k, v := range hdr {
				w.Header().Set(k, v)
			}
			w.WriteHeader(statuses[i])
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	}))
	return srv, &calls
}

func TestRetries(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name       string
		statuses   []int
		hdr        map[string]string
		attempts   int
		wantErr    *record.Error
		wantSleeps []time.Duration
	}{
		{name: "500 then 200", statuses: []int{500}, attempts: 2, wantSleeps: []time.Duration{500 * time.Millisecond}},
		{name: "backoff doubles", statuses: []int{502, 503}, attempts: 3, wantSleeps: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "gives up after max attempts", statuses: []int{500, 500, 500}, attempts: 3,
			wantErr:    &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, Retryable: true, HTTPStatus: 500},
			wantSleeps: []time.Duration{500 * time.Millisecond, time.Second}},
		{name: "429 retry-after seconds", statuses: []int{429}, hdr: map[string]string{"Retry-After": "7"}, attempts: 2, wantSleeps: []time.Duration{7 * time.Second}},
		{name: "429 retry-after date", statuses: []int{429}, hdr: map[string]string{"Retry-After": now.Add(5 * time.Second).Format(http.TimeFormat)}, attempts: 2, wantSleeps: []time.Duration{5 * time.Second}},
		// A Retry-After over the in-process cap is not retried early: one
		// request, no sleep, and the error says when to come back.
		{name: "retry-after over the cap, seconds", statuses: []int{503}, hdr: map[string]string{"Retry-After": "3600"}, attempts: 1,
			wantErr: &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, Retryable: true, HTTPStatus: 503, RetryAfter: "2026-11-22T13:00:00Z"}},
		{name: "retry-after over the cap, date", statuses: []int{429}, hdr: map[string]string{"Retry-After": now.Add(2 * time.Hour).Format(http.TimeFormat)}, attempts: 1,
			wantErr: &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, Retryable: true, HTTPStatus: 429, RetryAfter: "2026-11-22T14:00:00Z"}},
		{name: "retry-after over a day is a day", statuses: []int{503}, hdr: map[string]string{"Retry-After": "999999999"}, attempts: 1,
			wantErr: &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, Retryable: true, HTTPStatus: 503, RetryAfter: "2026-11-23T12:00:00Z"}},
		{name: "retry-after on the last attempt is kept", statuses: []int{500, 500, 503}, hdr: map[string]string{"Retry-After": "9"}, attempts: 3,
			wantErr:    &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, Retryable: true, HTTPStatus: 503, RetryAfter: "2026-11-22T12:00:09Z"},
			wantSleeps: []time.Duration{9 * time.Second, 9 * time.Second}},
		{name: "404 not retried", statuses: []int{404}, attempts: 1, wantErr: &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, HTTPStatus: 404}},
		{name: "403 not retried", statuses: []int{403}, attempts: 1, wantErr: &record.Error{Stage: "fetch", Code: record.CodeHTTPStatus, HTTPStatus: 403}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, calls := flaky(tt.statuses, tt.hdr)
			defer srv.Close()
			f, s := newFetcher(t, Options{Now: func() time.Time { return now }})
			rec := fetch(t, f, &record.Record{URL: srv.URL + "/x"})
			if diff := cmp.Diff(tt.wantErr, errOf(rec)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if rec.Fetch.Attempts != tt.attempts || int(calls.Load()) != tt.attempts {
				t.Errorf("attempts = %d, server saw %d, want %d", rec.Fetch.Attempts, calls.Load(), tt.attempts)
			}
			if diff := cmp.Diff(tt.wantSleeps, s.all()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			wantStatus := 200
			if tt.wantErr != nil {
				wantStatus = tt.wantErr.HTTPStatus
			} else if body(rec) != "ok" {
				t.Errorf("body = %q, want ok", body(rec))
			}
			if rec.Fetch.Status != wantStatus {
				t.Errorf("status = %d, want %d", rec.Fetch.Status, wantStatus)
			}
		})
	}
}

func TestBackoffJitterAndCap(t *testing.T) {
	f, _ := newFetcher(t, Options{Rand: func() float64 { return 0.5 }})
	got := []time.Duration{f.backoff(1), f.backoff(2), f.backoff(3), f.backoff(8), f.backoff(40)}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 15 * time.Second, 15 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("backoff (-want +got):\n%s", diff)
	}
}

func TestTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	f, _ := newFetcher(t, Options{Timeout: 50 * time.Millisecond, MaxAttempts: 2})
	rec := fetch(t, f, &record.Record{URL: srv.URL})
	want := &record.Error{Stage: "fetch", Code: record.CodeTimeout, Retryable: true}
	if diff := cmp.Diff(want, errOf(rec)); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
	if rec.Fetch.Attempts != 2 {
		t.Errorf("attempts = %d, want 2", rec.Fetch.Attempts)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	f, s := newFetcher(t, Options{})
	rec := fetch(t, f, &record.Record{URL: "http://" + addr + "/"})
	want := &record.Error{Stage: "fetch", Code: record.CodeConnection, Retryable: true}
	if diff := cmp.Diff(want, errOf(rec)); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
	if rec.Fetch.Attempts != 3 || len(s.all()) != 2 {
		t.Errorf("attempts = %d with %d sleeps, want 3 with 2", rec.Fetch.Attempts, len(s.all()))
	}
}

func TestSizeCap(t *testing.T) {
	const max = 1 << 20
	var written atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		chunk := bytes.Repeat([]byte("a"), 32<<10)
		for {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil || written.Load() > 1<<30 {
				return
			}
		}
	})
	mux.HandleFunc("/declared", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(max+1))
		w.Write(make([]byte, max+1))
	})
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, max)) })
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		// 64 MiB of zeros gzip to about 64 KiB: the cap is on decoded bytes.
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zero := make([]byte, 1<<20)
		for range 64 {
			if _, err := zw.Write(zero); err != nil {
				return
			}
		}
		zw.Close()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	f, _ := newFetcher(t, Options{MaxBytes: max})

	for _, path := range []string{"/endless", "/declared", "/bomb"} {
		t.Run(path, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rec := fetch(t, f, &record.Record{URL: srv.URL + path})
			runtime.ReadMemStats(&after)
			want := &record.Error{Stage: "fetch", Code: record.CodeTooLarge}
			if diff := cmp.Diff(want, errOf(rec)); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if rec.Body != nil || rec.BodyBase64 != nil {
				t.Error("a failed record carries a body")
			}
			// The reader grows its buffer by doubling up to max+1: about
			// 2×max allocated in all, far below what an unbounded read takes.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*max {
				t.Errorf("allocated %d bytes for a %d byte cap", alloc, max)
			}
		})
	}
	rec := fetch(t, f, &record.Record{URL: srv.URL + "/exact"})
	if rec.Error != nil || rec.Fetch.Bytes != max {
		t.Errorf("exactly max bytes: error %v, bytes %d", rec.Error, rec.Fetch.Bytes)
	}
}

func TestReadCapped(t *testing.T) {
	for _, tt := range []struct {
		n, max, hint int64
		ok           bool
	}{
		{0, 10, 0, true}, {10, 10, 0, true}, {11, 10, 0, false}, {10, 10, 10, true},
		{100000, 100000, -1, true}, {100001, 100000, -1, false}, {5, 10, 100, true},
	} {
		got, err := readCapped(bytes.NewReader(make([]byte, tt.n)), tt.max, tt.hint)
		if (err == nil) != tt.ok || (tt.ok && int64(len(got)) != tt.n) {
			t.Errorf("readCapped(%d bytes, max %d, hint %d) = %d bytes, %v", tt.n, tt.max, tt.hint, len(got), err)
		}
		if cap(got) > int(tt.max)+1 {
			t.Errorf("buffer capacity %d over max+1 = %d", cap(got), tt.max+1)
		}
	}
}

func TestContentEncodingAndCharset(t *testing.T) {
	page := "<p>héllo wörld</p>"
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	br := func(s string) []byte {
		var b bytes.Buffer
		bw := brotli.NewWriter(&b)
		bw.Write([]byte(s))
		bw.Close()
		return b.Bytes()
	}
	tests := []struct {
		name, ct, enc string
		raw           []byte
		wantBody      string
		wantCharset   string
		wantType      string
	}{
		{name: "gzip", ct: "text/html; charset=utf-8", enc: "gzip", raw: gz(page), wantBody: page, wantCharset: "utf-8", wantType: "text/html"},
		{name: "brotli", ct: "text/html; charset=utf-8", enc: "br", raw: br(page), wantBody: page, wantCharset: "utf-8", wantType: "text/html"},
		{name: "latin-1 header", ct: "text/html; charset=iso-8859-1", raw: []byte("caf\xe9 \xfcber"), wantBody: "café über", wantCharset: "windows-1252", wantType: "text/html"},
		{name: "windows-1252 meta", ct: "text/html",
			raw:      []byte(`<html><head><meta charset="windows-1252"></head><body>price 5 ` + "\x80 caf\xe9 \x93quoted\x94</body>"),
			wantBody: `<html><head><meta charset="windows-1252"></head><body>price 5 € café “quoted”</body>`, wantCharset: "windows-1252", wantType: "text/html"},
		{name: "http-equiv meta", ct: "text/html",
			raw:      []byte(`<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">` + "\xe9"),
			wantBody: `<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">é`, wantCharset: "windows-1252", wantType: "text/html"},
		{name: "utf-8 without declaration", ct: "text/html", raw: []byte(strings.Repeat("x", 2000) + "é"), wantBody: strings.Repeat("x", 2000) + "é", wantCharset: "utf-8", wantType: "text/html"},
		{name: "invalid utf-8 without declaration", ct: "text/plain", raw: []byte("na\xefve"), wantBody: "naïve", wantCharset: "windows-1252", wantType: "text/plain"},
		{name: "utf-8 bom", ct: "text/plain", raw: []byte("\xef\xbb\xbfhé"), wantBody: "hé", wantCharset: "utf-8", wantType: "text/plain"},
		{name: "xml declaration", ct: "application/rss+xml",
			raw:      []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><rss><title>caf` + "\xe9</title></rss>"),
			wantBody: `<?xml version="1.0" encoding="ISO-8859-1"?><rss><title>café</title></rss>`, wantCharset: "windows-1252", wantType: "application/rss+xml"},
		{name: "empty gzip", ct: "text/plain", enc: "gzip", raw: nil, wantBody: "", wantCharset: "utf-8", wantType: "text/plain"},
		{name: "json", ct: "application/json", raw: []byte(`{"a":"é"}`), wantBody: `{"a":"é"}`, wantCharset: "utf-8", wantType: "application/json"},
		{name: "no content type sniffed", raw: []byte("<!DOCTYPE html><title>x</title>"), wantBody: "<!DOCTYPE html><title>x</title>", wantCharset: "utf-8", wantType: "text/html"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if ae := r.Header.Get("Accept-Encoding"); ae != "gzip, br" {
					t.Errorf("Accept-Encoding = %q", ae)
				}
				w.Header()["Content-Type"] = []string{tt.ct}
				if tt.ct == "" {
					w.Header()["Content-Type"] = nil
				}
				if tt.enc != "" {
					w.Header().Set("Content-Encoding", tt.enc)
				}
				w.Write(tt.raw)
			}))
			defer srv.Close()
			f, _ := newFetcher(t, Options{})
			rec := fetch(t, f, &record.Record{URL: srv.URL})
			if rec.Error != nil {
				t.Fatalf("error: %v", rec.Error)
			}
			if diff := cmp.Diff(tt.wantBody, body(rec)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if rec.Fetch.Charset != tt.wantCharset || rec.Fetch.ContentType != tt.wantType {
				t.Errorf("charset %q type %q, want %q %q", rec.Fetch.Charset, rec.Fetch.ContentType, tt.wantCharset, tt.wantType)
			}
		})
	}
}

func TestBinaryBody(t *testing.T) {
	pdf := []byte("%PDF-1.4\n\x00\x01\x02binary")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/pdf")
		w.Write(pdf)
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{})
	rec := fetch(t, f, &record.Record{URL: srv.URL + "/paper"})
	if rec.Error != nil || rec.Body != nil || rec.BodyBase64 == nil {
		t.Fatalf("error %v, body %v, body_base64 %v", rec.Error, rec.Body, rec.BodyBase64)
	}
	if *rec.BodyBase64 != encodeBase64(pdf) {
		t.Errorf("body_base64 = %q", *rec.BodyBase64)
	}
	// The URL said article; the server said PDF.
	if rec.SourceType != record.SourcePDF || rec.Fetch.Bytes != int64(len(pdf)) {
		t.Errorf("source_type %q bytes %d", rec.SourceType, rec.Fetch.Bytes)
	}
}

func TestSourceTypeCorrection(t *testing.T) {
	for _, tt := range []struct{ st, mt, want string }{
		{record.SourceArticle, "application/pdf", record.SourcePDF},
		{record.SourceArticle, "text/plain", record.SourceText},
		{record.SourceArticle, "text/markdown", record.SourceText},
		{record.SourcePDF, "text/html", record.SourceArticle},
		{record.SourceText, "image/png", record.SourceText},
		{record.SourceYouTube, "text/html", record.SourceYouTube},
		{record.SourceX, "application/pdf", record.SourceX},
	} {
		if got := correctSourceType(tt.st, tt.mt); got != tt.want {
			t.Errorf("correctSourceType(%q, %q) = %q, want %q", tt.st, tt.mt, got, tt.want)
		}
	}
}

func TestConditionalGet(t *testing.T) {
	var gotINM, gotIMS string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotINM, gotIMS = r.Header.Get("If-None-Match"), r.Header.Get("If-Modified-Since")
		if gotINM == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v2"`)
		fmt.Fprint(w, "new")
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{})
	lm := "Sat, 21 Nov 2026 10:00:00 GMT"
	rec := fetch(t, f, &record.Record{URL: srv.URL, Fetch: &record.FetchInfo{ETag: `"v1"`, LastModified: lm, Status: 200}})
	if gotINM != `"v1"` || gotIMS != lm {
		t.Errorf("sent If-None-Match %q If-Modified-Since %q", gotINM, gotIMS)
	}
	want := &record.FetchInfo{FinalURL: srv.URL, Status: 304, ETag: `"v1"`, LastModified: lm, Attempts: 1, NotModified: true, Source: "http"}
	got := *rec.Fetch
	got.FetchedAt = ""
	if diff := cmp.Diff(want, &got); diff != "" || rec.Error != nil || rec.Body != nil {
		t.Errorf("fetch (-want +got):\n%s\nerror %v body %v", diff, rec.Error, rec.Body)
	}

	rec = fetch(t, f, &record.Record{URL: srv.URL, Fetch: &record.FetchInfo{ETag: `"old"`}})
	if rec.Fetch.NotModified || body(rec) != "new" || rec.Fetch.ETag != `"v2"` {
		t.Errorf("changed resource: fetch %+v body %q", rec.Fetch, body(rec))
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("page.html", []byte("<p>caf\xe9</p>"))
	write("notes.md", []byte("# Notes\n"))
	write("paper.pdf", []byte("%PDF-1.4 x"))
	write("blob", []byte("\x00\x01\x02"))
	write("big.txt", make([]byte, 101))
	f, _ := newFetcher(t, Options{Cwd: dir, MaxBytes: 100, AllowFiles: []string{dir}})

	tests := []struct {
		in, wantType, wantST, wantBody string
		b64                            bool
		wantErr                        string
	}{
		{in: "page.html", wantType: "text/html", wantST: "article", wantBody: "<p>café</p>"},
		{in: "file://" + filepath.ToSlash(filepath.Join(dir, "notes.md")), wantType: "text/markdown", wantST: "text", wantBody: "# Notes\n"},
		{in: "./paper.pdf", wantType: "application/pdf", wantST: "pdf", b64: true},
		{in: filepath.Join(dir, "blob"), wantType: "application/octet-stream", wantST: "article", b64: true},
		{in: "big.txt", wantErr: record.CodeTooLarge},
		{in: "./missing.html", wantErr: record.CodeFileRead},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			rec := fetch(t, f, &record.Record{URL: tt.in})
			if tt.wantErr != "" {
				if rec.Error == nil || rec.Error.Code != tt.wantErr || rec.Error.Retryable {
					t.Fatalf("error = %+v, want %s", rec.Error, tt.wantErr)
				}
				return
			}
			if rec.Error != nil {
				t.Fatalf("error: %v", rec.Error)
			}
			if rec.Fetch.Source != "file" || rec.Fetch.Status != 200 || rec.Fetch.ContentType != tt.wantType || rec.SourceType != tt.wantST {
				t.Errorf("fetch %+v source_type %q", rec.Fetch, rec.SourceType)
			}
			if rec.URL != tt.in || !strings.HasPrefix(rec.OriginalURL, "file:///") || !strings.HasPrefix(rec.CanonicalURL, "file:///") || rec.ID != record.ItemID(rec.CanonicalURL) {
				t.Errorf("identity: url %q original %q canonical %q id %q", rec.URL, rec.OriginalURL, rec.CanonicalURL, rec.ID)
			}
			if tt.b64 != (rec.BodyBase64 != nil) || (!tt.b64 && body(rec) != tt.wantBody) {
				t.Errorf("body %q body_base64 %v", body(rec), rec.BodyBase64)
			}
		})
	}
}

func TestPassThroughAndBadInput(t *testing.T) {
	f, _ := newFetcher(t, Options{})
	failed := &record.Record{URL: "https://example.com/", Error: &record.Error{Stage: "save", Code: "bad_url", Message: "x"}}
	want := *failed
	got := fetch(t, f, failed)
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("errored record changed (-want +got):\n%s", diff)
	}
	for _, tt := range []struct {
		rec  *record.Record
		code string
	}{
		{&record.Record{Note: "no url"}, record.CodeBadInput},
		{&record.Record{URL: "ftp://example.com/x"}, record.CodeUnsupported},
		{&record.Record{URL: "notaurl"}, record.CodeBadURL},
	} {
		rec := fetch(t, f, tt.rec)
		if rec.Error == nil || rec.Error.Code != tt.code || rec.Error.Stage != "fetch" {
			t.Errorf("%+v: error %+v, want %s", tt.rec, rec.Error, tt.code)
		}
	}
}

func TestIdentityAndUserAgent(t *testing.T) {
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua = r.UserAgent()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "plain")
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{UserAgent: "test-agent/1"})
	rec := fetch(t, f, &record.Record{URL: srv.URL + "/a?utm_source=x&b=1", Extra: nil})
	if ua != "test-agent/1" {
		t.Errorf("User-Agent = %q", ua)
	}
	wantCanon := srv.URL + "/a?b=1"
	if rec.CanonicalURL != wantCanon || rec.ID != record.ItemID(wantCanon) || rec.SourceType != record.SourceText {
		t.Errorf("identity: canonical %q id %q source_type %q", rec.CanonicalURL, rec.ID, rec.SourceType)
	}
	// A record from ll-save keeps its identity.
	saved := &record.Record{URL: srv.URL + "/b", CanonicalURL: "https://example.com/b", ID: "ll_0000000000000000", SourceType: record.SourceYouTube}
	rec = fetch(t, f, saved)
	if rec.CanonicalURL != "https://example.com/b" || rec.ID != "ll_0000000000000000" || rec.SourceType != record.SourceYouTube {
		t.Errorf("identity changed: %+v", rec)
	}
}

func TestSources(t *testing.T) {
	calls := 0
	yt := func(ctx context.Context, hc *http.Client, rec *record.Record) ([]byte, string, string, error) {
		calls++
		if calls == 1 {
			return nil, "", "youtube-test", &record.Error{Code: record.CodeUpstream, Message: "busy", Retryable: true}
		}
		return []byte(`{"title":"t"}`), "application/json", "youtube-test", nil
	}
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 2000)) }))
	defer big.Close()
	greedy := func(ctx context.Context, hc *http.Client, rec *record.Record) ([]byte, string, string, error) {
		resp, err := hc.Get(big.URL)
		if err != nil {
			return nil, "", "x-test", err
		}
		defer resp.Body.Close()
		var b bytes.Buffer
		_, err = b.ReadFrom(resp.Body)
		return b.Bytes(), "text/plain", "x-test", err
	}
	f, s := newFetcher(t, Options{MaxBytes: 1000, Sources: map[string]SourceFunc{record.SourceYouTube: yt, record.SourceX: greedy}})
	rec := fetch(t, f, &record.Record{URL: "https://youtu.be/dQw4w9WgXcQ"})
	if rec.Error != nil || body(rec) != `{"title":"t"}` || rec.Fetch.Source != "youtube-test" || rec.Fetch.Attempts != 2 || len(s.all()) != 1 {
		t.Errorf("youtube: error %v body %q fetch %+v", rec.Error, body(rec), rec.Fetch)
	}
	if rec.SourceType != record.SourceYouTube || rec.CanonicalURL != "https://www.youtube.com/watch?v=dQw4w9WgXcQ" {
		t.Errorf("youtube identity: %q %q", rec.SourceType, rec.CanonicalURL)
	}
	rec = fetch(t, f, &record.Record{URL: "https://x.com/someone/status/123"})
	if rec.Error == nil || rec.Error.Code != record.CodeTooLarge || rec.Fetch.Source != "x-test" {
		t.Errorf("x: error %+v fetch %+v", rec.Error, rec.Fetch)
	}
}

func TestRunOrderAndConcurrency(t *testing.T) {
	const n = 8
	done := make([]chan struct{}, n+1)
	for i := range done {
		done[i] = make(chan struct{})
	}
	close(done[n])
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var i int
		fmt.Sscanf(r.URL.Path, "/%d", &i)
		// Answer in reverse order: wait for the next one to have answered.
		select {
		case <-done[i+1]:
		case <-time.After(5 * time.Second):
			t.Errorf("request %d waited for %d in vain: fetches are not concurrent", i, i+1)
		}
		fmt.Fprintf(w, "page %d", i)
		close(done[i])
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{Concurrency: n, PerHost: n})
	var got []string
	i := 0
	next := func() (*record.Record, error) {
		if i == n {
			return nil, io.EOF
		}
		i++
		return &record.Record{URL: fmt.Sprintf("%s/%d", srv.URL, i-1)}, nil
	}
	err := f.Run(context.Background(), next, func(rec *record.Record) error {
		got = append(got, body(rec))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("page %d", i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("output order (-want +got):\n%s", diff)
	}
}

func TestRunPerHostCap(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cur := inFlight.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond) // give others the chance to overlap
		inFlight.Add(-1)
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{Concurrency: 8, PerHost: 2})
	recs := 0
	next := func() (*record.Record, error) {
		if recs == 16 {
			return nil, io.EOF
		}
		recs++
		return &record.Record{URL: fmt.Sprintf("%s/%d", srv.URL, recs)}, nil
	}
	var failed int
	if err := f.Run(context.Background(), next, func(rec *record.Record) error {
		if rec.Error != nil {
			failed++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > 2 || p < 1 || failed > 0 {
		t.Errorf("peak in-flight requests to one host = %d (cap 2), %d failed", p, failed)
	}
}

func TestHostInterval(t *testing.T) {
	// A fake clock: sleeping advances it. Three requests to one host
	// 250ms apart must ask to wait 250ms and 500ms.
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var waits []time.Duration
	l := newHostLimiter(4, 250*time.Millisecond,
		func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			waits = append(waits, d)
			mu.Unlock()
			return nil
		})
	for range 3 {
		if err := l.acquire(context.Background(), "a"); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.acquire(context.Background(), "b"); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}
	if diff := cmp.Diff(want, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestRunPassesErrorsAndStopsOnEmitError(t *testing.T) {
	f, _ := newFetcher(t, Options{})
	in := []*record.Record{
		{Error: &record.Error{Stage: "fetch", Code: record.CodeBadJSON, Line: 1}},
		{Note: "no url"},
	}
	i := 0
	next := func() (*record.Record, error) {
		if i == len(in) {
			return nil, io.EOF
		}
		i++
		return in[i-1], nil
	}
	var codes []string
	if err := f.Run(context.Background(), next, func(rec *record.Record) error {
		codes = append(codes, rec.Error.Code)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{record.CodeBadJSON, record.CodeBadInput}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}

	// An endless input stops at the first failed write.
	endless := func() (*record.Record, error) { return &record.Record{}, nil }
	stop := fmt.Errorf("closed")
	emitted := 0
	err := f.Run(context.Background(), endless, func(*record.Record) error { emitted++; return stop })
	if err != stop || emitted != 1 {
		t.Errorf("Run = %v after %d emits, want %v after 1", err, emitted, stop)
	}
}

func BenchmarkFetchLocal(b *testing.B) {
	page := []byte("<!DOCTYPE html><html><head><title>Bench</title></head><body>" + strings.Repeat("<p>Some text of a paragraph.</p>", 200) + "</body></html>")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	f, _ := newFetcher(b, Options{Concurrency: 4, PerHost: 4})
	b.SetBytes(int64(len(page)))
	b.ResetTimer()
	i := 0
	next := func() (*record.Record, error) {
		if i == b.N {
			return nil, io.EOF
		}
		i++
		return &record.Record{URL: srv.URL + "/page"}, nil
	}
	if err := f.Run(context.Background(), next, func(rec *record.Record) error {
		if rec.Error != nil {
			return rec.Error
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
}

func TestRunCancel(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(hang)
	f, _ := newFetcher(t, Options{Concurrency: 2})
	ctx, cancel := context.WithCancel(context.Background())
	started := 0
	next := func() (*record.Record, error) {
		started++
		if started == 3 {
			cancel() // Ctrl-C while two requests hang
		}
		return &record.Record{URL: srv.URL}, nil
	}
	emitted := 0
	err := f.Run(ctx, next, func(*record.Record) error { emitted++; return nil })
	if err != context.Canceled || emitted != 0 {
		t.Errorf("Run = %v with %d emitted, want context.Canceled and none", err, emitted)
	}
}

func TestOriginalURLPreferred(t *testing.T) {
	// ll-save keeps url as typed (maybe relative to where it ran) and puts
	// its absolute form in original_url: that is what gets read.
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(p, []byte("saved elsewhere"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := newFetcher(t, Options{Cwd: t.TempDir(), AllowFiles: []string{p}})
	canonical := "file://" + filepath.ToSlash(p)
	rec := fetch(t, f, &record.Record{URL: "notes.txt", OriginalURL: canonical, CanonicalURL: canonical, ID: record.ItemID(canonical), SourceType: record.SourceText})
	if rec.Error != nil || body(rec) != "saved elsewhere" || rec.URL != "notes.txt" {
		t.Errorf("error %v body %q url %q", rec.Error, body(rec), rec.URL)
	}
}

func TestTLSCertificateNotRetried(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "secret") }))
	defer srv.Close()
	f, _ := newFetcher(t, Options{})
	rec := fetch(t, f, &record.Record{URL: srv.URL}) // self-signed: unknown authority
	want := &record.Error{Stage: "fetch", Code: record.CodeConnection}
	if diff := cmp.Diff(want, errOf(rec)); diff != "" || rec.Fetch.Attempts != 1 {
		t.Errorf("error (-want +got):\n%s\nattempts %d", diff, rec.Fetch.Attempts)
	}
}
