package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// Semantic retrieval (docs/retrieval.md, "Semantic and hybrid
// retrieval"): which ranking a search uses, and the query's vector.

// ParseMode checks a ranking mode: "" (the default), lexical, semantic
// or hybrid.
func ParseMode(m string) error {
	switch m {
	case "", spec.ModeLexical, spec.ModeSemantic, spec.ModeHybrid:
		return nil
	}
	return fmt.Errorf("%q: want lexical, semantic or hybrid", m)
}

// SemanticSide decides the ranking of a search with a query: opt.Mode
// when given, else hybrid when the ledger holds vectors of the configured
// model and lexical otherwise. The query is embedded once: at once for a
// semantic ranking, and for a hybrid one by the search itself, on the
// semantic side's goroutine while the lexical side ranks
// (spec.Semantic.Embed; see EmbedFailed). Anything that stops the
// semantic side (no endpoint, no vectors of the model, the endpoint
// failing) leaves the lexical ranking and a warning, never an error. It
// returns the store's semantic side (nil: lexical), the mode used and the
// warnings.
func (l *Ledger) SemanticSide(ctx context.Context, opt FindOptions) (*spec.Semantic, string, []string) {
	st := l.st
	if opt.Query == "" {
		return nil, spec.ModeLexical, nil
	}
	sem, mode, size, warnings := semanticMode(ctx, st, opt)
	if sem == nil {
		return nil, mode, warnings
	}
	e, text := opt.Embedder, opt.Query
	// the caller's ctx, not the one the store passes (which a search
	// detaches from cancellation): a caller that gives up stops the request
	embedQuery := func(context.Context) ([]float32, error) {
		v, rerr := e.EmbedQuery(ctx, text)
		if rerr != nil {
			return nil, &embedError{rerr}
		}
		if len(v) != size {
			// a query of another size than the vectors would rank none of
			// them: lexical, and say why (a model's stored vectors of
			// several sizes, as stored before sizes were checked, rank
			// those of the query's)
			if ok, err := st.HasVectorsOfSize(ctx, sem.Model, len(v)); err != nil || !ok {
				return nil, &sizeError{model: sem.Model, query: len(v), stored: size}
			}
		}
		return v, nil
	}
	if mode == spec.ModeHybrid {
		sem.Embed = embedQuery
		return sem, mode, nil
	}
	v, err := embedQuery(ctx)
	if err != nil {
		return nil, spec.ModeLexical, []string{EmbedFailed(err)}
	}
	sem.Vector = v
	return sem, mode, nil
}

// embedError is the failure of a query's embedding.
type embedError struct{ e *record.Error }

func (e *embedError) Error() string { return e.e.Code + ": " + e.e.Message }

// sizeError is a query vector of another size than the model's stored
// vectors.
type sizeError struct {
	model         string
	query, stored int
}

func (e *sizeError) Error() string {
	return fmt.Sprintf("the embeddings endpoint answered a query vector of %d dimensions; the ledger's vectors of model %s have %d (if the endpoint's model changed, run linkledger embed --all --resize)", e.query, e.model, e.stored)
}

// EmbedFailed is the warning of a search whose query could not be
// embedded, or whose vector has another size than the stored ones
// (spec.SearchResult.SemanticErr): it ranked lexically.
func EmbedFailed(err error) string {
	var se *sizeError
	if errors.As(err, &se) {
		return se.Error() + ": lexical ranking"
	}
	var ee *embedError
	if errors.As(err, &ee) {
		return fmt.Sprintf("embeddings endpoint: %s: %s: lexical ranking", ee.e.Code, ee.e.Message)
	}
	return fmt.Sprintf("embeddings endpoint: %v: lexical ranking", err)
}

// RelatedSide decides the semantic side of a related search (ll-find
// --related, the MCP related tool) as SemanticSide does for a query, and
// asks no endpoint: the item's own vectors stand for the query
// (store.Related). It returns the side without a vector (nil: lexical),
// the mode and the warnings.
func (l *Ledger) RelatedSide(ctx context.Context, opt FindOptions) (*spec.Semantic, string, []string) {
	st := l.st
	sem, mode, _, warnings := semanticMode(ctx, st, opt)
	return sem, mode, warnings
}

// semanticMode is the decision of SemanticSide: the mode, and the side
// (model, mode, weight; no vector yet) unless lexical, with the size of
// the model's stored vectors.
func semanticMode(ctx context.Context, st *store.Store, opt FindOptions) (*spec.Semantic, string, int, []string) {
	mode := opt.Mode
	if mode == spec.ModeLexical {
		return nil, spec.ModeLexical, 0, nil
	}
	e := opt.Embedder
	if e == nil {
		if mode != "" {
			return nil, spec.ModeLexical, 0, []string{fmt.Sprintf("--mode %s: no embeddings endpoint configured (LINKLEDGER_EMBED_URL, LINKLEDGER_EMBED_MODEL): lexical ranking", mode)}
		}
		return nil, spec.ModeLexical, 0, nil
	}
	// the vectors of the model made with the document prefix in force
	// (embed.Identity): never those of another prefix
	model := e.Identity()
	size, err := st.VectorSize(ctx, model)
	if err != nil {
		return nil, spec.ModeLexical, 0, []string{fmt.Sprintf("reading vectors: %v: lexical ranking", err)}
	}
	if size == 0 {
		if model != e.Model {
			// vectors of the bare model: made before the prefix was set
			// (or before it became the model's default); say so even by
			// default, or hybrid ranking would stop without a word
			if old, err := st.HasVectors(ctx, e.Model); err == nil && old {
				return nil, spec.ModeLexical, 0, []string{fmt.Sprintf("the ledger's vectors of model %s were made without the document prefix %q (run linkledger embed --all to embed them again with it): lexical ranking", e.Model, e.DocPrefix)}
			}
		}
		if mode != "" {
			return nil, spec.ModeLexical, 0, []string{fmt.Sprintf("--mode %s: the ledger holds no vectors of model %s (run linkledger embed --all): lexical ranking", mode, model)}
		}
		return nil, spec.ModeLexical, 0, nil
	}
	if mode == "" {
		mode = spec.ModeHybrid
	}
	w := spec.DefaultSemanticWeight
	if opt.SemanticWeight != nil {
		w = *opt.SemanticWeight
	}
	return &spec.Semantic{Model: model, Mode: mode, Weight: w}, mode, size, nil
}

// QueryClient is the client a search embeds its query with: c with one
// attempt (a search does not wait to retry: it ranks lexically and says
// so) and its time bound. Its prefixes are c's: EmbedQuery sends the
// query after QueryPrefix, and DocPrefix names the vectors searched.
func QueryClient(c *embed.Client) *embed.Client {
	if c == nil {
		return nil
	}
	q := *c
	q.Attempts = 1
	q.BatchSize = 1
	return &q
}
