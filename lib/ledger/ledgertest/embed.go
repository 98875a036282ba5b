package ledgertest

import (
	"context"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Doc is an item to index: its URL and the text of its one chunk.
type Doc struct{ URL, Text string }

// Index indexes each doc into l as an article titled "T" with one chunk
// and that chunk's vector of the fake model (e.g. "hash-64"), as
// ll-embed | ll-index would leave it.
func Index(t testing.TB, l *ledger.Ledger, model string, docs ...Doc) {
	t.Helper()
	for _, d := range docs {
		text := d.Text
		v := embedfake.Vector(model, text)
		rec := &record.Record{URL: d.URL, CanonicalURL: d.URL, ID: record.ItemID(d.URL), SourceType: record.SourceArticle, Title: "T",
			Text: &text, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 5, Embedding: embed.Encode(v)}},
			Embed: &record.EmbedInfo{Model: model, Dimensions: len(v), Chunks: 1}}
		if _, err := l.Index(context.Background(), rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}
