package embed

import (
	"context"

	"github.com/linkledger/linkledger/lib/record"
)

// EmbedRecord adds a vector to each of rec's chunks ("embedding") and sets
// rec.embed to the model (its Identity: with the document prefix, if any),
// dimension and chunk count. The chunks' text stays as it is: the prefix
// is only sent. On failure the chunks
// carry no vectors (any they came with are removed, so a record never
// holds vectors of two runs) and rec.embed holds the model and the error,
// which is also returned: the record passes on and is indexed lexically.
func (c *Client) EmbedRecord(ctx context.Context, rec *record.Record) *record.Error {
	texts := make([]string, len(rec.Chunks))
	for i, ch := range rec.Chunks {
		texts[i] = ch.Text
	}
	vs, err := c.EmbedDocuments(ctx, texts)
	if err != nil {
		Fail(rec, c.Identity(), err)
		return err
	}
	for i := range rec.Chunks {
		rec.Chunks[i].Embedding = Encode(vs[i])
	}
	rec.Embed = &record.EmbedInfo{Model: c.Identity(), Dimensions: len(vs[0]), Chunks: len(vs)}
	return nil
}

// Fail marks rec as not embedded by model, for err: no chunk keeps a
// vector.
func Fail(rec *record.Record, model string, err *record.Error) {
	for i := range rec.Chunks {
		rec.Chunks[i].Embedding = ""
	}
	rec.Embed = &record.EmbedInfo{Model: model, Error: err}
}
