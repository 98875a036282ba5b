package ledger

import (
	"context"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// embedDoc is an item to index: its URL and the text of its one chunk.
type embedDoc struct{ URL, Text string }

// indexEmbedded indexes each doc into st as ledgertest.Index does (this
// package's own tests cannot import ledgertest, which imports it).
func indexEmbedded(t testing.TB, st *store.Store, model string, docs ...embedDoc) {
	t.Helper()
	for _, d := range docs {
		text := d.Text
		v := embedfake.Vector(model, text)
		rec := &record.Record{URL: d.URL, CanonicalURL: d.URL, ID: record.ItemID(d.URL), SourceType: record.SourceArticle, Title: "T",
			Text: &text, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 5, Embedding: embed.Encode(v)}},
			Embed: &record.EmbedInfo{Model: model, Dimensions: len(v), Chunks: 1}}
		if _, err := st.Index(context.Background(), rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
