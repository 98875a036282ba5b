package store

import (
	"context"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

func TestItemChunksAndTermRarity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	add := func(url string, chunks ...string) {
		rec := item(url)
		rec.Fetch = &record.FetchInfo{Source: "test"}
		text := strings.Join(chunks, "\n\n")
		rec.Text = &text
		for i, c := range chunks {
			rec.Chunks = append(rec.Chunks, record.Chunk{Index: i, Text: c, Tokens: len(strings.Fields(c))})
		}
		if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	add("https://a.test/1", "Anemones close at low tide.", "Crabs hide under stones.", "Gulls eat the crabs.")
	add("https://a.test/2", "Crabs are common on this shore.")
	add("https://a.test/3", "Crabs again.")
	cs, err := s.ItemChunks(ctx, record.ItemID("https://a.test/1"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || cs[1].Index != 1 || cs[1].Text != "Crabs hide under stones." {
		t.Fatalf("chunks %+v", cs)
	}
	// whole chunks within the bound, in order: a prefix of the text
	cs, err = s.ItemChunks(ctx, record.ItemID("https://a.test/1"), 60)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[0].Index != 0 {
		t.Fatalf("bounded chunks %+v", cs)
	}
	if cs, _ := s.ItemChunks(ctx, "ll_0000000000000000", 0); len(cs) != 0 {
		t.Fatalf("an unknown item has chunks: %+v", cs)
	}
	w, err := s.TermRarity(ctx, []string{"anemones", "crabs", "zebras"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if !(w[2] > w[0] && w[0] > w[1] && w[1] > 0) {
		t.Fatalf("rarity %v: want zebras (none) > anemones (one row) > crabs (many) > 0", w)
	}
}
