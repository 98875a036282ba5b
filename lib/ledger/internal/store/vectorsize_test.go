package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
)

// TestVectorSizeOneModel: a model's vectors are of one size. Vectors of
// another are refused (DimensionError), an item may replace its own, a
// size asked for (--resize) moves the model to it, and Check flags a
// model whose stored vectors have several.
func TestVectorSizeOneModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	indexEmbedded(t, s, "https://a.test/1", "hash-16", nil, "first text")
	indexEmbedded(t, s, "https://a.test/2", "", nil, "second text")
	indexEmbedded(t, s, "https://a.test/3", "", nil, "third text")
	id2 := item("https://a.test/2").ID
	if n, err := s.VectorSize(ctx, "hash-16"); err != nil || n != 16 {
		t.Fatalf("VectorSize = %d, %v", n, err)
	}
	v8 := []ChunkVector{{Index: 0, Text: "second text", Vector: make([]float32, 8)}}
	v8[0].Vector[0] = 1
	_, err := s.PutVectors(ctx, id2, "hash-16", v8)
	var de *DimensionError
	if !errors.As(err, &de) || de.Got != 8 || de.Want != 16 || !de.Stored {
		t.Fatalf("PutVectors of 8 dimensions: %v", err)
	}
	if e := de.RecordError(); e.Stage != "embed" || !strings.Contains(e.Message, "vectors of 8 dimensions for model hash-16, whose stored vectors have 16") {
		t.Errorf("record error %+v", e)
	}
	// an item through ll-index: the text indexed, the vectors refused,
	// the reason kept
	indexEmbedded(t, s, "https://a.test/4", "hash-8", nil, "fourth text")
	if n, _ := s.VectorSize(ctx, "hash-8"); n != 8 {
		t.Fatalf("hash-8 size %d", n)
	}
	rec := item("https://a.test/5")
	rec.Chunks = []record.Chunk{{Index: 0, Text: "fifth text", Tokens: 2, Embedding: embed.Encode([]float32{1, 0, 0, 0})}}
	rec.Embed = &record.EmbedInfo{Model: "hash-8", Dimensions: 4, Chunks: 1}
	if _, err := s.Index(ctx, rec, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if rec.Embed.Error == nil || rec.Chunks[0].Embedding != "" {
		t.Errorf("ll-index kept vectors of 4 dimensions under hash-8: %+v", rec.Embed)
	}
	if st, _ := s.Status(ctx, rec.ID); !strings.Contains(string(st.Extra["ingest"]), "whose stored vectors have 8") {
		t.Errorf("ingest = %s", st.Extra["ingest"])
	}
	// the size asked for wins: the model moves to it
	if n, err := s.PutVectorsOfSize(ctx, id2, "hash-16", 8, v8); err != nil || n != 1 {
		t.Fatalf("PutVectorsOfSize 8 = %d, %v", n, err)
	}
	probs, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Check != "vectors" || probs[0].Count != 2 || !strings.Contains(probs[0].Message, "model hash-16 has vectors of 2 sizes (1 chunks of 8, 1 chunks of 16 dimensions)") {
		t.Errorf("Check = %+v", probs)
	}
	todo, err := s.ItemsToEmbedOfSize(ctx, "hash-16", 8, nil, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range todo {
		ids = append(ids, it.ID)
	}
	// items 1 (16 dimensions), 3, 4 and 5 (no vector of hash-16); not 2
	for _, id := range ids {
		if id == id2 {
			t.Errorf("ItemsToEmbedOfSize listed the item already of size 8: %v", ids)
		}
	}
	if len(ids) != 4 {
		t.Errorf("ItemsToEmbedOfSize = %v", ids)
	}
	if ok, _ := s.HasVectorsOfSize(ctx, "hash-16", 8); !ok {
		t.Error("HasVectorsOfSize(8) = false")
	}
	if ok, _ := s.HasVectorsOfSize(ctx, "hash-16", 4); ok {
		t.Error("HasVectorsOfSize(4) = true")
	}
	sizes, err := s.VectorSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]map[int]int{"hash-16": {8: 1, 16: 1}}, sizes); diff != "" {
		t.Errorf("VectorSizes (-want +got):\n%s", diff)
	}
}
