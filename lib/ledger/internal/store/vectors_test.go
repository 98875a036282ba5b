package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/record"
)

// indexEmbedded indexes url with chunks embedded by the fake model (no
// embeddings when model is "").
func indexEmbedded(t *testing.T, s *Store, url, model string, tags []string, chunks ...string) {
	t.Helper()
	rec := item(url)
	rec.Title = "Doc " + url
	rec.Tags = tags
	if len(tags) > 0 {
		mustSave(t, s, &record.Record{URL: url, CanonicalURL: url, ID: rec.ID, SourceType: record.SourceArticle, Tags: tags})
	}
	for i, c := range chunks {
		ch := record.Chunk{Index: i, Text: c, Tokens: 5}
		if model != "" {
			ch.Embedding = embed.Encode(embedfake.Vector(model, c))
		}
		rec.Chunks = append(rec.Chunks, ch)
	}
	if model != "" {
		rec.Embed = &record.EmbedInfo{Model: model, Dimensions: len(embedfake.Vector(model, "")), Chunks: len(chunks)}
	}
	if _, err := s.Index(context.Background(), rec, IndexOptions{}); err != nil {
		t.Fatalf("index %s: %v", url, err)
	}
}

func hitURLs(res *SearchResult) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.CanonicalURL)
	}
	return out
}

// TestSemanticFindsByMeaning: a query sharing no word with its target
// finds it semantically and in hybrid, not lexically; filters apply to the
// semantic side; vectors of another model are never read.
func TestSemanticFindsByMeaning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	indexEmbedded(t, s, "https://a.test/w1", "hash-64", []string{"med"}, "Acetylcysteine lowers oxidative stress in patients.")
	indexEmbedded(t, s, "https://a.test/w2", "hash-64", nil, "Rye bread needs a sour starter and patience.")
	indexEmbedded(t, s, "https://a.test/w3", "", nil, "The word NAC appears here in plain text.")
	indexEmbedded(t, s, "https://a.test/w4", "hash-32", nil, "Acetylcysteine again, by another model.")
	q := "NAC"
	sem := &Semantic{Vector: embedfake.Vector("hash-64", q), Model: "hash-64", Weight: DefaultSemanticWeight}

	lex, err := s.Search(ctx, SearchOptions{Text: q})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://a.test/w3"}, hitURLs(lex)); diff != "" {
		t.Errorf("lexical (-want +got):\n%s", diff)
	}
	sem.Mode = ModeSemantic
	res, err := s.Search(ctx, SearchOptions{Text: q, Semantic: sem, Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://a.test/w1"}, hitURLs(res)); diff != "" {
		t.Errorf("semantic (-want +got):\n%s", diff)
	}
	f := res.Hits[0].Hit.WhyRanked.Fusion
	if f == nil || f.SemanticRank != 1 || f.LexicalRank != 0 || f.SemanticSimilarity == nil || *f.SemanticSimilarity < 0.3 {
		t.Errorf("fusion = %+v", f)
	}
	if len(res.Hits[0].Hit.Snippets) != 1 || res.Hits[0].Hit.Snippets[0].Text == "" {
		t.Errorf("snippets = %+v", res.Hits[0].Hit.Snippets)
	}
	sem.Mode = ModeHybrid
	res, err = s.Search(ctx, SearchOptions{Text: q, Semantic: sem})
	if err != nil {
		t.Fatal(err)
	}
	got := hitURLs(res)
	if len(got) < 2 || !(got[0] == "https://a.test/w1" || got[1] == "https://a.test/w1") {
		t.Errorf("hybrid: %v, want the acetylcysteine item in the top two", got)
	}
	for _, h := range res.Hits {
		if h.CanonicalURL == "https://a.test/w4" {
			t.Errorf("hybrid found the item embedded by another model")
		}
		if h.CanonicalURL == "https://a.test/w3" && h.Hit.WhyRanked.Fusion.LexicalRank != 1 {
			t.Errorf("nacword fusion = %+v", h.Hit.WhyRanked.Fusion)
		}
	}
	// the weak-match cut (on by default for find) never drops what the
	// semantic side brought in
	res, err = s.Search(ctx, SearchOptions{Text: q, Semantic: sem, Cut: DefaultCut})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitURLs(res); !slices.Contains(got, "https://a.test/w1") {
		t.Errorf("hybrid with the cut: %v, want the acetylcysteine item kept", got)
	}
	// a filter applies to the semantic side
	res, err = s.Search(ctx, SearchOptions{Text: "bread", Semantic: &Semantic{Vector: embedfake.Vector("hash-64", "acetylcysteine"), Model: "hash-64", Mode: ModeSemantic}, Filter: Filter{Tags: []string{"nothere"}}})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("filtered semantic: %v %v", hitURLs(res), err)
	}
	has, err := s.HasVectors(ctx, "hash-64")
	if err != nil || !has {
		t.Errorf("HasVectors(hash-64) = %v, %v", has, err)
	}
	if has, _ := s.HasVectors(ctx, "nomodel"); has {
		t.Error("HasVectors(nomodel) = true")
	}
}

// TestIndexEmbedding: bad vectors are refused whole; a failure is kept on
// the item and cleared by vectors stored later; a model change replaces.
func TestIndexEmbedding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://a.test/x"
	rec := item(url)
	rec.Chunks = []record.Chunk{{Index: 0, Text: "one", Tokens: 1, Embedding: embed.Encode([]float32{1, 0})}, {Index: 1, Text: "two", Tokens: 1}}
	rec.Embed = &record.EmbedInfo{Model: "m", Dimensions: 2}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err == nil {
		t.Fatal("a chunk without a vector was accepted")
	}
	rec.Chunks[1].Embedding = embed.Encode([]float32{0, 1, 0})
	if _, err := s.Index(ctx, rec, IndexOptions{}); err == nil {
		t.Fatal("a vector of the wrong dimension was accepted")
	}
	rec.Chunks[1].Embedding = "not base64!"
	if _, err := s.Index(ctx, rec, IndexOptions{}); err == nil {
		t.Fatal("a bad vector was accepted")
	}
	rec.Chunks[1].Embedding = ""
	rec.Chunks[0].Embedding = ""
	rec.Embed = &record.EmbedInfo{Model: "m", Error: &record.Error{Stage: record.StageEmbed, Code: record.CodeConnection, Message: "down"}}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(ctx, rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Extra["ingest"] == nil || !strings.Contains(string(st.Extra["ingest"]), `"last_embed_error":{"stage":"embed","code":"connection"`) {
		t.Errorf("ingest = %s", st.Extra["ingest"])
	}
	todo, err := s.ItemsToEmbed(ctx, "m", nil, "", 10)
	if err != nil || len(todo) != 1 || len(todo[0].Chunks) != 2 {
		t.Fatalf("ItemsToEmbed = %+v, %v", todo, err)
	}
	vs := []ChunkVector{{Index: 0, Text: "one", Vector: []float32{3, 4}}, {Index: 1, Text: "changed", Vector: []float32{1, 0}}}
	if n, err := s.PutVectors(ctx, rec.ID, "m", vs); err != nil || n != 1 {
		t.Fatalf("PutVectors = %d, %v (a changed chunk must be skipped)", n, err)
	}
	st, _ = s.Status(ctx, rec.ID)
	if strings.Contains(string(st.Extra["ingest"]), "last_embed_error") {
		t.Errorf("stored vectors did not clear the error: %s", st.Extra["ingest"])
	}
	vs[1].Text = "two"
	if n, err := s.PutVectors(ctx, rec.ID, "m2", vs); err != nil || n != 2 {
		t.Fatalf("PutVectors m2 = %d, %v", n, err)
	}
	counts, err := s.VectorCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]int{"m2": 2}, counts); diff != "" {
		t.Errorf("a model change must replace (-want +got):\n%s", diff)
	}
	var blob []byte
	if err := s.DB().Get(&blob, `SELECT vector FROM chunk_vectors v JOIN content_chunks c ON c.id = v.chunk_id WHERE c.chunk_index = 0`); err != nil {
		t.Fatal(err)
	}
	if v, _ := embed.FromBytes(blob); len(v) != 2 || v[0] != 0.6 || v[1] != 0.8 {
		t.Errorf("stored vector %v, want unit length [0.6 0.8]", v)
	}
}

// TestSemanticRescoring: the code first pass with float rescoring
// ranks the best items as an exact scan does (random 256-dimension
// vectors, 2,000 chunks: four times what is rescored), and the codes go
// with re-indexed chunks and deleted items.
func TestSemanticRescoring(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	fillVectors(t, s, 2000, 256)
	var qv []float32
	for i := 0; i < 256; i++ {
		qv = append(qv, float32((i*7919)%13)-6)
	}
	conn, err := s.db.Connx(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	opts := searchOpts{}.withDefaults()
	got, _, err := s.semanticRank(ctx, conn, &Semantic{Vector: qv, Model: "bench", Mode: ModeSemantic}, opts, 10)
	if err != nil {
		t.Fatal(err)
	}
	// exact: every chunk's cosine
	exact, _ := exactItems(t, s, qv)
	same := 0
	for _, it := range got {
		for _, id := range exact[:10] {
			if it.id == id {
				same++
			}
		}
	}
	if same < 9 {
		t.Errorf("%d of the exact top 10 items found, want at least 9", same)
	}
	var n int
	s.DB().Get(&n, `SELECT count(*) FROM item_vector_codes`)
	if n != 200 {
		t.Fatalf("%d code rows, want 200", n)
	}
	// re-indexing an item's text drops its vectors and bits
	id := got[0].id
	var url string
	s.DB().Get(&url, `SELECT canonical_url FROM items WHERE id = ?`, id)
	rec := item(url)
	rec.Chunks = []record.Chunk{{Index: 0, Text: "new text", Tokens: 2}}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	s.DB().Get(&n, `SELECT count(*) FROM item_vector_codes WHERE item_id = ?`, id)
	if n != 0 {
		t.Errorf("re-indexed item keeps %d code rows", n)
	}
	s.DB().Get(&n, `SELECT count(*) FROM chunk_vectors WHERE item_id = ?`, id)
	if n != 0 {
		t.Errorf("re-indexed item keeps %d vectors", n)
	}
}

// TestFusedPins: a pinned highlight still lifts an item in semantic and
// hybrid ranking (pinned_boost in fused units).
func TestFusedPins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	indexEmbedded(t, s, "https://p.test/1", "hash-64", nil, "Acetylcysteine lowers oxidative stress.")
	indexEmbedded(t, s, "https://p.test/2", "hash-64", nil, "Acetylcysteine dosing in adults with kidney disease and other conditions.")
	sem := &Semantic{Vector: embedfake.Vector("hash-64", "NAC oxidative stress"), Model: "hash-64", Mode: ModeSemantic}
	res, err := s.Search(ctx, SearchOptions{Text: "NAC", Semantic: sem})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://p.test/1", "https://p.test/2"}, hitURLs(res)); diff != "" {
		t.Fatalf("before the pin (-want +got):\n%s", diff)
	}
	r := item("https://p.test/2")
	r.Annotations = []record.Annotation{{Type: record.AnnHighlight, Text: "kidney disease", Actor: "human", Pinned: true}}
	mustSave(t, s, r)
	res, err = s.Search(ctx, SearchOptions{Text: "NAC", Semantic: sem})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"https://p.test/2", "https://p.test/1"}, hitURLs(res)); diff != "" {
		t.Errorf("after the pin (-want +got):\n%s", diff)
	}
	if w := res.Hits[0].Hit.WhyRanked; w.PinnedBoost != DefaultWeights.PinnedBoost || w.Fusion.FusedScore <= res.Hits[1].Hit.WhyRanked.Fusion.FusedScore {
		t.Errorf("why_ranked = %+v %+v", w, w.Fusion)
	}
}

// TestHybridEmbedsOnItsSide: a hybrid search given a way to embed its
// query (Semantic.Embed, called on the semantic side's goroutine) ranks
// as one given the vector; when the embedding fails the result is the
// lexical one, hit for hit with the same cut, and SemanticErr says why.
func TestHybridEmbedsOnItsSide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	indexEmbedded(t, s, "https://e.test/w1", "hash-64", nil, "Acetylcysteine lowers oxidative stress in patients.")
	indexEmbedded(t, s, "https://e.test/w2", "hash-64", nil, "Rye bread needs a sour starter and patience; NAC is not bread.")
	indexEmbedded(t, s, "https://e.test/w3", "hash-64", nil, "The word NAC appears here in plain text, NAC twice.")
	q := "NAC"
	given, err := s.Search(ctx, SearchOptions{Text: q, Cut: DefaultCut, Semantic: &Semantic{
		Vector: embedfake.Vector("hash-64", q), Model: "hash-64", Mode: ModeHybrid, Weight: DefaultSemanticWeight}})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := s.Search(ctx, SearchOptions{Text: q, Cut: DefaultCut, Semantic: &Semantic{
		Embed: func(context.Context) ([]float32, error) { return embedfake.Vector("hash-64", q), nil },
		Model: "hash-64", Mode: ModeHybrid, Weight: DefaultSemanticWeight}})
	if err != nil {
		t.Fatal(err)
	}
	if lazy.SemanticErr != nil {
		t.Fatalf("SemanticErr = %v", lazy.SemanticErr)
	}
	if d := cmp.Diff(given.Hits, lazy.Hits); d != "" {
		t.Errorf("embedded on its side differs from given (-given +lazy):\n%s", d)
	}
	if !slices.Contains(hitURLs(lazy), "https://e.test/w1") {
		t.Errorf("hybrid %v: want the acetylcysteine item", hitURLs(lazy))
	}
	lex, err := s.Search(ctx, SearchOptions{Text: q, Cut: DefaultCut})
	if err != nil {
		t.Fatal(err)
	}
	failed, err := s.Search(ctx, SearchOptions{Text: q, Cut: DefaultCut, Semantic: &Semantic{
		Embed: func(context.Context) ([]float32, error) { return nil, errors.New("endpoint down") },
		Model: "hash-64", Mode: ModeHybrid, Weight: DefaultSemanticWeight}})
	if err != nil {
		t.Fatal(err)
	}
	if failed.SemanticErr == nil || failed.SemanticErr.Error() != "endpoint down" {
		t.Errorf("SemanticErr = %v, want endpoint down", failed.SemanticErr)
	}
	if d := cmp.Diff(lex.Hits, failed.Hits); d != "" {
		t.Errorf("failed embedding differs from lexical (-lexical +failed):\n%s", d)
	}
}

// TestHybridConcurrent: many hybrid searches at once on one store (an MCP
// server or the web app) all finish: the semantic side's connections come
// from a pool of their own, so searches holding the four of the main pool
// never wait for each other's semantic side.
func TestHybridConcurrent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	for i := 0; i < 30; i++ {
		indexEmbedded(t, s, fmt.Sprintf("https://c.test/%d", i), "hash-64", nil,
			fmt.Sprintf("Acetylcysteine note %d on oxidative stress, NAC and bread.", i))
	}
	done := make(chan error, 16)
	for g := 0; g < 16; g++ {
		go func() {
			for k := 0; k < 5; k++ {
				res, err := s.Search(ctx, SearchOptions{Text: "NAC bread", Semantic: &Semantic{
					Embed: func(context.Context) ([]float32, error) {
						time.Sleep(2 * time.Millisecond) // an endpoint takes a moment
						return embedfake.Vector("hash-64", "NAC bread"), nil
					},
					Model: "hash-64", Mode: ModeHybrid, Weight: DefaultSemanticWeight}})
				if err == nil && len(res.Hits) == 0 {
					err = errors.New("no hits")
				}
				if err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for g := 0; g < 16; g++ {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("concurrent hybrid searches did not finish in 60 s (deadlock?)")
		}
	}
}

// exactItems ranks every item with vectors by its best chunk's cosine to
// q (a scan of every stored vector), best first, then by id, with each
// item's best similarity.
func exactItems(t *testing.T, s *Store, q []float32) ([]string, map[string]float64) {
	t.Helper()
	var rows []struct {
		Item   string `db:"item_id"`
		Vector []byte `db:"vector"`
	}
	if err := s.DB().Select(&rows, `SELECT item_id, vector FROM chunk_vectors`); err != nil {
		t.Fatal(err)
	}
	u := unit(q)
	best := map[string]float64{}
	for _, r := range rows {
		v, err := embed.FromBytes(r.Vector)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for i := range v {
			d += float64(v[i]) * float64(u[i])
		}
		if b, ok := best[r.Item]; !ok || d > b {
			best[r.Item] = d
		}
	}
	exact := make([]string, 0, len(best))
	for id := range best {
		exact = append(exact, id)
	}
	sort.Slice(exact, func(i, j int) bool {
		if best[exact[i]] != best[exact[j]] {
			return best[exact[i]] > best[exact[j]]
		}
		return exact[i] < exact[j]
	})
	return exact, best
}
