package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

var benchWords = strings.Fields(`memory agent link source retrieval index chunk token ranking evidence
highlight note search query store database write ahead log reader writer lock page text article
transcript video post thread author title summary claim budget pipeline filter record stream`)

// benchItem makes an article-like record with n chunks of ~60 words.
func benchItem(i, n int) *record.Record {
	url := fmt.Sprintf("https://bench%d.example/post/%d", i%53, i)
	r := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle,
		Title: fmt.Sprintf("Post %d about %s and %s", i, benchWords[i%len(benchWords)], benchWords[(i*7)%len(benchWords)])}
	var all []string
	for c := 0; c < n; c++ {
		var b strings.Builder
		for w := 0; w < 60; w++ {
			b.WriteString(benchWords[(i*31+c*17+w*w)%len(benchWords)])
			b.WriteByte(' ')
		}
		t := b.String()
		all = append(all, t)
		r.Chunks = append(r.Chunks, record.Chunk{Index: c, Text: t, Tokens: 60})
	}
	text := strings.Join(all, "\n\n")
	r.Text = &text
	r.Checksum = fmt.Sprintf("sha256:%d", i)
	return r
}

// BenchmarkIndex measures ll-index's store write of one 10-chunk item into
// stores of growing size; chunks/s is reported. The time per item must not
// grow with the store.
func BenchmarkIndex(b *testing.B) {
	for _, size := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("store=%d", size), func(b *testing.B) {
			ctx := context.Background()
			s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for i := 0; i < size; i++ {
				if _, err := s.Index(ctx, benchItem(i, 10), IndexOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Index(ctx, benchItem(size+i, 10), IndexOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*10)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkSave measures ll-save's store work for one new URL (with a tag)
// in a 10k-item store: the part of a whole-process save that is not
// process start-up.
func BenchmarkSave(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 10000; i++ {
		if _, err := s.Save(ctx, item(fmt.Sprintf("https://seed.example/%d", i)), SaveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := item(fmt.Sprintf("https://new.example/%d", i))
		r.Tags = []string{"bench"}
		if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch measures the store's part of ll-find (Search and Recent,
// default options) on a 10k-item store where every 50th item has three
// copies (the same text under other URLs): rare-term, common-term and
// no-query listings, one page of 10.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const size = 10000
	for i := 0; i < size; i++ {
		r := benchItem(i, 4)
		if _, err := s.Index(ctx, r, IndexOptions{}); err != nil {
			b.Fatal(err)
		}
		if i%50 != 0 {
			continue
		}
		for c := 0; c < 3; c++ {
			cp := benchItem(i, 4)
			cp.URL = fmt.Sprintf("%s?copy=%d", r.URL, c)
			cp.CanonicalURL, cp.ID = cp.URL, record.ItemID(cp.URL)
			if _, err := s.Index(ctx, cp, IndexOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	queries := map[string][]string{
		"rare":   {"post 1250", "post 4200 memory", "post 7 agent", "post 9950"},
		"common": {"memory agent", "search query store", "the key claim of the summary"},
		"recent": {""},
	}
	// The step grouping adds to a query: one lookup of a page of 10
	// candidates (here every fifth has copies).
	b.Run("copies-lookup", func(b *testing.B) {
		conn, err := s.db.Connx(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		var ids []string
		for i := 0; i < 10; i++ {
			ids = append(ids, record.ItemID(fmt.Sprintf("https://bench%d.example/post/%d", (i*10)%53, i*10)))
		}
		for i := 0; i < b.N; i++ {
			g, err := lookupCopies(ctx, conn, ids, Filter{})
			if err != nil || len(g) != 2 {
				b.Fatalf("%d groups, %v", len(g), err)
			}
		}
	})
	for _, name := range []string{"rare", "common", "recent"} {
		b.Run(name, func(b *testing.B) {
			qs := queries[name]
			for i := 0; i < b.N; i++ {
				o := SearchOptions{Text: qs[i%len(qs)]}
				var err error
				if o.Text == "" {
					_, err = s.Recent(ctx, o)
				} else {
					_, err = s.Search(ctx, o)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchArchived measures what leaving archived items out costs a
// search (Filter.Archived = NotArchived, as ll-find does by default) next
// to not filtering at all, with none, 1% and 10% of 3,000 items archived.
func BenchmarkSearchArchived(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const size = 3000
	for i := 0; i < size; i++ {
		if _, err := s.Index(ctx, benchItem(i, 3), IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	archived := 0
	for _, pct := range []int{0, 1, 10} {
		for ; archived < size*pct/100; archived++ {
			if _, err := s.SetArchived(ctx, benchItem(archived*7%size, 0).ID, true, ActorHuman); err != nil {
				b.Fatal(err)
			}
		}
		for _, f := range []struct {
			name string
			a    Archived
		}{{"any", AnyArchived}, {"not", NotArchived}} {
			b.Run(fmt.Sprintf("archived=%d%%/filter=%s", pct, f.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := s.Search(ctx, SearchOptions{Text: "retrieval ranking evidence", Filter: Filter{Archived: f.a}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSaveBatch measures SaveBatch (as linkledger import runs it)
// on import records into a new store: a title, three tags, a saved time
// and via, as ll-import emits for Pocket. It reports records/s.
func BenchmarkSaveBatch(b *testing.B) {
	ctx := context.Background()
	// as ll-save --batch opens it (its pool and in-memory sub-journals
	// only when this is the process's first store: -run '^$')
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{Bulk: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const batch = 5000 // as linkledger import
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		recs := make([]*record.Record, batch)
		for j := range recs {
			r := item(fmt.Sprintf("https://import.example/%d/%d", i, j))
			r.Title = fmt.Sprintf("Post %d, \"quoted\"", i*batch+j)
			r.Tags = []string{"a", fmt.Sprintf("b%d", j%7), "read"}
			r.SavedAt = "2017-07-14T02:40:00Z"
			r.Via = "import:pocket"
			recs[j] = r
		}
		if _, err := s.SaveBatch(ctx, recs, SaveOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkSearchDecay measures what the decay condition costs a search:
// 3,000 items with three agent highlights each (confidence 0.2, 0.45, 0.8,
// 200 days old; every tenth item cited), searched with decay off and
// under the default policy.
func BenchmarkSearchDecay(b *testing.B) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 3000; i++ {
		r := benchItem(i, 4)
		if _, err := s.Index(ctx, r, IndexOptions{}); err != nil {
			b.Fatal(err)
		}
		ann := &record.Record{ID: r.ID, Actor: "agent:bench"}
		for j, c := range []float64{0.2, 0.45, 0.8} {
			c := c
			ann.Annotations = append(ann.Annotations, record.Annotation{Type: "highlight", Confidence: &c,
				Text: fmt.Sprintf("%s %s claim %d", benchWords[(i+j)%len(benchWords)], benchWords[(i*3+j)%len(benchWords)], j)})
		}
		if _, err := s.Save(ctx, ann, SaveOptions{}); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			if _, err := s.AddCitation(ctx, r.ID, "bench", ActorHuman); err != nil {
				b.Fatal(err)
			}
		}
	}
	now = now.AddDate(0, 0, 200)
	on := DefaultWeights
	on.DecayBelow, on.DecayAfter = DefaultDecay.Below, DefaultDecay.After
	qs := []string{"memory agent", "post 1250 claim", "search query store"}
	for _, c := range []struct {
		name string
		w    Weights
	}{{"off", DefaultWeights}, {"default-policy", on}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(ctx, SearchOptions{Text: qs[i%len(qs)], Weights: c.w}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchNegations measures the cost of the query language's
// phrases and exclusions (issue 27: 32 negated common phrases took 20× a
// plain query at 10k items): a plain two-word query, then the same with
// N of its common phrases negated (Filter.Exclude, as -"a b" gives), on a
// 10k-item store of 4 chunks each. lib/query caps phrases and exclusions
// together at query.MaxMentions; the neg=32 case is what the cap stops.
func BenchmarkSearchNegations(b *testing.B) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(b.TempDir(), "bench.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := 0; i < 10000; i++ {
		if _, err := s.Index(ctx, benchItem(i, 4), IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	// common phrases: pairs of the bench vocabulary's words
	var phrases []string
	for i := 0; len(phrases) < 32; i++ {
		phrases = append(phrases, benchWords[i%len(benchWords)]+" "+benchWords[(i*7+3)%len(benchWords)])
	}
	for _, n := range []int{0, 1, 4, 8, 32} {
		b.Run(fmt.Sprintf("neg=%d", n), func(b *testing.B) {
			o := SearchOptions{Text: "memory agent", Filter: Filter{Exclude: phrases[:n]}}
			for i := 0; i < b.N; i++ {
				if _, err := s.Search(ctx, o); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
