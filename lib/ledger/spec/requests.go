package spec

import "time"

// AnnotationFilter chooses the annotations ListAnnotations returns. The
// zero value lists every highlight, newest first.
type AnnotationFilter struct {
	// Types are the annotation types (default: highlight).
	Types []string
	// Actor is "human", "agent" (every agent:NAME) or one exact actor.
	Actor string
	// Tag keeps annotations of items with this tag.
	Tag string
	// MinConfidence keeps annotations with at least this confidence (a
	// person's annotation without one counts as 1).
	MinConfidence float64
	// Review is "confirmed", "rejected", "unreviewed" or "" (any).
	Review string
	// Text keeps annotations whose text contains it (case-insensitive
	// for ASCII).
	Text string
	// Paging.
	Limit, Offset int
}

// ReviewDecision is one decision on one annotation (AnnotationID) or on
// one tag of an item (ItemID and Tag): Decision is confirmed, rejected
// or empty; Confidence, when set, replaces an annotation's confidence;
// Pinned, when set, pins or unpins a highlight.
type ReviewDecision struct {
	AnnotationID int64
	ItemID       string
	Tag          string
	Decision     string
	Confidence   *float64
	Pinned       *bool
	// IfVersion, when set, is the version of the annotation or tag the
	// decision was made on (record.Annotation.Version, record.Tag.Version):
	// when it has changed since, nothing is changed and the answer is a
	// *StaleError.
	IfVersion string
}

// Weights are the ranking weights (see docs/retrieval.md).
type Weights struct {
	Title                float64
	Body                 float64
	Annotations          float64
	PinnedBoost          float64
	LowConfidencePenalty float64
	LowConfidenceBelow   float64
	// SumBonus is the share of an item's other matching rows added to its
	// best row.
	SumBonus float64
	// Doc is the share of the item row's relevance (title, whole text,
	// annotations) added to the best chunk row's.
	Doc float64
	// Decay (off unless both are set): agent annotations with a
	// confidence below DecayBelow, created longer ago than DecayAfter,
	// never confirmed and on an item never cited stop counting in hit
	// highlights, briefs and the pinned/low-confidence adjustments. They
	// are kept; the decay is a view, not a write (see docs/store.md).
	DecayBelow float64
	DecayAfter time.Duration
}

// DefaultWeights are the documented defaults.
var DefaultWeights = Weights{
	Title:                2.5,
	Body:                 1,
	Annotations:          2,
	PinnedBoost:          2,
	LowConfidencePenalty: 2,
	LowConfidenceBelow:   0.5,
	SumBonus:             0,
	Doc:                  0.3,
}

// IndexOptions are the settings of Index.
type IndexOptions struct {
	// RetryBase is the wait before the first retry of a failed item
	// (default 1 minute); it doubles with each attempt up to RetryMax.
	RetryBase time.Duration
	// RetryMax caps the wait between retries (default 24 hours).
	RetryMax time.Duration
	// AgentHighlightCap is how many agent highlights an item keeps after
	// enrichment (3..7, default 5), as SaveOptions.AgentHighlightCap.
	AgentHighlightCap int
}

// SaveOptions are the settings of Save.
type SaveOptions struct {
	// Actor is the default actor of notes, tags and annotations that name
	// none ("human" when empty).
	Actor string
	// AgentHighlightCap is how many agent highlights an item keeps (3..7,
	// default 5). Beyond it the lowest-confidence unpinned agent highlight
	// is displaced; human and pinned highlights never are.
	AgentHighlightCap int
	// DefaultAgentConfidence is given to agent annotations without a
	// confidence (default 0.5).
	DefaultAgentConfidence float64
	// NamedByUser says the record's URL or path was named by the user on
	// the command line (not read from a stream): a local file item then
	// gets a file grant, so the worker may read it (grants.go).
	NamedByUser bool
}
