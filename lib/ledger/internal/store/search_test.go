package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// doc is a test item: its chunks and intent (tags, annotations).
type doc struct {
	url, title, typ string
	chunks          []string
	tags            []string
	anns            []record.Annotation
	startS          []float64
}

func addDocs(t *testing.T, s *Store, docs ...doc) {
	t.Helper()
	ctx := context.Background()
	for _, d := range docs {
		rec := item(d.url)
		if d.typ != "" {
			rec.SourceType = d.typ
		}
		rec.Title = d.title
		rec.Fetch = &record.FetchInfo{Source: "test"} // fetched content (see TestContentFromRecord)
		text := strings.Join(d.chunks, "\n\n")
		rec.Text = &text
		for i, c := range d.chunks {
			ch := record.Chunk{Index: i, Text: c, Tokens: len(strings.Fields(c))}
			if i < len(d.startS) {
				v := d.startS[i]
				ch.StartS = &v
			}
			rec.Chunks = append(rec.Chunks, ch)
		}
		if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
			t.Fatalf("index %s: %v", d.url, err)
		}
		if len(d.tags) > 0 || len(d.anns) > 0 {
			in := item(d.url)
			in.Tags = d.tags
			in.Annotations = d.anns
			if _, err := s.Save(ctx, in, SaveOptions{}); err != nil {
				t.Fatalf("save %s: %v", d.url, err)
			}
		}
	}
}

// addFiller adds unrelated items so that bm25's idf is positive for the
// test terms (a term in most rows of a tiny index has an idf near zero).
func addFiller(t *testing.T, s *Store, n int) {
	t.Helper()
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	for i := 0; i < n; i++ {
		addDocs(t, s, doc{url: "https://filler.test/" + words[i%len(words)] + strings.Repeat("x", i), title: "Filler " + words[i%len(words)],
			chunks: []string{strings.Repeat(words[(i+3)%len(words)]+" lorem ipsum ", 3)}})
	}
}

func search(t *testing.T, s *Store, opts SearchOptions) *SearchResult {
	t.Helper()
	res, err := s.Search(context.Background(), opts)
	if err != nil {
		t.Fatalf("search %q: %v", opts.Text, err)
	}
	return res
}

// searchExact is search with exact row counts (no sampling).
func searchExact(t *testing.T, s *Store, opts SearchOptions) *SearchResult {
	t.Helper()
	res, err := s.searchWith(context.Background(), searchOpts{SearchOptions: opts, exactCounts: true})
	if err != nil {
		t.Fatalf("search %q: %v", opts.Text, err)
	}
	return res
}

func urls(res *SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, strings.TrimPrefix(h.CanonicalURL, "https://t.test/"))
	}
	return out
}

func TestSearchRanksTitleAboveBody(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/body", title: "Gardening notes", chunks: []string{"Plants need sun. Compost helps tomatoes grow."}},
		doc{url: "https://t.test/title", title: "Tomatoes", chunks: []string{"A plant that needs sun and water in summer."}},
		doc{url: "https://t.test/none", title: "Databases", chunks: []string{"SQLite stores data in one file."}},
	)
	got := urls(search(t, s, SearchOptions{Text: "tomatoes"}))
	if diff := cmp.Diff([]string{"title", "body"}, got); diff != "" {
		t.Errorf("default weights (-want +got):\n%s", diff)
	}
	w := DefaultWeights
	w.Title, w.Body = 0.1, 10
	got = urls(search(t, s, SearchOptions{Text: "tomatoes", Weights: w}))
	if diff := cmp.Diff([]string{"body", "title"}, got); diff != "" {
		t.Errorf("body-heavy weights (-want +got):\n%s", diff)
	}
}

func TestSearchAnyTextAndMissingWords(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s, doc{url: "https://t.test/a", title: "Running", chunks: []string{"The runners ran in the café near the station."}})
	for _, q := range []string{`"running`, "AND", "run* OR (", "-café", "title:zebra runner", "CAFE unicorn", strings.Repeat("words of the paragraph run ", 60), "🚀"} {
		res := search(t, s, SearchOptions{Text: q})
		want := 1
		if q == "AND" || q == "🚀" {
			want = 0
		}
		if len(res.Hits) != want {
			t.Errorf("%q: %d hits, want %d", q, len(res.Hits), want)
		}
	}
}

func TestSearchWhyRanked(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/pinned", title: "Solar panels", chunks: []string{"Solar panels convert light."},
			anns: []record.Annotation{{Type: "highlight", Text: "efficiency is key", Actor: "human", Pinned: true}}},
		doc{url: "https://t.test/plain", title: "Solar panels", chunks: []string{"Solar panels convert light."}},
		doc{url: "https://t.test/lowconf", title: "Solar panels", chunks: []string{"Solar panels convert light. No solar subsidies."},
			anns: []record.Annotation{{Type: "highlight", Text: "solar subsidies", Actor: "agent:x", Confidence: conf(0.2)}}},
	)
	res := search(t, s, SearchOptions{Text: "solar"})
	if diff := cmp.Diff([]string{"pinned", "plain", "lowconf"}, urls(res)); diff != "" {
		t.Fatalf("order (-want +got):\n%s", diff)
	}
	p, l := res.Hits[0].Hit.WhyRanked, res.Hits[2].Hit.WhyRanked
	if p.PinnedBoost != DefaultWeights.PinnedBoost || p.RankingScore != round(p.BM25+p.PinnedBoost) {
		t.Errorf("pinned why = %+v", p)
	}
	if l.LowConfidencePenalty != DefaultWeights.LowConfidencePenalty || !strings.Contains(strings.Join(l.MatchedFields, ","), "annotations") {
		t.Errorf("low-confidence why = %+v", l)
	}
	if diff := cmp.Diff([]string{"solar"}, p.MatchedTerms); diff != "" {
		t.Errorf("matched terms (-want +got):\n%s", diff)
	}
	if got := res.Hits[0].Hit.Highlights; len(got) != 1 || !got[0].Pinned {
		t.Errorf("highlights = %+v", got)
	}
	if len(res.Hits[1].Hit.Snippets) != 1 || res.Hits[1].Hit.Snippets[0].Text != "Solar panels convert light." {
		t.Errorf("snippets = %+v", res.Hits[1].Hit.Snippets)
	}
}

func TestSearchFilters(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/a", title: "Rust async", chunks: []string{"async runtimes"}, tags: []string{"rust", "async"}},
		doc{url: "https://t.test/b", title: "Go async", chunks: []string{"async goroutines"}, tags: []string{"go", "async"},
			anns: []record.Annotation{{Type: "note", Text: "read later", Actor: "agent:bot"}}},
		doc{url: "https://t.test/c", title: "Async video", typ: "youtube", chunks: []string{"async talk"}},
	)
	tests := []struct {
		name string
		f    Filter
		want []string
	}{
		{"none", Filter{}, []string{"a", "b", "c"}},
		{"tags all of", Filter{Tags: []string{"async", "go"}}, []string{"b"}},
		{"type", Filter{Type: "youtube"}, []string{"c"}},
		{"actor", Filter{Actor: "agent:bot"}, []string{"b"}},
		{"status", Filter{Status: "saved"}, nil},
		{"until past", Filter{Until: time.Now().Add(-time.Hour)}, nil},
		{"since past", Filter{Since: time.Now().Add(-time.Hour)}, []string{"a", "b", "c"}},
	}
	for _, tt := range tests {
		got := urls(search(t, s, SearchOptions{Text: "async", Filter: tt.f}))
		if tt.name == "none" || tt.name == "since past" {
			// equal scores: order by id; compare as a set
			sortStrings(got)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

func TestSearchCJKAndDeepLinks(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/jp", title: "機械学習入門", chunks: []string{"東京で機械学習を学ぶ。"}},
		doc{url: "https://www.youtube.com/watch?v=abc", title: "Talk", typ: "youtube", chunks: []string{"intro", "the keynote about gophers"}, startS: []float64{0, 125.5}},
	)
	for _, q := range []string{"機械学習", "東京", "学習 入門"} {
		if got := urls(search(t, s, SearchOptions{Text: q})); len(got) != 1 || got[0] != "jp" {
			t.Errorf("%q: got %v", q, got)
		}
	}
	res := search(t, s, SearchOptions{Text: "gophers"})
	if len(res.Hits) != 1 || len(res.Hits[0].Hit.Snippets) != 1 {
		t.Fatalf("youtube hits %+v", res.Hits)
	}
	if got, want := res.Hits[0].Hit.Snippets[0].URL, "https://www.youtube.com/watch?v=abc&t=125s"; got != want {
		t.Errorf("deep link %q, want %q", got, want)
	}
}

func TestSearchLimitOffsetAndStale(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := openTest(t)
	s.now = func() time.Time { return now }
	addDocs(t, s,
		doc{url: "https://t.test/1", title: "kiwi kiwi kiwi", chunks: []string{"kiwi"}},
		doc{url: "https://t.test/2", title: "kiwi kiwi", chunks: []string{"kiwi"}},
		doc{url: "https://t.test/3", title: "kiwi", chunks: []string{"fruit"}},
	)
	all := urls(search(t, s, SearchOptions{Text: "kiwi"}))
	page := urls(search(t, s, SearchOptions{Text: "kiwi", Limit: 1, Offset: 1}))
	if len(all) != 3 || len(page) != 1 || page[0] != all[1] {
		t.Fatalf("all %v, page %v", all, page)
	}
	s.now = func() time.Time { return now.Add(40 * 24 * time.Hour) }
	res := search(t, s, SearchOptions{Text: "kiwi", StaleAfter: 30 * 24 * time.Hour})
	if len(res.StaleIDs) != 3 || res.Hits[0].Revalidate == nil || !res.Hits[0].Revalidate.Due {
		t.Fatalf("stale %v, revalidate %+v", res.StaleIDs, res.Hits[0].Revalidate)
	}
	if err := s.MarkRevalidate(context.Background(), res.StaleIDs); err != nil {
		t.Fatal(err)
	}
	var n int
	s.DB().Get(&n, `SELECT count(*) FROM items WHERE revalidate_due = 1`)
	if n != 3 {
		t.Errorf("revalidate_due on %d items, want 3", n)
	}
}

func TestSearchBoundedScoresLikeUnbounded(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 5) // "lorem" and "ipsum" in every filler row
	addDocs(t, s,
		doc{url: "https://t.test/k1", title: "Kiwi lorem", chunks: []string{"kiwi lorem ipsum kiwi"}},
		doc{url: "https://t.test/k2", title: "Kiwi", chunks: []string{"kiwi and lorem"}},
		doc{url: "https://t.test/k3", title: "Fruit", chunks: []string{"a kiwi"}},
	)
	full := search(t, s, SearchOptions{Text: "kiwi lorem ipsum", ScanRows: -1})
	bounded := search(t, s, SearchOptions{Text: "kiwi lorem ipsum", ScanRows: 8})
	if diff := cmp.Diff([]string{"lorem", "ipsum"}, bounded.Terms[1:]); diff != "" {
		t.Errorf("bounded terms (-want +got):\n%s", diff)
	}
	score := map[string]float64{}
	for _, h := range full.Hits {
		score[h.ID] = h.Hit.WhyRanked.BM25
	}
	if len(bounded.Hits) != 3 {
		t.Fatalf("bounded hits %v", urls(bounded))
	}
	for _, h := range bounded.Hits {
		if got, want := h.Hit.WhyRanked.BM25, score[h.ID]; math.Abs(got-want) > 1e-4 {
			t.Errorf("%s: bounded bm25 %v, unbounded %v", h.CanonicalURL, got, want)
		}
	}
	if diff := cmp.Diff(urls(full)[:3], urls(bounded)); diff != "" {
		t.Errorf("order (-unbounded +bounded):\n%s", diff)
	}
}

// TestSearchFindsByAnnotationsOnly: an item whose chunks lack the query
// words is found through its highlight or note, ranked with the annotation
// weight, and says the annotations matched; items matched in their text
// keep their item row's share of the score.
func TestSearchFindsByAnnotationsOnly(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/noted", title: "Wind farms", chunks: []string{"Turbines turn in the wind."},
			anns: []record.Annotation{{Type: "note", Text: "compare with geothermal plants", Actor: "human"}}},
		doc{url: "https://t.test/text", title: "Energy", chunks: []string{"Geothermal plants tap heat underground.", "Other sources exist."}},
	)
	res := search(t, s, SearchOptions{Text: "geothermal"})
	if diff := cmp.Diff([]string{"text", "noted"}, urls(res)); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	why := res.Hits[1].Hit.WhyRanked
	if diff := cmp.Diff([]string{"annotations"}, why.MatchedFields); diff != "" {
		t.Errorf("annotation-only hit: matched fields (-want +got):\n%s", diff)
	}
	if why.BM25 <= 0 {
		t.Errorf("annotation-only hit has no bm25: %+v", why)
	}
	// The text hit's score is its best chunk plus Doc × its item row: more
	// than the chunk alone.
	alone := search(t, s, SearchOptions{Text: "geothermal", Weights: Weights{Title: 2, Body: 1, Annotations: 2, Doc: 1e-9}})
	if got, chunkOnly := res.Hits[0].Hit.WhyRanked.BM25, alone.Hits[0].Hit.WhyRanked.BM25; got <= chunkOnly {
		t.Errorf("text hit bm25 %v, want more than its chunk's %v (item row share missing)", got, chunkOnly)
	}
}

// TestSearchAllCommonTermsNewestFirst: when every term matches more than
// 3 × ScanRows rows, no bm25 is computed (it would read every doclist
// whole): the newest matching chunks come first, with relevance 0, and the
// number of hits is still bounded by the limit. Between ScanRows and 3 ×
// ScanRows, the newest rows are ranked by bm25.
func TestSearchAllCommonTermsNewestFirst(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12) // "lorem ipsum" in every filler chunk, oldest first
	res := search(t, s, SearchOptions{Text: "lorem ipsum", ScanRows: 4, Limit: 5})
	if len(res.Hits) != 5 {
		t.Fatalf("hits = %d, want 5", len(res.Hits))
	}
	for _, h := range res.Hits {
		if h.Hit.WhyRanked.BM25 != 0 {
			t.Errorf("%s: bm25 %v, want 0 (terms too common to rank)", h.CanonicalURL, h.Hit.WhyRanked.BM25)
		}
	}
	// addFiller's i-th item has a URL ending in i x's: newest has the most.
	var got []int
	for _, h := range res.Hits {
		got = append(got, strings.Count(h.CanonicalURL, "x"))
	}
	if diff := cmp.Diff([]int{11, 10, 9, 8, 7}, got); diff != "" {
		t.Errorf("order, newest first (-want +got):\n%s", diff)
	}
	// 24 rows per term (12 chunk rows, 12 item rows): at ScanRows 10 the
	// counts are bounded (≤ 30), so the newest rows are ranked by bm25; with
	// the bound lifted, all rows are.
	for _, scan := range []int{10, -1} {
		res := search(t, s, SearchOptions{Text: "lorem ipsum", ScanRows: scan, Limit: 5})
		if len(res.Hits) == 0 || res.Hits[0].Hit.WhyRanked.BM25 == 0 {
			t.Errorf("scan rows %d: want hits ranked by bm25, got %+v", scan, res.Hits)
		}
	}
}

// TestSearchSampledCountsClassifyLikeExact: in a store big enough for
// pruneCommon to count terms in a window of the newest rows first, a query
// mixing a rare, a middling and a very common word keeps, rescores and
// drops the same terms, and finds the same items, as exact counting.
func TestSearchSampledCountsClassifyLikeExact(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	var docs []doc
	for i := range 110 {
		c1, c2 := "common words fill this chunk", "common words fill that chunk too"
		if i < 2 {
			c1 += " rare"
		}
		if i%20 == 5 {
			c2 += " middle"
		}
		docs = append(docs, doc{url: fmt.Sprintf("https://t.test/s%03d", i), title: fmt.Sprintf("Doc %d", i), chunks: []string{c1, c2}})
	}
	addDocs(t, s, docs...)
	opts := SearchOptions{Text: "rare middle common", ScanRows: 5, Limit: 5}
	sampled := search(t, s, opts)
	exact := searchExact(t, s, opts)
	if diff := cmp.Diff(exact.Terms, sampled.Terms); diff != "" {
		t.Errorf("terms (-exact +sampled):\n%s", diff)
	}
	if diff := cmp.Diff(exact.Dropped, sampled.Dropped); diff != "" {
		t.Errorf("dropped (-exact +sampled):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"common"}, sampled.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(urls(exact), urls(sampled)); diff != "" {
		t.Errorf("hits (-exact +sampled):\n%s", diff)
	}
	if got := urls(sampled); len(got) < 2 || got[0] != "s000" && got[0] != "s001" {
		t.Errorf("the rare word's items should come first: %v", got)
	}
}

// TestSearchCommonTermsKeepOldTitlesAndNotes: when a term is too common
// for every match to be ranked (the newest ScanRows matches are, or none
// are by bm25), items that carry it in their title or in a highlight or
// note are still found however old they are (ranked by bm25 when the
// newest rows are; without bm25, before the items that only mention it in
// their text).
func TestSearchCommonTermsKeepOldTitlesAndNotes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		scan   int
		ranked bool
	}{
		{"ranked newest rows", 10, true}, // 2 × 12+ rows ≤ 3 × 10: bm25 on the newest
		{"unranked", 4, false},           // > 3 × 4 rows: no bm25
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openTest(t)
			addDocs(t, s,
				doc{url: "https://t.test/old-title", title: "Lorem handbook", chunks: []string{"An old guide to typesetting."}},
				doc{url: "https://t.test/old-note", title: "Typesetting", chunks: []string{"Another old page."},
					anns: []record.Annotation{{Type: "highlight", Text: "the lorem origin story", Actor: "human"}}},
			)
			addFiller(t, s, 12) // newer: "lorem ipsum" in every chunk
			res := search(t, s, SearchOptions{Text: "lorem", ScanRows: tc.scan, Limit: 14})
			pos := map[string]int{}
			for i, u := range urls(res) {
				pos[u] = i + 1
			}
			for _, u := range []string{"old-title", "old-note"} {
				switch {
				case pos[u] == 0:
					t.Errorf("%s not found: %v", u, urls(res))
				case !tc.ranked && pos[u] > 2:
					t.Errorf("%s at %d, want it before the text-only matches: %v", u, pos[u], urls(res))
				}
			}
			for _, h := range res.Hits {
				if ranked := h.Hit.WhyRanked.BM25 > 0; ranked != tc.ranked {
					t.Errorf("%s: bm25 %v, want ranked=%v", h.CanonicalURL, h.Hit.WhyRanked.BM25, tc.ranked)
				}
			}
		})
	}
}

// TestSearchFilterFindsOldMatches: a selective filter (a tag few items
// carry) is applied before the bounds on common terms, so an old tagged
// item that mentions the query only in its text is found even when the
// newest matches are all untagged, ranked or not; a filter most items pass
// gives the same hits as filtering the unfiltered results.
func TestSearchFilterFindsOldMatches(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addDocs(t, s, doc{url: "https://t.test/old-tagged", title: "Notes", chunks: []string{"some lorem text, long ago"}, tags: []string{"rare"}})
	addFiller(t, s, 12) // newer: "lorem ipsum" in every chunk, untagged
	for _, tc := range []struct {
		name string
		scan int
	}{{"ranked newest rows", 10}, {"unranked", 4}, {"unbounded", -1}} {
		res := search(t, s, SearchOptions{Text: "lorem", ScanRows: tc.scan, Filter: Filter{Tags: []string{"rare"}}})
		if diff := cmp.Diff([]string{"old-tagged"}, urls(res)); diff != "" {
			t.Errorf("%s: hits (-want +got):\n%s", tc.name, diff)
		}
	}
	// A filter (almost) every item passes: the same order as unfiltered.
	all := urls(search(t, s, SearchOptions{Text: "lorem ipsum", ScanRows: 10, Limit: 20}))
	since := urls(search(t, s, SearchOptions{Text: "lorem ipsum", ScanRows: 10, Limit: 20, Filter: Filter{Since: time.Unix(0, 0)}}))
	if diff := cmp.Diff(all, since); diff != "" {
		t.Errorf("--since epoch changed the hits (-unfiltered +filtered):\n%s", diff)
	}
}

// TestSearchCJKBounded: a CJK run found in more than 3 × ScanRows rows of
// the trigram index is not ranked by bm25 (its idf would read every
// match): the newest matching chunks are taken, after the items whose
// title or annotations contain it, however old; under the bound the CJK
// matches are ranked as before.
func TestSearchCJKBounded(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addDocs(t, s, doc{url: "https://t.test/old-title", title: "東京の地図", chunks: []string{"古い地図の話。"}})
	var docs []doc
	for i := range 8 {
		docs = append(docs, doc{url: fmt.Sprintf("https://t.test/n%d", i), title: fmt.Sprintf("日記 %d", i), chunks: []string{"今日も東京の街を歩いた。"}})
	}
	addDocs(t, s, docs...)
	res := search(t, s, SearchOptions{Text: "東京の", ScanRows: 2, Limit: 3})
	if got := urls(res); len(got) != 3 || got[0] != "old-title" || got[1] != "n7" || got[2] != "n6" {
		t.Errorf("unranked CJK hits %v, want old-title (title match), then the newest: n7, n6", got)
	}
	for _, h := range res.Hits {
		if h.Hit.WhyRanked.BM25 != 0 {
			t.Errorf("%s: bm25 %v, want 0 (run too common to rank)", h.CanonicalURL, h.Hit.WhyRanked.BM25)
		}
	}
	res = search(t, s, SearchOptions{Text: "東京の", ScanRows: -1, Limit: 20})
	if len(res.Hits) != 9 || res.Hits[0].Hit.WhyRanked.BM25 <= 0 {
		t.Errorf("unbounded: %d hits, first %+v; want 9 ranked by bm25", len(res.Hits), res.Hits[0].Hit.WhyRanked)
	}
}

// TestSearchDetailed: hits past Detailed keep their rank, score and
// annotations but carry no snippets and no matched fields or terms; the
// order and scores are those of a fully detailed search.
func TestSearchDetailed(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/a", title: "Tide pools", chunks: []string{"Tide pools hold anemones and crabs."}},
		doc{url: "https://t.test/b", title: "Rocky shores", chunks: []string{"Crabs hide on rocky shores at low tide."}},
		doc{url: "https://t.test/c", title: "Anemones", chunks: []string{"Anemones live in tide pools."},
			anns: []record.Annotation{{Type: "note", Text: "good photos", Actor: "human"}}},
	)
	full := search(t, s, SearchOptions{Text: "tide pools crabs"})
	part := search(t, s, SearchOptions{Text: "tide pools crabs", Detailed: 1})
	if diff := cmp.Diff(urls(full), urls(part)); diff != "" || len(full.Hits) != 3 {
		t.Fatalf("order (-full +detailed 1):\n%s", diff)
	}
	for i, h := range part.Hits {
		f := full.Hits[i].Hit
		if h.Hit.Rank != f.Rank || h.Hit.Score != f.Score || len(h.Hit.Notes) != len(f.Notes) {
			t.Errorf("hit %d: rank/score/notes %d/%v/%d, want %d/%v/%d", i, h.Hit.Rank, h.Hit.Score, len(h.Hit.Notes), f.Rank, f.Score, len(f.Notes))
		}
		detailed := len(h.Hit.Snippets) > 0 && len(h.Hit.WhyRanked.MatchedTerms) > 0
		if want := i < 1; detailed != want {
			t.Errorf("hit %d: snippets %v, matched terms %v; want detail %v", i, h.Hit.Snippets, h.Hit.WhyRanked.MatchedTerms, want)
		}
		if len(f.Snippets) == 0 || len(f.WhyRanked.MatchedTerms) == 0 {
			t.Errorf("full hit %d has no detail: %+v", i, f)
		}
	}
}

// TestSearchCancelled checks that a search reports its context's
// cancellation (Search runs its statements without it, see bounded).
func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 5)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, f := range map[string]func(context.Context, SearchOptions) (*SearchResult, error){"Search": s.Search, "Recent": s.Recent} {
		res, err := f(ctx, SearchOptions{Text: "alpha lorem"})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%s with a cancelled context: %v, %v; want no result and context.Canceled", name, res, err)
		}
		if res, err := f(context.Background(), SearchOptions{Text: "alpha lorem"}); err != nil || len(res.Hits) == 0 {
			t.Errorf("%s: %v, %v hits; want hits", name, err, res)
		}
	}
}
