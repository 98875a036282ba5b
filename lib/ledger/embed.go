package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"

	"github.com/linkledger/linkledger/lib/embed"
)

// EmbedOptions are the settings of EmbedStored.
type EmbedOptions struct {
	// IDs are the items to embed (resolved ids); empty: every item.
	IDs []string
	// Limit stops after this many items (0: no limit).
	Limit int
	// Stopped, when set, is called when the run stops asking the
	// endpoint before its end (embed.Breaker), with the reason.
	Stopped func(reason string)
	// SizeRefused, when set, is called for each item whose vectors were
	// refused for their size (spec.DimensionError).
	SizeRefused func(*spec.DimensionError)
	// Resize moves the model's vectors to the size the endpoint answers
	// now: chunks whose vector of the model has another size are embedded
	// again, and vectors of another size than that are refused (after the
	// endpoint's model changed under the same name).
	Resize bool
}

// embedPage is how many items EmbedStored reads at a time.
const embedPage = 16

// EmbedStored embeds the stored chunks that have no vector of c's model
// (its Identity: a changed document prefix is a changed model),
// item by item, each item's vectors stored in one transaction: killed,
// it leaves every item embedded or not, and a new run does the rest (it
// skips the items done, so it is also idempotent). A chunk whose vector
// is of another model is embedded again (a model change). An item the
// endpoint failed on keeps the error (last_embed_error) and is passed, as
// does an item whose vectors have another size than the model's stored
// ones (spec.DimensionError: refused, never mixed with them);
// after a timeout or a connection failure, or embed.MaxFailuresInARow
// items failed in a row, the run stops there (embed.Breaker; opt.Stopped
// says why): what was done stays stored and a new run resumes. emit is
// called with each item's outcome: {id, embed: {model, dimensions,
// chunks}} or {id, embed: {model, error}}. It returns how many items
// failed.
func (l *Ledger) EmbedStored(ctx context.Context, c *embed.Client, opt EmbedOptions, emit func(*record.Record) error) (failed int, err error) {
	st := l.st
	after, done, model := "", 0, c.Identity()
	var brk embed.Breaker
	// pack the codes a search scans that wait for a block (a block
	// dissolved by deletes, with no vectors stored since)
	if err := st.PackVectorCodes(ctx, model); err != nil {
		return 0, err
	}
	size := 0 // the size vectors must have (0: that of the model's stored ones)
	if opt.Resize {
		// the size the endpoint answers now: every vector of the model
		// moves to it
		vs, rerr := c.EmbedDocuments(ctx, []string{"size"})
		if rerr != nil {
			return 0, fmt.Errorf("--resize: asking the embeddings endpoint the size of its vectors: %s: %s", rerr.Code, rerr.Message)
		}
		size = len(vs[0])
	}
	// fail keeps an item's failure and says whether the run stops
	fail := func(id string, rerr *record.Error) (bool, error) {
		failed++
		if err := st.NoteEmbedError(ctx, id, rerr); err != nil {
			return true, err
		}
		if err := emit(&record.Record{ID: id, Embed: &record.EmbedInfo{Model: model, Error: rerr}}); err != nil {
			return true, err
		}
		if brk.Note(rerr) {
			if opt.Stopped != nil {
				opt.Stopped(brk.Reason())
			}
			return true, nil
		}
		return false, nil
	}
	for {
		n := embedPage
		if opt.Limit > 0 {
			n = min(n, opt.Limit-done)
			if n <= 0 {
				return failed, nil
			}
		}
		items, err := st.ItemsToEmbedOfSize(ctx, model, size, opt.IDs, after, n)
		if err != nil || len(items) == 0 {
			return failed, err
		}
		for _, it := range items {
			if err := ctx.Err(); err != nil {
				return failed, err
			}
			after = it.ID
			done++
			texts := make([]string, len(it.Chunks))
			for i, ch := range it.Chunks {
				texts[i] = ch.Text
			}
			vs, rerr := c.EmbedDocuments(ctx, texts)
			if rerr != nil {
				if stop, err := fail(it.ID, rerr); stop {
					return failed, err
				}
				continue
			}
			for i := range it.Chunks {
				it.Chunks[i].Vector = vs[i]
			}
			stored, err := st.PutVectorsOfSize(ctx, it.ID, model, size, it.Chunks)
			var de *spec.DimensionError
			if errors.As(err, &de) {
				// refused for its size: an error of this item, as a
				// failed embedding is
				if opt.SizeRefused != nil {
					opt.SizeRefused(de)
				}
				if stop, err := fail(it.ID, de.RecordError()); stop {
					return failed, err
				}
				continue
			}
			if err != nil {
				return failed, err
			}
			brk.Note(nil)
			rec := &record.Record{ID: it.ID, Embed: &record.EmbedInfo{Model: model, Dimensions: len(vs[0]), Chunks: stored}}
			if err := emit(rec); err != nil {
				return failed, err
			}
		}
	}
}
