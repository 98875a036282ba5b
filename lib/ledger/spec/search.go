package spec

import (
	"time"

	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// Filter restricts search results, queue views and exports.
type Filter struct {
	Tags   []string  // all of these tags
	Type   string    // source type
	Since  time.Time // saved_at >= Since
	Until  time.Time // saved_at < Until
	Actor  string    // items with an annotation by this actor
	Status string    // ingest status
	// Archived says whether archived items pass (default: they do; ll-find
	// and ll-brief ask for NotArchived unless told otherwise).
	Archived Archived
	// From the query language (lib/query, ParseLang): items from any of
	// Sites (a host or its subdomains), of any of Types, annotated by any
	// of Actors, holding every one of Phrases and none of Exclude (words
	// or phrases, in the title, text or annotations), with a pinned
	// highlight, with a highlight, with a note.
	Sites         []string
	Types         []string
	Actors        []string
	Phrases       []string
	Exclude       []string
	Pinned        bool
	HasHighlights bool
	HasNotes      bool
	// A person's reading state (item_reading): starred items; read items
	// (archived ones count as read); unread items (neither).
	Starred bool
	Read    bool
	Unread  bool
}

// SearchOptions are the settings of a search (the store ranks them;
// ledger.FindOptions maps a find request to them).
type SearchOptions struct {
	Text    string
	Query   query.Options
	Weights Weights
	Filter  Filter
	Limit   int // default 10
	Offset  int
	// Candidates is the number of FTS rows ranked per index before grouping
	// by item in the first tier of results (default tierRows × tierItems, 80;
	// never sized by Limit or Offset, the store's rankPage). Cost is bounded by it,
	// not by the number of matches.
	Candidates int
	// Snippets is the number of snippets per hit (default 2).
	Snippets int
	// ExpandChunks adds the full matching chunks to each hit.
	ExpandChunks bool
	// Detailed is the number of hits of the page (best first) that carry
	// snippets, expanded chunks and why_ranked's matched fields and terms;
	// the hits past it carry their score only, which spares the highlight
	// queries of a tail nobody reads in full (ll-brief's pointers). 0: all.
	Detailed int
	// StaleAfter marks hits fetched longer ago than this as due for
	// revalidation (0: never).
	StaleAfter time.Duration
	// ScanRows bounds the rows bm25 ranks per query (default
	// DefaultScanRows; negative: no bound). Terms are kept rarest first
	// while the sum of their row counts fits; the others (the most common,
	// with the least bm25 weight) are left out. When even the rarest term
	// matches more rows, only the newest ScanRows matching rows are
	// ranked by bm25, or, when every term matches more than 3 × ScanRows
	// rows (stopword-like), taken newest first without bm25. So a query's
	// cost does not grow with the number of matches.
	ScanRows int
	// Cut leaves out weak matches: items scoring below Cut times the best
	// item's score (the first of the whole list, not of the page; see
	// rankPage). 0 or less: every match (the ledger's default is
	// DefaultCut). Unranked results (all scoring 0) are never cut.
	Cut float64
	// AllCopies shows every copy of the same text as its own hit, each
	// listing the others; by default a group of copies is one hit (see
	// copies.go).
	AllCopies bool
	// Semantic, when set, adds the semantic side (ModeHybrid) or ranks
	// by it alone (ModeSemantic); nil: lexical ranking (the store's
	// search_semantic.go).
	Semantic *Semantic
}

// SearchResult is what Search found.
type SearchResult struct {
	Hits []*record.Record
	// Terms are the terms searched for; Dropped the ones left out
	// (stopwords, terms too common to rank).
	Terms   []string
	Dropped []string
	// StaleIDs are the hits due for revalidation (the store marks them for revalidation).
	StaleIDs []string
	// SemanticErr is why a search with a semantic side ranked lexically:
	// its Semantic.Embed failed.
	SemanticErr error
}

// QueueOptions are the settings of a queue view (ll-find --pending,
// --failed, --stale).
type QueueOptions struct {
	Queue       string
	Filter      Filter
	Limit       int // 0: no limit
	Offset      int
	MaxAttempts int           // pending: failed items with fewer attempts are retried (default 5)
	OlderThan   time.Duration // stale: fetched at least this long ago (0: every fetched item; the commands' default is 30 days)
}
