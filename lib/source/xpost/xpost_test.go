package xpost

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/internal/sharedtest"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// fakeX serves the three upstreams from files: a value is a testdata file
// name or an HTTP status ("404", "429", "500"). Missing ids are 404.
type fakeX struct {
	dir             string
	syndication, fx map[string]string
	oembed          map[string]string
	mu              sync.Mutex
	requests        []string
}

var statusPathRE = regexp.MustCompile(`^/([^/]+)/status/(\d+)$`)

func (f *fakeX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	f.mu.Unlock()
	serve := func(m map[string]string, id string) {
		name, ok := m[id]
		switch {
		case !ok || name == "404":
			http.Error(w, "", http.StatusNotFound)
		case name == "429":
			http.Error(w, "", http.StatusTooManyRequests)
		case name == "500":
			http.Error(w, "", http.StatusInternalServerError)
		default:
			dir := f.dir
			if dir == "" {
				dir = "testdata"
			}
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
		}
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/syn/tweet-result":
		if q.Get("token") != SyndicationToken(q.Get("id")) || q.Get("lang") != "en" {
			http.Error(w, "bad token", http.StatusBadRequest)
			return
		}
		serve(f.syndication, q.Get("id"))
	case r.URL.Path == "/oe/oembed":
		m := regexp.MustCompile(`/status/(\d+)$`).FindStringSubmatch(q.Get("url"))
		if m == nil {
			http.Error(w, "bad url", http.StatusBadRequest)
			return
		}
		serve(f.oembed, m[1])
	case strings.HasPrefix(r.URL.Path, "/fx/"):
		m := statusPathRE.FindStringSubmatch(strings.TrimPrefix(r.URL.Path, "/fx"))
		if m == nil {
			http.NotFound(w, r)
			return
		}
		serve(f.fx, m[2])
	default:
		http.NotFound(w, r)
	}
}

func runX(t *testing.T, f *fakeX, url string) (*Bundle, *parse.Result, error) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	opts := Options{SyndicationBase: srv.URL + "/syn", FxBase: srv.URL + "/fx", OEmbedBase: srv.URL + "/oe"}
	body, ct, source, err := Fetcher(opts)(context.Background(), srv.Client(), &record.Record{URL: url})
	if err != nil {
		return nil, nil, err
	}
	var b Bundle
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	if ct != ContentType || source != b.Source {
		t.Errorf("content type %q source %q (bundle %q)", ct, source, b.Source)
	}
	s := string(body)
	rec := &record.Record{URL: url, Body: &s, Fetch: &record.FetchInfo{ContentType: ct, Source: source}}
	if !Adapter().Match(rec) {
		t.Fatal("adapter does not match the bundle record")
	}
	res, err := Adapter().Parse(rec)
	if err == nil {
		noTco(t, res)
	}
	return &b, res, err
}

func noTco(t *testing.T, res *parse.Result) {
	t.Helper()
	for _, s := range res.Segments {
		if strings.Contains(s.Text, "t.co/") {
			t.Errorf("t.co link left in %q", s.Text)
		}
	}
}

func texts(segs []parse.Segment) []string {
	var out []string
	for _, s := range segs {
		out = append(out, s.Text)
	}
	return out
}

func TestSyndication(t *testing.T) {
	f := &fakeX{syndication: map[string]string{"100": "syndication_100.json"}}
	b, res, err := runX(t, f, "https://twitter.com/LedgerDev/status/100?s=20")
	if err != nil {
		t.Fatal(err)
	}
	if b.Source != SourceSyndication || len(b.FallbackFrom) != 0 || len(f.requests) != 1 {
		t.Errorf("source %q fallback %q requests %q", b.Source, b.FallbackFrom, f.requests)
	}
	segs := texts(res.Segments)
	res.Segments = nil
	want := &parse.Result{
		Title:       "Ledger Dev on X: “Shipping the link ledger today & it keeps every source: https://example.com/notes/ledger-design”",
		Author:      "Ledger Dev (@ledgerdev)",
		PublishedAt: "2024-05-01T12:30:00Z",
		SiteName:    "X", Lang: "en",
		Excerpt:    "Shipping the link ledger today & it keeps every source: https://example.com/notes/ledger-design",
		SourceType: "x", Source: SourceSyndication,
	}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	wantSegs := []string{
		"Shipping the link ledger today & it keeps every source: https://example.com/notes/ledger-design",
		"Image description: A terminal running ll-find with three results",
		"Quoting @otherperson: What would a memory of links for agents look like? https://example.org/essay",
	}
	if d := cmp.Diff(wantSegs, segs); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
}

func TestSyndicationShapes(t *testing.T) {
	tests := []struct {
		name, id string
		want     []string
	}{
		{"poll", "200", []string{"Which store should the ledger use?", "Poll: SQLite / Postgres / Flat files"}},
		{"self-thread keeps the author's earlier post first", "301", []string{"1/ A thread about capture.", "2/ The second post of the thread explains the pipeline."}},
		{"reply to someone else keeps only the reply", "401", []string{"@someoneelse I disagree, and here is why."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeX{syndication: map[string]string{tt.id: "syndication_" + tt.id + ".json"}}
			_, res, err := runX(t, f, "https://x.com/ledgerdev/status/"+tt.id)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, texts(res.Segments)); d != "" {
				t.Errorf("segments (-want +got):\n%s", d)
			}
		})
	}
}

func TestFallbacks(t *testing.T) {
	t.Run("syndication 404 falls back to fxtwitter", func(t *testing.T) {
		f := &fakeX{fx: map[string]string{"500": "fx_500.json"}}
		b, res, err := runX(t, f, "https://x.com/ledgerdev/status/500")
		if err != nil {
			t.Fatal(err)
		}
		if b.Source != SourceFxTwitter || res.Source != SourceFxTwitter {
			t.Errorf("source %q / %q", b.Source, res.Source)
		}
		if d := cmp.Diff([]string{"x-syndication: http 404"}, b.FallbackFrom); d != "" {
			t.Errorf("fallback_from (-want +got):\n%s", d)
		}
		want := []string{
			"Long form notes are in https://example.com/long and the chart is attached",
			"Image description: Bar chart of saves per day",
			"Poll: Daily / Weekly",
			"Quoting @otherperson: What would a memory of links for agents look like?",
		}
		if d := cmp.Diff(want, texts(res.Segments)); d != "" {
			t.Errorf("segments (-want +got):\n%s", d)
		}
		if res.PublishedAt != "2024-07-03T14:15:16Z" || res.Author != "Ledger Dev (@ledgerdev)" {
			t.Errorf("published %q author %q", res.PublishedAt, res.Author)
		}
	})
	t.Run("tombstone and fx 404 fall back to oembed", func(t *testing.T) {
		f := &fakeX{
			syndication: map[string]string{"600": "syndication_tombstone.json"},
			fx:          map[string]string{"600": "fx_404.json"},
			oembed:      map[string]string{"600": "oembed_600.json"},
		}
		b, res, err := runX(t, f, "https://x.com/ledgerdev/status/600")
		if err != nil {
			t.Fatal(err)
		}
		if b.Source != SourceOEmbed || len(b.FallbackFrom) != 2 {
			t.Errorf("source %q fallback %q", b.Source, b.FallbackFrom)
		}
		if d := cmp.Diff([]string{"Only oEmbed knows this one & it has a link\nand a tag #golang"}, texts(res.Segments)); d != "" {
			t.Errorf("segments (-want +got):\n%s", d)
		}
		if res.PublishedAt != "2024-07-04T00:00:00Z" || res.Author != "Ledger Dev (@ledgerdev)" || res.Lang != "en" {
			t.Errorf("published %q author %q lang %q", res.PublishedAt, res.Author, res.Lang)
		}
	})
	t.Run("syndication answering for another post falls back", func(t *testing.T) {
		f := &fakeX{syndication: map[string]string{"500": "syndication_100.json"}, fx: map[string]string{"500": "fx_500.json"}}
		b, _, err := runX(t, f, "https://x.com/ledgerdev/status/500")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"x-syndication: answer is for post 100"}, b.FallbackFrom); d != "" || b.Source != SourceFxTwitter {
			t.Errorf("source %q fallback_from (-want +got):\n%s", b.Source, d)
		}
	})
	tests := []struct {
		name      string
		f         *fakeX
		wantRetry bool
		wantMsg   string
	}{
		{"all 404", &fakeX{fx: map[string]string{"9": "fx_404.json"}}, false,
			"x: no source answered: x-syndication: http 404; x-fxtwitter: code 404 not_found; x-oembed: http 404"},
		{"a rate limit makes it retryable", &fakeX{syndication: map[string]string{"9": "429"}, oembed: map[string]string{"9": "500"}}, true,
			"x: no source answered: x-syndication: http 429; x-fxtwitter: http 404; x-oembed: http 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runX(t, tt.f, "https://x.com/someone/status/9")
			var re *record.Error
			if !errors.As(err, &re) || re.Code != record.CodeUpstream || re.Retryable != tt.wantRetry || re.Message != tt.wantMsg {
				t.Fatalf("error = %#v", err)
			}
			if len(tt.f.requests) != 3 {
				t.Errorf("requests = %q", tt.f.requests)
			}
		})
	}
}

func TestGraphQLThread(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "graphql_detail_701.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ParseBundle(&Bundle{Kind: "x", Version: 1, StatusID: "701", Source: SourceGraphQL, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	noTco(t, res)
	want := []string{
		"A thread on retrieval, part one.",
		"Part two: chunks keep their start time, so every answer links to the moment it came from https://example.com/chunks",
		"Image description: Diagram of chunks with timestamps",
		"Poll: Seconds / Pages",
		"Part three & the end.",
	}
	if d := cmp.Diff(want, texts(res.Segments)); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
	if res.PublishedAt != "2024-07-08T09:01:00Z" || res.Source != SourceGraphQL {
		t.Errorf("published %q source %q", res.PublishedAt, res.Source)
	}
}

func TestBadURL(t *testing.T) {
	_, _, err := runX(t, &fakeX{}, "https://x.com/someone")
	var re *record.Error
	if !errors.As(err, &re) || re.Code != record.CodeBadURL {
		t.Fatalf("error = %v", err)
	}
}

// sharedFixtures returns ../shared/fixtures/x from the repository root, or
// skips.
func sharedFixtures(t *testing.T) string { return sharedtest.Dir(t, "fixtures", "x") }

func TestSharedFixtures(t *testing.T) {
	dir := sharedFixtures(t)
	t.Run("syndication", func(t *testing.T) {
		f := &fakeX{dir: dir, syndication: map[string]string{"1703436713362870723": "syndication/tweet-result-1703436713362870723.json"}}
		_, res, err := runX(t, f, "https://twitter.com/rhaksw/status/1703436713362870723")
		if err != nil {
			t.Fatal(err)
		}
		text := res.Segments[0].Text
		if !strings.Contains(text, "https://reddit.com/r/technology/comments/16jlhj7/we_are_senator_ron_wyden_fight_for_the_future/") ||
			!strings.HasPrefix(text, "Senator @RonWyden is doing an AMA") {
			t.Errorf("text = %q", text)
		}
		if res.Author != "Robert Hawkins (@rhaksw)" || res.PublishedAt != "2023-09-17T15:52:15Z" {
			t.Errorf("author %q published %q", res.Author, res.PublishedAt)
		}
	})
	t.Run("oembed", func(t *testing.T) {
		f := &fakeX{dir: dir, oembed: map[string]string{"666616452582129664": "oembed/publish.twitter.com-oembed-666616452582129664.json"}}
		_, res, err := runX(t, f, "https://twitter.com/spf13/status/666616452582129664")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"Hugo 0.15 will have 30%+ faster render times thanks to this commit #gohugo #golang"}, texts(res.Segments)); d != "" {
			t.Errorf("segments (-want +got):\n%s", d)
		}
		if res.Author != "Steve Francia (@spf13)" || res.PublishedAt != "2015-11-17T00:00:00Z" {
			t.Errorf("author %q published %q", res.Author, res.PublishedAt)
		}
	})
	graphql := []struct {
		id, wantAuthor, wantIn string
		wantPoll               bool
		wantQuote              bool
	}{
		{id: "20", wantAuthor: "jack (@jack)", wantIn: "just setting up my twttr"},
		{id: "1848831595014459513", wantAuthor: "SpaceX (@SpaceX)", wantIn: "Flight 6 Super Heavy booster moved"},
		{id: "1899954694652309701", wantIn: "You can only pick ONE ship", wantPoll: true},
		{id: "1902059299591090335", wantQuote: true},
		{id: "1841206275088290279"},
	}
	for _, g := range graphql {
		for _, file := range []string{g.id + ".json", "detail-" + g.id + ".json"} {
			t.Run("graphql/"+file, func(t *testing.T) {
				data, err := os.ReadFile(filepath.Join(dir, "graphql", file))
				if err != nil {
					t.Skip(err)
				}
				res, err := ParseBundle(&Bundle{Kind: "x", Version: 1, StatusID: g.id, Source: SourceGraphQL, Data: data})
				if err != nil {
					t.Fatal(err)
				}
				noTco(t, res)
				all := strings.Join(texts(res.Segments), "\n")
				if g.wantAuthor != "" && res.Author != g.wantAuthor {
					t.Errorf("author = %q, want %q", res.Author, g.wantAuthor)
				}
				if !strings.Contains(all, g.wantIn) {
					t.Errorf("text %q lacks %q", all, g.wantIn)
				}
				if g.wantPoll != strings.Contains(all, "Poll: MISC Freelancer / Anvil Carrack / Drake Cutlass (Any?) / Origin 600i") {
					t.Errorf("poll presence wrong in %q", all)
				}
				if g.wantQuote != strings.Contains(all, "Quoting @") {
					t.Errorf("quote presence wrong in %q", all)
				}
				if res.PublishedAt == "" {
					t.Error("no published_at")
				}
			})
		}
	}
}
