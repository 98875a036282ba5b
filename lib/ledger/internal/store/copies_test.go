package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// tickingClock makes s stamp each write a second after the previous one,
// so that saved_at orders the items by when the test added them.
func tickingClock(s *Store) {
	t := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

// addCopy indexes d with the checksum of its text, as ll-parse does, so
// that items with the same chunks are copies.
func addCopy(t *testing.T, s *Store, d doc) {
	t.Helper()
	ctx := context.Background()
	rec := item(d.url)
	rec.Title = d.title
	text := strings.Join(d.chunks, "\n\n")
	rec.Text = &text
	rec.Checksum = fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(text)))
	rec.Fetch = &record.FetchInfo{Source: "test"} // fetched content, so the stale view lists it (see TestContentFromRecord)
	for i, c := range d.chunks {
		rec.Chunks = append(rec.Chunks, record.Chunk{Index: i, Text: c, Tokens: len(strings.Fields(c))})
	}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
		t.Fatalf("index %s: %v", d.url, err)
	}
	if len(d.tags) > 0 || len(d.anns) > 0 {
		in := item(d.url)
		in.Tags, in.Annotations = d.tags, d.anns
		if _, err := s.Save(ctx, in, SaveOptions{}); err != nil {
			t.Fatalf("save %s: %v", d.url, err)
		}
	}
}

var beamText = []string{"The lighthouse keeper trims the wick at dusk and winds the clockwork that turns the lens."}

// hitSummary is what these tests compare of a hit.
type hitSummary struct {
	URL        string
	Copies     []string
	Highlights []string
	Notes      []string
	Tags       []string
}

func summarize(res *SearchResult) []hitSummary {
	short := func(u string) string { return strings.TrimPrefix(u, "https://c.test/") }
	var out []hitSummary
	for _, h := range res.Hits {
		s := hitSummary{URL: short(h.CanonicalURL), Tags: h.Tags}
		for _, c := range h.Copies {
			s.Copies = append(s.Copies, short(c.URL))
		}
		for _, a := range h.Hit.Highlights {
			s.Highlights = append(s.Highlights, a.Text)
		}
		for _, a := range h.Hit.Notes {
			s.Notes = append(s.Notes, a.Text)
		}
		out = append(out, s)
	}
	return out
}

// copiesStore holds five copies of one page (q=1..5, saved in that order;
// q=4 annotated by a person, q=2 and q=5 by an agent, q=5 tagged) and one
// other page about lighthouses.
func copiesStore(t *testing.T) *Store {
	t.Helper()
	s := openTest(t)
	tickingClock(s)
	addFiller(t, s, 12)
	for i := 1; i <= 5; i++ {
		d := doc{url: fmt.Sprintf("https://c.test/page?q=%d", i), title: "Keeping a light", chunks: beamText}
		switch i {
		case 2:
			d.anns = []record.Annotation{{Type: "highlight", Text: "winds the clockwork", Actor: "agent:a", Confidence: conf(0.9)}}
		case 4:
			d.anns = []record.Annotation{
				{Type: "highlight", Text: "trims the wick at dusk", Actor: "human"},
				{Type: "note", Text: "the keeper's routine", Actor: "human"},
			}
		case 5:
			d.anns = []record.Annotation{{Type: "highlight", Text: "trims the wick at dusk", Actor: "agent:a", Confidence: conf(0.8)}}
			d.tags = []string{"sea"}
		}
		addCopy(t, s, d)
	}
	addCopy(t, s, doc{url: "https://c.test/other", title: "Coastal walks", chunks: []string{"A long walk along the coast path, over the dunes and past the harbour wall, the old fort, the chapel, the fields of barley, and at last the lighthouse on the cliff, before the path turns inland to the village."}})
	return s
}

func TestCopiesAreOneHit(t *testing.T) {
	t.Parallel()
	s := copiesStore(t)
	group := hitSummary{
		URL:        "page?q=4",
		Copies:     []string{"page?q=1", "page?q=2", "page?q=3", "page?q=5"},
		Highlights: []string{"trims the wick at dusk", "winds the clockwork"},
		Notes:      []string{"the keeper's routine"},
		Tags:       []string{"sea"},
	}
	other := hitSummary{URL: "other"}
	tests := []struct {
		name string
		opts SearchOptions
		want []hitSummary
	}{
		{"grouped", SearchOptions{Text: "lighthouse"}, []hitSummary{group, other}},
		{"limit counts groups", SearchOptions{Text: "lighthouse", Limit: 1}, []hitSummary{group}},
		{"offset counts groups", SearchOptions{Text: "lighthouse", Offset: 1}, []hitSummary{other}},
		{"all copies, limit counts copies", SearchOptions{Text: "lighthouse", AllCopies: true, Limit: 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(search(t, s, tt.opts))
			if tt.opts.AllCopies {
				if len(got) != 2 || got[0].URL == got[1].URL || !strings.HasPrefix(got[0].URL, "page?q=") || !strings.HasPrefix(got[1].URL, "page?q=") {
					t.Fatalf("all copies: %+v, want two copies of the page", got)
				}
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// --all-copies: every copy is a hit with its own evidence, listing the others.
	all := search(t, s, SearchOptions{Text: "lighthouse", AllCopies: true})
	var pages []string
	for _, h := range summarize(all) {
		if h.URL == "other" {
			if h.Copies != nil {
				t.Errorf("other lists copies %v", h.Copies)
			}
			continue
		}
		pages = append(pages, h.URL)
		if len(h.Copies) != 4 {
			t.Errorf("%s lists copies %v, want the 4 others", h.URL, h.Copies)
		}
		if h.URL == "page?q=3" && (h.Highlights != nil || h.Notes != nil || h.Tags != nil) {
			t.Errorf("page?q=3 shows another copy's evidence: %+v", h)
		}
	}
	sortStrings(pages)
	if diff := cmp.Diff([]string{"page?q=1", "page?q=2", "page?q=3", "page?q=4", "page?q=5"}, pages); diff != "" {
		t.Errorf("all copies (-want +got):\n%s", diff)
	}
}

func TestCopiesRepresentative(t *testing.T) {
	t.Parallel()
	pinned := record.Annotation{Type: "highlight", Text: "the lens", Actor: "agent:a", Confidence: conf(0.7), Pinned: true}
	note := func(text string) record.Annotation {
		return record.Annotation{Type: "note", Text: text, Actor: "human"}
	}
	agentNote := record.Annotation{Type: "note", Text: "agent says", Actor: "agent:a", Confidence: conf(0.9)}
	tests := []struct {
		name  string
		anns  [3][]record.Annotation // of copies a, b, c (saved in that order)
		tags  [3][]string
		clock bool // false: all saved in the same second
		opts  SearchOptions
		want  string
	}{
		{"pinned first", [3][]record.Annotation{{note("one"), note("two")}, nil, {pinned}}, [3][]string{}, true, SearchOptions{}, "c"},
		{"then human annotations", [3][]record.Annotation{{agentNote}, {note("one")}, {note("two"), note("three")}}, [3][]string{}, true, SearchOptions{}, "c"},
		{"agent annotations do not count", [3][]record.Annotation{nil, {agentNote}, nil}, [3][]string{}, true, SearchOptions{}, "a"},
		{"then earliest saved", [3][]record.Annotation{}, [3][]string{}, true, SearchOptions{}, "a"},
		{"then lowest id", [3][]record.Annotation{}, [3][]string{}, false, SearchOptions{}, lowestID("a", "b", "c")},
		{"among the copies the filter passes", [3][]record.Annotation{nil, {note("one")}, {pinned}}, [3][]string{nil, {"x"}, nil}, true,
			SearchOptions{Filter: Filter{Tags: []string{"x"}}}, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			if tt.clock {
				tickingClock(s)
			} else {
				now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
				s.now = func() time.Time { return now }
			}
			addFiller(t, s, 12)
			for i, name := range []string{"a", "b", "c"} {
				addCopy(t, s, doc{url: "https://c.test/" + name, title: "Keeping a light", chunks: beamText, anns: tt.anns[i], tags: tt.tags[i]})
			}
			for _, mode := range []string{"search", "recent"} {
				o := tt.opts
				var res *SearchResult
				var err error
				if mode == "search" {
					o.Text = "lighthouse"
					res, err = s.Search(context.Background(), o)
				} else {
					res, err = s.Recent(context.Background(), o)
				}
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, h := range res.Hits {
					if strings.HasPrefix(h.CanonicalURL, "https://c.test/") {
						got = append(got, strings.TrimPrefix(h.CanonicalURL, "https://c.test/"))
					}
				}
				if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
					t.Errorf("%s: representative (-want +got):\n%s", mode, diff)
				}
			}
		})
	}
}

// lowestID returns the test URL name whose item id sorts first.
func lowestID(names ...string) string {
	best := names[0]
	for _, n := range names[1:] {
		if record.ItemID("https://c.test/"+n) < record.ItemID("https://c.test/"+best) {
			best = n
		}
	}
	return best
}

// TestCopiesPinnedCountsForTheGroup: a copy's pinned highlight gives the
// group the pinned boost even when the best-ranked member has none, which
// can lift the group above an item that outranks that member alone.
func TestCopiesPinnedCountsForTheGroup(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	tickingClock(s)
	addFiller(t, s, 12)
	// "titled" matches the query in its title too: it is the group's
	// best-ranked member; "pinned" has the same text and a pinned
	// highlight that does not match the query.
	addCopy(t, s, doc{url: "https://c.test/titled", title: "Lighthouse", chunks: beamText})
	addCopy(t, s, doc{url: "https://c.test/pinned", title: "Keeping a light", chunks: beamText,
		anns: []record.Annotation{{Type: "highlight", Text: "clockwork", Actor: "human", Pinned: true}}})
	addCopy(t, s, doc{url: "https://c.test/rival", title: "Lighthouse lighthouse", chunks: []string{"Lighthouse."}})

	all := map[string]*record.Record{}
	for _, h := range search(t, s, SearchOptions{Text: "lighthouse", AllCopies: true}).Hits {
		all[strings.TrimPrefix(h.CanonicalURL, "https://c.test/")] = h
	}
	titled, pinned, rival := all["titled"], all["pinned"], all["rival"]
	if titled == nil || pinned == nil || rival == nil {
		t.Fatalf("all copies: %v", all)
	}
	// the setup this test needs: rival outranks each copy alone (pinned
	// with its boost), and not the best-matching copy with the boost
	b := DefaultWeights.PinnedBoost
	if !(rival.Hit.Score > pinned.Hit.Score && pinned.Hit.Score > titled.Hit.Score && titled.Hit.Score+b > rival.Hit.Score) {
		t.Fatalf("setup: scores titled %v, pinned %v, rival %v (boost %v)", titled.Hit.Score, pinned.Hit.Score, rival.Hit.Score, b)
	}
	res := search(t, s, SearchOptions{Text: "lighthouse"})
	if diff := cmp.Diff([]hitSummary{
		{URL: "pinned", Copies: []string{"titled"}, Highlights: []string{"clockwork"}},
		{URL: "rival"},
	}, summarize(res)); diff != "" {
		t.Fatalf("grouped (-want +got):\n%s", diff)
	}
	// the group scores as its best-matching copy with the boost
	hit := res.Hits[0].Hit
	if why := hit.WhyRanked; why.BM25 != titled.Hit.WhyRanked.BM25 || why.PinnedBoost != b || math.Abs(why.RankingScore-(why.BM25+b)) > 1e-5 || hit.Score != why.RankingScore {
		t.Errorf("group score %v, why_ranked %+v; want bm25 %v + pinned boost %v", hit.Score, why, titled.Hit.WhyRanked.BM25, b)
	}
}

func TestCopiesRecent(t *testing.T) {
	t.Parallel()
	s := copiesStore(t)
	addCopy(t, s, doc{url: "https://c.test/newest", title: "Newest", chunks: []string{"Something else entirely."}})
	tests := []struct {
		name string
		opts SearchOptions
		want []string
	}{
		// the group stands where its newest copy (q=5) does
		{"grouped", SearchOptions{Limit: 3}, []string{"newest", "other", "page?q=4"}},
		{"offset counts groups", SearchOptions{Limit: 1, Offset: 2}, []string{"page?q=4"}},
		{"all copies", SearchOptions{Limit: 4, AllCopies: true}, []string{"newest", "other", "page?q=5", "page?q=4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Recent(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range summarize(res) {
				got = append(got, h.URL)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			for i, h := range res.Hits {
				if h.Hit.Rank != tt.opts.Offset+i+1 {
					t.Errorf("hit %d rank %d", i, h.Hit.Rank)
				}
			}
		})
	}
	// a page that needs more than the first window: every item but one is a copy
	s2 := openTest(t)
	tickingClock(s2)
	addCopy(t, s2, doc{url: "https://c.test/first", title: "First", chunks: []string{"Unique text."}})
	for i := 0; i < 30; i++ {
		addCopy(t, s2, doc{url: fmt.Sprintf("https://c.test/copy?n=%d", i), title: "Copy", chunks: beamText})
	}
	res, err := s2.Recent(context.Background(), SearchOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got := summarize(res); len(got) != 2 || got[1].URL != "first" || len(got[0].Copies) != 29 {
		t.Errorf("recent over many copies: %+v", got)
	}
}

func TestCopiesRelated(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	tickingClock(s)
	addFiller(t, s, 12)
	bread := []string{"Sourdough starter needs flour and water. Levain fermentation makes sourdough rise."}
	addCopy(t, s, doc{url: "https://c.test/me", title: "Sourdough bread baking", chunks: bread})
	addCopy(t, s, doc{url: "https://c.test/me?copy=1", title: "Sourdough bread baking", chunks: bread})
	addCopy(t, s, doc{url: "https://c.test/levain", title: "Levain care", chunks: []string{"Feed the sourdough starter daily; levain fermentation takes hours."}})
	addCopy(t, s, doc{url: "https://c.test/levain?copy=1", title: "Levain care", chunks: []string{"Feed the sourdough starter daily; levain fermentation takes hours."}})
	for _, tt := range []struct {
		all  bool
		want []hitSummary
	}{
		{false, []hitSummary{{URL: "levain", Copies: []string{"levain?copy=1"}}}},
		{true, []hitSummary{{URL: "me?copy=1"}, {URL: "levain"}, {URL: "levain?copy=1"}}},
	} {
		res, err := s.Related(context.Background(), record.ItemID("https://c.test/me"), RelatedOptions{SearchOptions: SearchOptions{AllCopies: tt.all}})
		if err != nil {
			t.Fatal(err)
		}
		got := summarize(res)
		if tt.all {
			for i := range got {
				got[i].Copies = nil
			}
			sort := func(h []hitSummary) {
				for i := 1; i < len(h); i++ {
					for j := i; j > 0 && h[j].URL < h[j-1].URL; j-- {
						h[j], h[j-1] = h[j-1], h[j]
					}
				}
			}
			sort(got)
			sort(tt.want)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("all copies %v (-want +got):\n%s", tt.all, diff)
		}
	}
}

// TestCopiesQueueViewsNotGrouped: queue views list every copy.
func TestCopiesQueueViewsNotGrouped(t *testing.T) {
	t.Parallel()
	s := copiesStore(t)
	recs, err := s.Queue(context.Background(), QueueOptions{Queue: QueueStale})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if strings.HasPrefix(r.CanonicalURL, "https://c.test/page?q=") {
			n++
			if r.Copies != nil {
				t.Errorf("%s lists copies in a queue view", r.CanonicalURL)
			}
		}
	}
	if n != 5 {
		t.Errorf("stale view lists %d copies, want 5", n)
	}
}

// TestCopiesFillThePage: when copies take all the candidate rows, the
// search looks further, so that the page still gets every other match.
func TestCopiesFillThePage(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	tickingClock(s)
	addFiller(t, s, 12)
	page := []string{
		"The lighthouse keeper trims the wick at dusk.",
		"The lighthouse lens turns on clockwork.",
		"The lighthouse log records the weather.",
		"The lighthouse beam reaches twenty miles.",
	}
	for i := 0; i < 30; i++ {
		addCopy(t, s, doc{url: fmt.Sprintf("https://c.test/page?q=%d", i), title: "Lighthouse lighthouse", chunks: page})
	}
	var want []string
	for i := 0; i < 5; i++ {
		u := fmt.Sprintf("other%d", i)
		addCopy(t, s, doc{url: "https://c.test/" + u, title: "Coast " + u, chunks: []string{fmt.Sprintf("A long walk number %d along the coast path, over the dunes and past the harbour wall, the old fort, the chapel, and at last the lighthouse on the cliff.", i)}})
		want = append(want, u)
	}
	res := search(t, s, SearchOptions{Text: "lighthouse", Limit: 10})
	var got []string
	for _, h := range summarize(res) {
		if strings.HasPrefix(h.URL, "page?q=") {
			if len(h.Copies) != 29 {
				t.Errorf("%s lists %d copies", h.URL, len(h.Copies))
			}
			continue
		}
		got = append(got, h.URL)
	}
	sortStrings(got)
	if diff := cmp.Diff(want, got); diff != "" || len(res.Hits) != 6 {
		t.Errorf("%d hits; others (-want +got):\n%s", len(res.Hits), diff)
	}
}
