package store

import (
	"context"
	"slices"
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

// TestChunkKinds: a chunk's kind (a reference list's) is stored with
// it (one by one and in a batch), read back by briefs, show and export,
// restored from an export, and follows a re-ingest of the same text.
func TestChunkKinds(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	rec := func(url, refKind string) *record.Record {
		r := item(url)
		r.Fetch = &record.FetchInfo{Source: "test"}
		cs := []string{"Anemones close at low tide.", "References\n\nSmith, J. (2001). Anemones. Shore Press."}
		text := strings.Join(cs, "\n\n")
		r.Text = &text
		r.Checksum = "sha256:" + url
		r.Chunks = []record.Chunk{{Index: 0, Text: cs[0], Tokens: 5}, {Index: 1, Text: cs[1], Tokens: 9, Kind: refKind}}
		return r
	}
	kinds := func(id string) []string {
		t.Helper()
		cs, err := s.ItemChunks(ctx, id, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Kind)
		}
		return out
	}
	want := []string{"", record.ChunkReferences}
	if _, err := s.Index(ctx, rec("https://a.test/1", record.ChunkReferences), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range s.IndexBatch(ctx, []*record.Record{rec("https://a.test/2", record.ChunkReferences), rec("https://a.test/3", "")}, IndexOptions{}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	id1, id2, id3 := record.ItemID("https://a.test/1"), record.ItemID("https://a.test/2"), record.ItemID("https://a.test/3")
	if got := kinds(id1); !slices.Equal(got, want) {
		t.Errorf("indexed alone: kinds %q, want %q", got, want)
	}
	if got := kinds(id2); !slices.Equal(got, want) {
		t.Errorf("indexed in a batch: kinds %q, want %q", got, want)
	}
	if got := kinds(id3); !slices.Equal(got, []string{"", ""}) {
		t.Errorf("no kind: %q", got)
	}
	// the same text again, its chunks kept: the kinds follow this parse
	if _, err := s.Index(ctx, rec("https://a.test/3", record.ChunkReferences), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(id3); !slices.Equal(got, want) {
		t.Errorf("re-ingested: kinds %q, want %q", got, want)
	}
	if _, err := s.Index(ctx, rec("https://a.test/3", ""), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(id3); !slices.Equal(got, []string{"", ""}) {
		t.Errorf("re-ingested without kinds: %q", got)
	}
	// a kind this ledger does not know (a hostile record's, 64 KiB) is
	// body, never stored; nor from an import
	junk := strings.Repeat("<script>", 8192)
	if _, err := s.Index(ctx, rec("https://a.test/4", junk), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	id4 := record.ItemID("https://a.test/4")
	if got := kinds(id4); !slices.Equal(got, []string{"", ""}) {
		t.Errorf("an unknown kind was stored: %.40q", got)
	}
	exj, err := s.Export(ctx, id4, true)
	if err != nil {
		t.Fatal(err)
	}
	exj.Chunks[1].Kind = junk
	sj := openTest(t)
	if _, _, err := sj.Restore(ctx, exj); err != nil {
		t.Fatal(err)
	}
	if cs, err := sj.ItemChunks(ctx, id4, 0); err != nil || len(cs) != 2 || cs[1].Kind != "" {
		t.Errorf("an unknown kind restored: %v, %d chunks", err, len(cs))
	}
	// export and restore keep it
	ex, err := s.Export(ctx, id1, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Chunks) != 2 || ex.Chunks[1].Kind != record.ChunkReferences {
		t.Fatalf("exported chunks %+v", ex.Chunks)
	}
	s2 := openTest(t)
	if _, _, err := s2.Restore(ctx, ex); err != nil {
		t.Fatal(err)
	}
	cs, err := s2.ItemChunks(ctx, id1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 || cs[1].Kind != record.ChunkReferences || cs[0].Kind != "" {
		t.Errorf("restored chunks %+v", cs)
	}
}
