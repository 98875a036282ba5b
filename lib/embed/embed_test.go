package embed

import (
	"context"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/record"
)

func newClient(url string, waits *[]time.Duration) *Client {
	return &Client{URL: url, Model: "hash-16", Timeout: 2 * time.Second, Attempts: 3, BatchSize: 2,
		Sleep: func(_ context.Context, d time.Duration) error { *waits = append(*waits, d); return nil }}
}

func TestEmbedAnswers(t *testing.T) {
	fake := &embedfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	texts := []string{"NAC lowers", "acetylcysteine lowers", "cars", "a kitten"}
	for _, base := range []string{srv.URL + "/v1", srv.URL + "/api/embed"} {
		var waits []time.Duration
		vs, err := newClient(base, &waits).Embed(context.Background(), texts)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if len(vs) != len(texts) || len(vs[0]) != 16 {
			t.Fatalf("%s: %d vectors of %d", base, len(vs), len(vs[0]))
		}
		for i, txt := range texts {
			if diff := cmp.Diff(embedfake.Vector("hash-16", txt), vs[i]); diff != "" {
				t.Errorf("%s: vector %d (-want +got):\n%s", base, i, diff)
			}
		}
		if diff := cmp.Diff(vs[0], vs[1]); diff != "" {
			t.Errorf("synonyms differ: %s", diff)
		}
	}
	if fake.Requests() != 4 {
		t.Errorf("requests = %d, want 4 (two batches of two, twice)", fake.Requests())
	}
}

func TestEmbedFailures(t *testing.T) {
	fake := &embedfake.Server{Slow: 3 * time.Second}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name, url string
		code      string
		status    int
		requests  int64 // how many the fake saw
		waits     []time.Duration
	}{
		{"down", down + "/v1", record.CodeConnection, 0, 0, []time.Duration{time.Second, 2 * time.Second}},
		{"slow", srv.URL + "/slow/v1", record.CodeTimeout, 0, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"401", srv.URL + "/401/v1", record.CodeUpstream, 401, 1, nil},
		{"500", srv.URL + "/500/v1", record.CodeUpstream, 500, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"wrong dimension", srv.URL + "/dim/v1", record.CodeBadContent, 0, 1, nil},
		{"nan", srv.URL + "/nan/v1", record.CodeBadContent, 0, 1, nil},
		{"fewer vectors", srv.URL + "/short/v1", record.CodeBadContent, 0, 1, nil},
		{"huge", srv.URL + "/huge/v1", record.CodeTooLarge, 0, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := fake.Requests()
			var waits []time.Duration
			c := newClient(tc.url, &waits)
			c.Timeout = 300 * time.Millisecond
			if tc.name == "huge" {
				c.Timeout = 10 * time.Second
			}
			vs, e := c.Embed(context.Background(), []string{"one text", "two texts"})
			if e == nil {
				t.Fatalf("no error, %d vectors", len(vs))
			}
			if vs != nil || e.Code != tc.code || e.Stage != record.StageEmbed || e.HTTPStatus != tc.status {
				t.Errorf("got %v %+v, want code %s status %d", vs, e, tc.code, tc.status)
			}
			if n := fake.Requests() - before; n != tc.requests {
				t.Errorf("requests = %d, want %d", n, tc.requests)
			}
			if diff := cmp.Diff(tc.waits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

func TestEmbedRetryAfter(t *testing.T) {
	fake := &embedfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var waits []time.Duration
	vs, err := newClient(srv.URL+"/429/v1", &waits).Embed(context.Background(), []string{"x y z"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 || fake.Requests() != 2 {
		t.Errorf("%d vectors after %d requests", len(vs), fake.Requests())
	}
	if diff := cmp.Diff([]time.Duration{time.Second}, waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, body := range []string{
		`{"data":[{"index":0,"embedding":[0.1,null]}]}`,
		`{"data":[{"index":0,"embedding":[1e39,0]}]}`,
		`{"data":[{"index":0,"embedding":[]}]}`,
		`{"data":[{"index":1,"embedding":[1]}]}`,
		`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[1]}]}`,
		`[1,2]`,
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body)) }))
		var waits []time.Duration
		n := 1
		if body[len(body)-4] == '}' && body[10] == '{' && len(body) > 60 {
			n = 2
		}
		_, e := newClient(srv.URL, &waits).Embed(context.Background(), make([]string, n))
		srv.Close()
		if e == nil || e.Code != record.CodeBadContent {
			t.Errorf("%s: got %+v, want bad_content", body, e)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	v := []float32{0, -1.5, 3.25e-7, math.MaxFloat32}
	got, err := Decode(Encode(v))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, got); diff != "" {
		t.Error(diff)
	}
	for _, bad := range []string{"", "!!", "AAA=", Encode([]float32{float32(math.NaN())}), Encode([]float32{float32(math.Inf(1))})} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q): no error", bad)
		}
	}
}

// TestRedirectOtherHost: a redirect to another origin (here another
// loopback port the test started) is refused before any text is sent
// there; a redirect within the endpoint's origin is followed.
func TestRedirectOtherHost(t *testing.T) {
	other := &embedfake.Server{}
	dst := httptest.NewServer(other)
	defer dst.Close()
	own := &embedfake.Server{}
	mux := http.NewServeMux()
	mux.HandleFunc("/away/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, dst.URL+"/v1/embeddings", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/here/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/v1/embeddings", http.StatusPermanentRedirect)
	})
	mux.Handle("/v1/", own)
	src := httptest.NewServer(mux)
	defer src.Close()

	var waits []time.Duration
	c := newClient(src.URL+"/away/v1", &waits)
	c.Key = "k"
	vs, e := c.Embed(context.Background(), []string{"a secret text"})
	if e == nil || vs != nil {
		t.Fatalf("redirect to %s followed: %d vectors", dst.URL, len(vs))
	}
	if e.Code != record.CodeBadRedirect || e.Retryable || !strings.Contains(e.Message, "redirected to another host") || !strings.Contains(e.Message, strings.TrimPrefix(dst.URL, "http://")) {
		t.Errorf("error %+v", e)
	}
	if n := other.Requests(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	if len(waits) != 0 {
		t.Errorf("retried: %v", waits)
	}
	vs, e = newClient(src.URL+"/here/v1", &waits).Embed(context.Background(), []string{"a text"})
	if e != nil || len(vs) != 1 || own.Requests() != 1 {
		t.Errorf("same-origin redirect: %v, %d vectors, %d requests", e, len(vs), own.Requests())
	}
}

func TestSameOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8080/y", true},
		{"http://127.0.0.1:8080/x", "http://127.0.0.1:8081/x", false},
		{"http://h/x", "http://h:80/y", true},
		{"https://h/x", "http://h/x", false},
		{"https://H/x", "https://h:443/x", true},
		{"http://a/x", "http://b/x", false},
	} {
		a, _ := url.Parse(tc.a)
		b, _ := url.Parse(tc.b)
		if got := sameOrigin(a, b); got != tc.same {
			t.Errorf("sameOrigin(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// TestCheckBatchSize: the one bound of --batch-size (ll-embed and
// linkledger embed), with its words.
func TestCheckBatchSize(t *testing.T) {
	for n, ok := range map[int]bool{0: false, 1: true, DefaultBatchSize: true, MaxBatchSize: true, MaxBatchSize + 1: false, -3: false} {
		if err := CheckBatchSize(n); (err == nil) != ok {
			t.Errorf("CheckBatchSize(%d) = %v", n, err)
		}
	}
	if err := CheckBatchSize(0); err == nil || err.Error() != "batch-size 0: want 1..256" {
		t.Errorf("CheckBatchSize(0) = %v", err)
	}
}
