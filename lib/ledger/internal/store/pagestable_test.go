package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// stableLedger fills a real store with n items of Zipf-distributed words
// (1 to 3 chunks each, every 25th with a copy under another URL, every
// 10th with a highlight), deterministically, and returns the words.
func stableLedger(t *testing.T, n int) (*Store, []string) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rng := rand.New(rand.NewPCG(21, 3))
	vocab := make([]string, 1500)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%sq", strings.Repeat(string(rune('a'+i%26)), 1+i/26%3)) + fmt.Sprint(i)
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	sentence := func(words int) string {
		ws := make([]string, words)
		for i := range ws {
			ws[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(ws, " ") + "."
	}
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("https://stable.test/%d", i)
		r := item(url)
		r.Title = sentence(3 + rng.IntN(5))
		r.Fetch = &record.FetchInfo{Source: "test"}
		var all []string
		for c := 0; c < 1+rng.IntN(3); c++ {
			t := sentence(20 + rng.IntN(60))
			all = append(all, t)
			r.Chunks = append(r.Chunks, record.Chunk{Index: c, Text: t, Tokens: len(strings.Fields(t))})
		}
		text := strings.Join(all, "\n\n")
		r.Text = &text
		r.Checksum = fmt.Sprintf("sha256:%d", i)
		if _, err := s.Index(ctx, r, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%25 == 0 {
			cp := *r
			cp.URL = url + "?copy"
			cp.CanonicalURL, cp.ID = cp.URL, record.ItemID(cp.URL)
			if _, err := s.Index(ctx, &cp, IndexOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if i%10 == 0 {
			h := item(url)
			h.Annotations = []record.Annotation{{Type: "highlight", Text: strings.Fields(all[0])[0], Actor: "human", Pinned: i%20 == 0}}
			if _, err := s.Save(ctx, h, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s, vocab
}

func hitIDs(t *testing.T, s *Store, opts SearchOptions) []string {
	t.Helper()
	res := search(t, s, opts)
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

// TestRankingIgnoresLimit: the order of results does not depend on the
// page asked for. Over many sampled queries on a real ledger, the first
// 10 of --limit 100 are --limit 10, and pages of 10 (--offset 0, 10, …)
// put together are --limit 100: no item repeated, none skipped. (Before
// the candidate pool was sized by limit+offset, and 102 of 200 lists here
// differed.)
func TestRankingIgnoresLimit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a 1,500-item ledger")
	}
	s, vocab := stableLedger(t, 1500)
	rng := rand.New(rand.NewPCG(5, 8))
	zipf := rand.NewZipf(rng, 1.05, 1, uint64(len(vocab)-1))
	differ := 0
	const queries = 100
	for q := 0; q < queries; q++ {
		var ws []string
		for range 1 + rng.IntN(5) {
			ws = append(ws, vocab[zipf.Uint64()])
		}
		text := strings.Join(ws, " ")
		all := hitIDs(t, s, SearchOptions{Text: text, Limit: 100})
		top := hitIDs(t, s, SearchOptions{Text: text, Limit: 10})
		if d := cmp.Diff(all[:min(10, len(all))], top); d != "" {
			differ++
			t.Errorf("%q: --limit 10 is not the first 10 of --limit 100 (-100 +10):\n%s", text, d)
		}
		var paged []string
		for off := 0; off < 100; off += 10 {
			paged = append(paged, hitIDs(t, s, SearchOptions{Text: text, Limit: 10, Offset: off})...)
		}
		if d := cmp.Diff(all, paged); d != "" {
			differ++
			t.Errorf("%q: pages of 10 differ from --limit 100 (-100 +pages):\n%s", text, d)
		}
		if q%4 != 0 {
			continue
		}
		// with weak matches cut, pages still agree, and cut items are weak
		res := search(t, s, SearchOptions{Text: text, Limit: 100, Cut: DefaultCut})
		var cut []string
		best := 0.0 // the best text match of the first 10
		for _, h := range res.Hits[:min(10, len(res.Hits))] {
			best = max(best, h.Hit.WhyRanked.BM25)
		}
		for _, h := range res.Hits {
			cut = append(cut, h.ID)
			if h.Hit.WhyRanked.BM25 < DefaultCut*best-1e-5 {
				t.Errorf("%q: %s matches %v, under the cut of %v × %v", text, h.ID, h.Hit.WhyRanked.BM25, DefaultCut, best)
			}
		}
		paged = nil
		for off := 0; off < 100; off += 25 {
			paged = append(paged, hitIDs(t, s, SearchOptions{Text: text, Limit: 25, Offset: off, Cut: DefaultCut})...)
		}
		if d := cmp.Diff(cut, paged); d != "" {
			differ++
			t.Errorf("%q: with the cut, pages of 25 differ from --limit 100 (-100 +pages):\n%s", text, d)
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d lists differ", differ, 2*queries)
	}
}

// TestSearchCut: with a cut, an item scoring below that share of the best
// one's score is left out; without, every match is listed.
func TestSearchCut(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/strong", title: "Tomato tomato tomatoes", chunks: []string{"Tomatoes, tomatoes: growing tomatoes in pots, tomato by tomato."}},
		doc{url: "https://t.test/weak", title: "Gardening", chunks: []string{"A long page about many plants and soil and water and sun, with one tomato somewhere in the middle of a very long paragraph on other crops, beans, peas, onions, leeks, kale and chard."}},
	)
	all := urls(search(t, s, SearchOptions{Text: "tomato"}))
	cut := urls(search(t, s, SearchOptions{Text: "tomato", Cut: 0.5}))
	if d := cmp.Diff([]string{"strong", "weak"}, all); d != "" {
		t.Errorf("every match (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"strong"}, cut); d != "" {
		t.Errorf("cut at 0.5 (-want +got):\n%s", d)
	}
}
