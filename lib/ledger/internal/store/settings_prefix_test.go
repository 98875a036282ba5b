package store

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// TestEmbedSettingPrefixes: stored task prefixes round-trip, "" (an
// explicit none) stays apart from none stored (the model's default); a
// bad prefix, or one on an off setting, is refused and nothing stored.
func TestEmbedSettingPrefixes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	p := func(v string) *string { return &v }
	const u = "http://127.0.0.1:11434/v1"
	for _, bad := range []embed.Endpoint{
		{URL: u, Model: "m", DocPrefix: p("a\x01")},
		{URL: u, Model: "m", QueryPrefix: p(strings.Repeat("x", 257))},
		{URL: u, Model: "m", DocPrefix: p("\xff")},
		{Off: true, DocPrefix: p("")},
	} {
		if err := s.SetEmbed(ctx, bad, "human"); err == nil {
			t.Errorf("SetEmbed(%+v): no error", bad)
		}
	}
	if _, row, _ := s.StoredEmbed(ctx); row != nil {
		t.Fatalf("a refused setting was stored: %+v", row)
	}
	for _, tc := range []struct {
		set        embed.Endpoint
		doc, query string
	}{
		{embed.Endpoint{URL: u, Model: "nomic-embed-text"}, "search_document: ", "search_query: "},
		{embed.Endpoint{URL: u, Model: "nomic-embed-text", DocPrefix: p("")}, "", "search_query: "},
		{embed.Endpoint{URL: u, Model: "m", DocPrefix: p("Instruct: x\nDoc: "), QueryPrefix: p("q: ")}, "Instruct: x\nDoc: ", "q: "},
	} {
		if err := s.SetEmbed(ctx, tc.set, "human"); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.StoredEmbed(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.set, got); diff != "" {
			t.Errorf("StoredEmbed (-want +got):\n%s", diff)
		}
		if doc, query := got.Prefixes(); doc != tc.doc || query != tc.query {
			t.Errorf("%+v: Prefixes = %q, %q; want %q, %q", tc.set, doc, query, tc.doc, tc.query)
		}
	}
}

// TestVectorModelWithPrefix: vectors are stored under a model name that
// carries the longest document prefix (embed.Identity), in a record and
// by PutVectors; a longer name is refused.
func TestVectorModelWithPrefix(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	long := embed.Identity(strings.Repeat("m", embed.MaxModelName), strings.Repeat("\x7f", embed.MaxPrefixBytes))
	rec := item("https://a.test/prefix")
	rec.Chunks = []record.Chunk{{Index: 0, Text: "one", Tokens: 1, Embedding: embed.Encode([]float32{1, 0})}}
	rec.Embed = &record.EmbedInfo{Model: long, Dimensions: 2, Chunks: 1}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
		t.Fatalf("Index with model of %d bytes: %v", len(long), err)
	}
	if has, err := s.HasVectors(ctx, long); err != nil || !has {
		t.Errorf("HasVectors = %v, %v", has, err)
	}
	vs := []ChunkVector{{Index: 0, Text: "one", Vector: []float32{0, 1}}}
	if _, err := s.PutVectors(ctx, rec.ID, long, vs); err != nil {
		t.Errorf("PutVectors: %v", err)
	}
	if _, err := s.PutVectors(ctx, rec.ID, long+"x", vs); err == nil {
		t.Error("PutVectors: a model name over the bound was stored")
	}
}
