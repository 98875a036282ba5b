package web

// BenchmarkPages measures the server time of each page over a ledger of
// 10,000 items (make bench runs it; docs/benchmarks.md has the figures):
// median and p95 per page, the search page as a ratio to the in-process
// find it calls, and the page weight without the item's text. The ledger
// is seeded through its own methods (Index, SaveRecord).

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

var benchWords = strings.Fields(`memory agent link source retrieval index chunk token ranking evidence
highlight note search query store database write ahead log reader writer lock page text article
transcript video post thread author title summary claim budget pipeline filter record stream`)

func benchItem(i, chunks, words int) *record.Record {
	u := fmt.Sprintf("https://bench%d.example/post/%d", i%53, i)
	r := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle,
		Title: fmt.Sprintf("Post %d about %s and %s", i, benchWords[i%len(benchWords)], benchWords[(i*7)%len(benchWords)])}
	var all []string
	for c := 0; c < chunks; c++ {
		var b strings.Builder
		for w := 0; w < words; w++ {
			b.WriteString(benchWords[(i*31+c*17+w*w)%len(benchWords)])
			if w%12 == 11 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		t := strings.TrimSpace(b.String())
		all = append(all, t)
		r.Chunks = append(r.Chunks, record.Chunk{Index: c, Text: t, Tokens: words})
	}
	text := strings.Join(all, "\n\n")
	r.Text = &text
	r.Checksum = fmt.Sprintf("sha256:%d", i)
	return r
}

// benchLedger seeds 10,000 items of 4 chunks, one ~4 MB item, and agent
// and human highlights.
func benchLedger(b *testing.B) (path, bigID string) {
	ctx := context.Background()
	path = filepath.Join(b.TempDir(), "bench.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const size = 10000
	for i := 0; i < size; i++ {
		r := benchItem(i, 4, 60)
		if _, err := st.Index(ctx, r, spec.IndexOptions{}); err != nil {
			b.Fatal(err)
		}
		if i%20 == 0 {
			conf := float64(i%10) / 10
			actor := "agent:bench"
			if i%40 == 0 {
				actor = "human"
			}
			rec := &record.Record{ID: r.ID, Annotations: []record.Annotation{{Type: record.AnnHighlight, Text: r.Chunks[1].Text[:80], Actor: actor, Confidence: &conf}}}
			if _, err := st.SaveRecord(ctx, rec, spec.SaveOptions{Actor: actor}); err != nil {
				b.Fatal(err)
			}
		}
	}
	big := benchItem(size, 1600, 400) // ~4 MB of text
	if _, err := st.Index(ctx, big, spec.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	return path, big.ID
}

// timed runs f b.N times and reports the median and p95 in ms.
func timed(b *testing.B, f func()) {
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		f()
		d = append(d, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(d[len(d)*95/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkPages(b *testing.B) {
	path, bigID := benchLedger(b)
	ctx := context.Background()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{MustExist: true})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	h := signedIn(b, srv.Handler(), 7474)
	get := func(b *testing.B, path string) *httptest.ResponseRecorder { return benchGet(b, h, path) }
	pages := []struct{ name, path string }{
		{"home", "/"},
		{"search", "/search?q=memory+agent"},
		{"search-rare", "/search?q=post+4200+memory"},
		{"reader-4MB", "/items/" + bigID},
		{"reader", "/items/" + record.ItemID("https://bench20.example/post/20")},
		{"review", "/review"},
		{"highlights", "/highlights"},
		{"library", "/library"},
		{"library-unread-p50", "/library?show=unread&page=50"},
		{"library-starred", "/library?show=starred"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			var n int
			timed(b, func() { n = get(b, p.path).Body.Len() })
			b.ReportMetric(float64(n)/1024, "KiB")
		})
	}
	// the search page against the find it calls, interleaved so both
	// see the same cache and load: the ratio of their medians
	b.Run("search-vs-find", func(b *testing.B) {
		var page, find []time.Duration
		for range b.N {
			t0 := time.Now()
			get(b, "/search?q=memory+agent")
			t1 := time.Now()
			if _, err := l.Find(ctx, ledger.FindOptions{Query: "memory agent", Limit: perPage + 1}); err != nil {
				b.Fatal(err)
			}
			page, find = append(page, t1.Sub(t0)), append(find, time.Since(t1))
		}
		reportPageFind(b, page, find)
	})
}

// reportPageFind reports the medians of a page's and its find's times,
// and their ratio, after sorting both.
func reportPageFind(b *testing.B, page, find []time.Duration) {
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	p, f := med(page), med(find)
	b.ReportMetric(float64(p.Microseconds())/1000, "page-p50-ms")
	b.ReportMetric(float64(f.Microseconds())/1000, "find-p50-ms")
	b.ReportMetric(float64(p)/float64(f), "page/find")
}

// BenchmarkReaderBig is the reader of a ~4 MB item alone (no 10k seeding),
// for profiling the page.
func BenchmarkReaderBig(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "big.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	big := benchItem(1, 1600, 400)
	if _, err := st.Index(ctx, big, spec.IndexOptions{}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{MustExist: true})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	h := signedIn(b, srv.Handler(), 7474)
	timed(b, func() { benchGet(b, h, "/items/"+big.ID) })
}

// benchGet serves GET path with a session through h, and fails on
// anything but 200.
func benchGet(b *testing.B, h http.Handler, path string) *httptest.ResponseRecorder {
	req := httptest.NewRequest("GET", "http://127.0.0.1:7474"+path, nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 {
		b.Fatalf("%s: %d\n%s", path, w.Code, w.Body.String())
	}
	return w
}

// BenchmarkSearchHybrid is the search page ranked hybrid (the fake
// embeddings endpoint on loopback) over 2,000 items of 4 chunks with
// vectors of its model, interleaved with the ledger.Find it calls (the
// same options and endpoint): the ratio of their medians is what the page
// adds to the ranking.
func BenchmarkSearchHybrid(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "hybrid.db")
	st, err := ledger.Open(ctx, path, ledger.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	const model = "hash-64"
	for i := range 2000 {
		r := benchItem(i, 4, 60)
		for c := range r.Chunks {
			r.Chunks[c].Embedding = embed.Encode(embedfake.Vector(model, r.Chunks[c].Text))
		}
		r.Embed = &record.EmbedInfo{Model: model, Dimensions: 64, Chunks: len(r.Chunks)}
		if _, err := st.Index(ctx, r, spec.IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	st.Close()
	l, err := ledger.Open(ctx, path, ledger.OpenOptions{MustExist: true})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	fake := httptest.NewServer(&embedfake.Server{})
	defer fake.Close()
	e := ledger.QueryClient(&embed.Client{URL: fake.URL + "/v1", Model: model})
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken, Embedder: e})
	if err != nil {
		b.Fatal(err)
	}
	h := signedIn(b, srv.Handler(), 7474)
	var page, find []time.Duration
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if w := benchGet(b, h, "/search?q=memory+agent"); !strings.Contains(w.Body.String(), "Ranked hybrid.") {
			b.Fatal("the page did not rank hybrid")
		}
		t1 := time.Now()
		res, err := l.Find(ctx, ledger.FindOptions{Query: "memory agent", Limit: perPage + 1, Embedder: e})
		if err != nil || res.Mode != "hybrid" {
			b.Fatalf("find: %v %+v", err, res)
		}
		page, find = append(page, t1.Sub(t0)), append(find, time.Since(t1))
	}
	b.StopTimer()
	reportPageFind(b, page, find)
	b.ReportMetric(float64(page[len(page)*95/100].Microseconds())/1000, "page-p95-ms")
}
