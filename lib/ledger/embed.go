package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
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
}

// embedPage is how many items EmbedStored reads at a time.
const embedPage = 16

// EmbedStored embeds the stored chunks that have no vector of c's model
// (its Identity: a changed document prefix is a changed model),
// item by item, each item's vectors stored in one transaction: killed,
// it leaves every item embedded or not, and a new run does the rest (it
// skips the items done, so it is also idempotent). A chunk whose vector
// is of another model is embedded again (a model change). An item the
// endpoint failed on keeps the error (last_embed_error) and is passed;
// after a timeout or a connection failure, or embed.MaxFailuresInARow
// items failed in a row, the run stops there (embed.Breaker; opt.Stopped
// says why): what was done stays stored and a new run resumes. emit is
// called with each item's outcome: {id, embed: {model, dimensions,
// chunks}} or {id, embed: {model, error}}. It returns how many items
// failed.
func EmbedStored(ctx context.Context, st *store.Store, c *embed.Client, opt EmbedOptions, emit func(*record.Record) error) (failed int, err error) {
	after, done, model := "", 0, c.Identity()
	var brk embed.Breaker
	// pack the codes a search scans that wait for a block (a block
	// dissolved by deletes, with no vectors stored since)
	if err := st.PackVectorCodes(ctx, model); err != nil {
		return 0, err
	}
	for {
		n := embedPage
		if opt.Limit > 0 {
			n = min(n, opt.Limit-done)
			if n <= 0 {
				return failed, nil
			}
		}
		items, err := st.ItemsToEmbed(ctx, model, opt.IDs, after, n)
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
			rec := &record.Record{ID: it.ID}
			vs, rerr := c.EmbedDocuments(ctx, texts)
			if rerr != nil {
				failed++
				rec.Embed = &record.EmbedInfo{Model: model, Error: rerr}
				if err := st.NoteEmbedError(ctx, it.ID, rerr); err != nil {
					return failed, err
				}
				if err := emit(rec); err != nil {
					return failed, err
				}
				if brk.Note(rerr) {
					if opt.Stopped != nil {
						opt.Stopped(brk.Reason())
					}
					return failed, nil
				}
				continue
			}
			for i := range it.Chunks {
				it.Chunks[i].Vector = vs[i]
			}
			stored, err := st.PutVectors(ctx, it.ID, model, it.Chunks)
			if err != nil {
				return failed, err
			}
			brk.Note(nil)
			rec.Embed = &record.EmbedInfo{Model: model, Dimensions: len(vs[0]), Chunks: stored}
			if err := emit(rec); err != nil {
				return failed, err
			}
		}
	}
}
