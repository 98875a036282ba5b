package ledger

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/tokens"
)

// ingest saves url with tags and annotations and indexes text as its
// one chunk, as ll-save then the worker would.
func ingest(t testing.TB, st *store.Store, url, title, text string, tags []string, anns ...record.Annotation) string {
	t.Helper()
	ctx := context.Background()
	id := record.ItemID(url)
	if _, err := st.Save(ctx, &record.Record{URL: url, CanonicalURL: url, OriginalURL: url, ID: id, SourceType: record.SourceArticle, Tags: tags}, spec.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if text != "" {
		rec := &record.Record{URL: url, CanonicalURL: url, ID: id, SourceType: record.SourceArticle, Title: title, Text: &text,
			Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: tokens.Count(text)}}, Checksum: "sha256:" + id}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if len(anns) > 0 {
		if _, err := st.Save(ctx, &record.Record{URL: url, CanonicalURL: url, OriginalURL: url, ID: id, SourceType: record.SourceArticle, Annotations: anns}, spec.SaveOptions{Actor: "human"}); err != nil {
			t.Fatal(err)
		}
	}
	return id
}

func TestOverview(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	animals := []string{"animals"}
	coast := []string{"coast"}
	q := ingest(t, st, "https://wild.example/quokka", "The quokka's island", "Quokkas live on Rottnest island. Field notes from the rangers.", animals,
		record.Annotation{Type: record.AnnHighlight, Text: "Quokkas live on Rottnest island", Actor: "human", Pinned: true})
	ingest(t, st, "https://wild.example/wombat", "Wombat burrows", "Wombats dig burrows; quokkas do not. Field notes again.", animals)
	ingest(t, st, "https://wild.example/quokka-diet", "What quokkas eat", "Quokkas eat leaves and burrows are rare. Field notes.", animals)
	l := ingest(t, st, "https://sea.example/lighthouse", "Keeping a lighthouse", "The lighthouse lens and the keeper. Field notes of the keeper.", coast)
	ingest(t, st, "https://sea.example/tides", "Tide pools", "Tide pools near the lighthouse keeper's cottage. Field notes.", coast)
	ingest(t, st, "https://sea.example/later", "", "", nil) // pending
	failed := record.ItemID("https://sea.example/gone")
	ingest(t, st, "https://sea.example/gone", "", "", nil)
	gone := &record.Record{URL: "https://sea.example/gone", CanonicalURL: "https://sea.example/gone", ID: failed, SourceType: record.SourceArticle,
		Error: &record.Error{Stage: record.StageFetch, Code: "http_status", Message: "HTTP 404", Retryable: false}}
	if _, err := st.Index(ctx, gone, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, task := range []string{"essay", "answer"} {
		if _, err := st.AddCitation(ctx, l, task, "human"); err != nil {
			t.Fatal(err)
		}
	}

	o, err := wrap(st).BuildOverview(ctx, OverviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Items != 7 || o.Pending != 1 || o.Failed != 1 || o.ByType["article"] != 7 || o.ByState["parsed"] != 5 || o.Truncated || o.MaxTokens != DefaultOverviewTokens {
		t.Errorf("counts: %+v", o)
	}
	group := func(gs []OverviewGroup, name string) OverviewGroup {
		for _, g := range gs {
			if g.Name == name {
				return g
			}
		}
		t.Fatalf("no group %q in %+v", name, gs)
		return OverviewGroup{}
	}
	a, c := group(o.Tags, "animals"), group(o.Tags, "coast")
	if a.Items != 3 || c.Items != 2 {
		t.Errorf("tag counts: %+v %+v", a, c)
	}
	// the distinguishing words: the group's own, weighted by title and
	// highlight, plurals folded; "field notes" is in every item: left out
	if a.Words[0] != "quokkas" || !slices.Contains(a.Words, "burrows") || !slices.Contains(c.Words, "lighthouse") || !slices.Contains(c.Words, "keeper") {
		t.Errorf("words: animals %v, coast %v", a.Words, c.Words)
	}
	for _, g := range append(o.Tags, o.Sites...) {
		for _, w := range g.Words {
			if w == "field" || w == "notes" || w == "quokka" && g.Name == "coast" {
				t.Errorf("%s: word %q is common to everything or not its own", g.Name, w)
			}
		}
	}
	if s := group(o.Sites, "wild.example"); s.Items != 3 || !slices.Contains(s.Words, "quokkas") {
		t.Errorf("site wild.example: %+v", s)
	}
	if len(o.Pinned) != 1 || o.Pinned[0].ID != q || o.Pinned[0].Count != 1 {
		t.Errorf("pinned: %+v", o.Pinned)
	}
	if len(o.MostReused) != 1 || o.MostReused[0].ID != l || o.MostReused[0].Count != 2 {
		t.Errorf("most reused: %+v", o.MostReused)
	}
	if len(o.FailedItems) != 1 || o.FailedItems[0].ID != failed || o.FailedItems[0].Detail != "http_status" {
		t.Errorf("failed: %+v", o.FailedItems)
	}
	text := OverviewText(o)
	t.Logf("overview:\n%s", text)
	for _, want := range []string{"7 items (article 7)", "1 pending (not fetched yet), 1 failed", "animals 3: quokkas", "pinned:\n  " + q + " The quokka's island (1 pinned)", "most reused:\n  " + l, "(http_status, 1 attempt)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text has no %q:\n%s", want, text)
		}
	}
	if o.Tokens != tokens.Count(text) || o.Tokens > o.MaxTokens {
		t.Errorf("tokens %d, text %d, max %d", o.Tokens, tokens.Count(text), o.MaxTokens)
	}

	// deterministic
	again, err := wrap(st).BuildOverview(ctx, OverviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(o, again); d != "" {
		t.Errorf("a second overview differs (-first +second):\n%s", d)
	}

	// a small budget cuts lists, never the counts
	small, err := wrap(st).BuildOverview(ctx, OverviewOptions{MaxTokens: MinOverviewTokens})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("small:\n%s", OverviewText(small))
	if !small.Truncated || small.Tokens > MinOverviewTokens || small.Items != 7 || !strings.HasPrefix(OverviewText(small), "7 items") {
		t.Errorf("overview in %d tokens: %d tokens, truncated %v\n%s", MinOverviewTokens, small.Tokens, small.Truncated, OverviewText(small))
	}
	if _, err := wrap(st).BuildOverview(ctx, OverviewOptions{MaxTokens: 50}); err == nil {
		t.Errorf("max tokens 50: no error")
	}
}

func TestOverviewEmpty(t *testing.T) {
	o, err := wrap(openTest(t)).BuildOverview(context.Background(), OverviewOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Items != 0 || OverviewText(o) != "0 items\n" {
		t.Errorf("empty ledger: %+v\n%q", o, OverviewText(o))
	}
}

// BenchmarkOverview measures an overview of ledgers of growing size:
// its reading is bounded (overviewLimits), so the time should grow only
// with the counting queries' scans.
func BenchmarkOverview(b *testing.B) {
	for _, size := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("items=%d", size), func(b *testing.B) {
			ctx := context.Background()
			st, err := store.Open(ctx, filepath.Join(b.TempDir(), "bench.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			seedBench(b, st, size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := wrap(st).BuildOverview(ctx, OverviewOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var benchWords = strings.Fields(`memory agent link source retrieval index chunk token ranking evidence
highlight note search query store database write ahead log reader writer lock page text article
transcript video post thread author title summary claim budget pipeline filter record stream quokka
lighthouse tide marsupial island keeper lens harbour ranger burrow`)

// seedBench fills st with n indexed items of one chunk on 50 sites, with
// 30 tags, a highlight on every 10th and a pin on every 100th: items
// through the store's own writes, tags and annotations in bulk.
func seedBench(b *testing.B, st *store.Store, n int) {
	ctx := context.Background()
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("https://site%d.example/post/%d", i%50, i)
		var tb strings.Builder
		for w := 0; w < 120; w++ {
			tb.WriteString(benchWords[(i*31+w*w+i%50*7)%len(benchWords)])
			tb.WriteByte(' ')
		}
		text := tb.String()
		rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle,
			Title: fmt.Sprintf("Post %d on %s and %s", i, benchWords[i%len(benchWords)], benchWords[(i*7)%len(benchWords)]),
			Text:  &text, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 120}}, Checksum: fmt.Sprintf("sha256:%d", i)}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []string{
		`INSERT INTO tags (item_id, tag, actor, created_at) SELECT id, 'tag' || (seq % 30), 'human', saved_at FROM items`,
		`INSERT INTO annotations (item_id, type, text, actor, pinned, created_at) SELECT id, 'highlight', title, 'human', seq % 100 = 0, saved_at FROM items WHERE seq % 10 = 0`,
	} {
		if _, err := st.DB().ExecContext(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}
