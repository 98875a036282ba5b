package ledger

import (
	"context"
	"errors"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// FindOptions are the settings of Find, Related and Brief: what the
// search flags of ll-find and ll-brief and the arguments of the MCP find
// and brief tools say, as plain values. The zero value searches with the
// documented defaults and leaves archived items out.
type FindOptions struct {
	// Query is the search text; empty lists items newest first.
	Query string
	// Filters.
	Tags   []string  // items with all of these tags
	Type   string    // source type (article, x, youtube, pdf, text)
	Since  time.Time // saved at or after
	Until  time.Time // saved before
	Actor  string    // items with an annotation by this actor
	Status string    // ingest state
	// Archived says whether archived items pass (spec.NotArchived, the
	// zero value's meaning, unless set).
	Archived spec.Archived
	// ArchivedSet says Archived was chosen; without it archived items are
	// left out, as ll-find does by default.
	ArchivedSet bool
	// Site, Starred, Read and Unread are what site:HOST, is:starred,
	// is:read and is:unread of the query say, as fields (the web app's
	// library filters with them; both apply).
	Site                  string
	Starred, Read, Unread bool
	// Paging: at most Limit items (default 10) after Offset.
	Limit, Offset int
	// Snippets per item: 0 the default (2), negative none.
	Snippets int
	// ExpandChunks adds the full matching chunks to each item.
	ExpandChunks bool
	// Detailed is how many items (best first) carry snippets and matched
	// fields and terms; the others their score only (0: all).
	Detailed int
	// AllCopies shows every copy of one text as its own item.
	AllCopies bool
	// StaleAfter marks items fetched longer ago as due for revalidation
	// (0: never).
	StaleAfter time.Duration
	// Cut leaves out weak matches: items scoring below Cut times the best
	// item's score (0: spec.DefaultCut; negative: every match).
	Cut float64
	// Ranking: spec.Weights (zero: spec.DefaultWeights) and ScanRows (0:
	// spec.DefaultScanRows; -1: no bound).
	Weights  spec.Weights
	ScanRows int
	// Decay chooses which unconfirmed agent annotations stop counting
	// (the zero value: the ledger's policy, DecayPolicy). It replaces
	// spec.Weights' decay fields.
	Decay DecayOptions
	// Mode is the ranking: spec.ModeLexical, spec.ModeSemantic, spec.ModeHybrid,
	// or "" (hybrid when the ledger holds vectors of Embedder's model,
	// else lexical). Embedder embeds the query (nil: no endpoint, lexical
	// ranking); SemanticWeight is the semantic side's share in hybrid
	// fusion (nil: spec.DefaultSemanticWeight).
	Mode           string
	Embedder       *embed.Client
	SemanticWeight *float64

	semantic *spec.Semantic // set by Find from the three above

	lang spec.Filter // the query language's filters (applyQuery)
	// langWarnings: what applyQuery left out of the query (MentionsDropped)
	langWarnings []string
}

// SearchOptions maps the options to a search's.
func (o FindOptions) SearchOptions() spec.SearchOptions {
	f := o.lang
	f.Tags, f.Type, f.Since, f.Until, f.Actor, f.Status, f.Archived = o.Tags, o.Type, o.Since, o.Until, o.Actor, o.Status, spec.NotArchived
	if o.ArchivedSet {
		f.Archived = o.Archived
	}
	if h := query.SiteHost(o.Site); h != "" {
		f.Sites = append(append([]string{}, f.Sites...), h)
	}
	f.Starred, f.Read, f.Unread = f.Starred || o.Starred, f.Read || o.Read, f.Unread || o.Unread
	return spec.SearchOptions{
		Text: o.Query, Filter: f, Limit: o.Limit, Offset: o.Offset, Snippets: o.Snippets,
		ExpandChunks: o.ExpandChunks, Detailed: o.Detailed, AllCopies: o.AllCopies, StaleAfter: o.StaleAfter,
		Weights: o.Weights, ScanRows: o.ScanRows, Semantic: o.semantic, Cut: o.cut(),
	}
}

// EveryMatch is the Cut that keeps every match, however weak: the CLI's
// --all-matches (and --cut 0) and the MCP tools' all_matches.
const EveryMatch = -1.0

// cut is the store's Cut for o.Cut (0: the default share).
func (o FindOptions) cut() float64 {
	switch {
	case o.Cut == 0:
		return spec.DefaultCut
	case o.Cut < 0:
		return 0
	}
	return o.Cut
}

// FindResult is what Find and Related return.
type FindResult struct {
	// Hits are the items, best first.
	Hits []*record.Record
	// Dropped are query terms left out (stopwords, terms too common to
	// rank).
	Dropped []string
	// MarkErr is why marking stale items for revalidation was skipped (a
	// busy database); the search itself succeeded.
	MarkErr error
	// Mode is the ranking used (lexical, semantic or hybrid); Warnings
	// say why it is lexical when semantic ranking was asked for or could
	// not be had (no endpoint, no vectors of the model, the endpoint
	// failing). The search itself succeeded.
	Mode     string
	Warnings []string
	// ArchivedMatches is set when the search, which left archived items
	// out, found nothing: how many archived items it finds (at most
	// ArchivedMatchesMax; 0: none either). The faces then say the matches
	// are archived and how to show them (the query with is:archived).
	ArchivedMatches int
}

// Find searches the ledger (or, with no query, lists items newest first)
// and marks the stale items it returns as due for revalidation.
func (l *Ledger) Find(ctx context.Context, opt FindOptions) (*FindResult, error) {
	st := l.st
	opt = applyQuery(opt, st.Now())
	opt, err := l.ResolveDecay(ctx, opt)
	if err != nil {
		return nil, err
	}
	var warnings []string
	mode := ""
	if opt.Query != "" {
		opt.semantic, mode, warnings = l.SemanticSide(ctx, opt)
	}
	so := opt.SearchOptions()
	var res *spec.SearchResult
	if so.Text == "" {
		res, err = st.Recent(ctx, so)
	} else {
		res, err = st.Search(ctx, so)
	}
	if err != nil {
		return nil, err
	}
	if res.SemanticErr != nil {
		mode, warnings = spec.ModeLexical, append(warnings, EmbedFailed(res.SemanticErr))
	}
	warnings = append(warnings, opt.langWarnings...)
	out := &FindResult{Hits: res.Hits, Dropped: res.Dropped, MarkErr: st.MarkRevalidate(ctx, res.StaleIDs), Mode: mode, Warnings: warnings}
	if len(res.Hits) == 0 && so.Offset == 0 && so.Filter.Archived == spec.NotArchived {
		if out.ArchivedMatches, err = archivedMatches(ctx, st, so); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ArchivedMatchesMax bounds FindResult.ArchivedMatches: the count is of
// one page of archived matches, not of all of them.
const ArchivedMatchesMax = 20

// archivedMatches is how many archived items (at most ArchivedMatchesMax)
// the search so, which left archived items out and found nothing, finds
// among the archived items: "archived means read, still findable" (issue
// 30), so the faces say that only archived items match and how to show
// them (is:archived) instead of "try other words".
func archivedMatches(ctx context.Context, st *store.Store, so spec.SearchOptions) (int, error) {
	so.Filter.Archived = spec.OnlyArchived
	so.Limit, so.Snippets, so.Detailed = ArchivedMatchesMax, -1, 1
	var (
		res *spec.SearchResult
		err error
	)
	if so.Text == "" {
		res, err = st.Recent(ctx, so)
	} else {
		res, err = st.Search(ctx, so)
	}
	if err != nil {
		return 0, err
	}
	return len(res.Hits), nil
}

// Related returns the items related to the item arg names (an id or its
// URL) by content and shared tags, fused with the items nearest its own
// vectors when the ranking is semantic or hybrid (RelatedSide), weak
// neighbours left out (RelatedHits; opt.Cut as for a query); opt.Query
// is ignored.
func (l *Ledger) Related(ctx context.Context, arg string, opt FindOptions, ro ResolveOptions) (*FindResult, error) {
	st := l.st
	id, err := l.ResolveItem(ctx, arg, ro)
	if err != nil {
		return nil, err
	}
	if opt, err = l.ResolveDecay(ctx, opt); err != nil {
		return nil, err
	}
	var (
		warnings []string
		mode     string
	)
	opt.semantic, mode, warnings = l.RelatedSide(ctx, opt)
	so := opt.SearchOptions()
	so.Text = ""
	res, err := l.RelatedHits(ctx, id, so)
	if err != nil {
		return nil, notFound(err, arg, st)
	}
	return &FindResult{Hits: res.Hits, Dropped: res.Dropped, MarkErr: st.MarkRevalidate(ctx, res.StaleIDs), Mode: mode, Warnings: warnings}, nil
}

// Status returns one item's full ingest status (as ll-find --id): state,
// attempts, last error, timestamps and counts.
func (l *Ledger) Status(ctx context.Context, arg string, ro ...ResolveOptions) (*record.Record, error) {
	st := l.st
	id, err := l.ResolveItem(ctx, arg, firstResolve(ro))
	if err != nil {
		return nil, err
	}
	rec, err := st.Status(ctx, id)
	if errors.Is(err, spec.ErrNotFound) {
		return nil, notFound(err, arg, st)
	}
	return rec, err
}
