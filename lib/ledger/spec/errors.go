package spec

import (
	"errors"
	"fmt"

	"github.com/linkledger/linkledger/lib/record"
)

// ApplicationID is linkledger's PRAGMA application_id: the ASCII of
// "LLdg" (0x4C4C6467). Every database linkledger creates carries it in
// its header (migration 0007 adds it to older ones).
const ApplicationID = 0x4C4C6467

// NotLedgerError says the file is not a linkledger database, so Open
// leaves it untouched rather than migrate it.
type NotLedgerError struct {
	Path string
	// SQLite is false when the file is not a SQLite database at all.
	SQLite bool
	// AppID is the foreign application_id, 0 when there is none.
	AppID uint32
}

func (e *NotLedgerError) Error() string {
	switch {
	case !e.SQLite:
		return e.Path + " is not a SQLite database"
	case e.AppID != 0:
		return fmt.Sprintf("%s is a SQLite database but not a linkledger one (application_id %#x, want %#x)", e.Path, e.AppID, ApplicationID)
	default:
		return e.Path + " is a SQLite database but not a linkledger one"
	}
}

// Hint says what to do instead (cli.Report prints it).
func (e *NotLedgerError) Hint() string {
	return "linkledger leaves other files alone: give --db (or LINKLEDGER_DB) a new file name or an existing linkledger database"
}

// DimensionError is a vector refused for its size: the model's stored
// vectors have another (a model's vectors are of one size, or a search
// could rank only some of them, and a query of the other size none).
type DimensionError struct {
	Model      string
	Got, Want  int
	Stored     bool // Want is the size of the model's stored vectors (else the size asked for: --resize)
	Suggestion string
}

func (e *DimensionError) Error() string {
	if e.Stored {
		return fmt.Sprintf("vectors of %d dimensions for model %s, whose stored vectors have %d: not stored (the endpoint's model changed?)", e.Got, e.Model, e.Want)
	}
	return fmt.Sprintf("vectors of %d dimensions for model %s, want %d (this run's size): not stored", e.Got, e.Model, e.Want)
}

// RecordError is e as the record error of an item not embedded.
func (e *DimensionError) RecordError() *record.Error {
	return &record.Error{Stage: record.StageEmbed, Code: record.CodeBadContent, Message: e.Error()}
}

// StaleError refuses a decision made on a page that showed an annotation
// or a tag as it no longer is: another tab or person decided since, or
// it was edited. Nothing was changed.
type StaleError struct {
	ItemID       string
	AnnotationID int64
	Tag          string
	// Now says what it is now, e.g. "confirmed by human".
	Now string
}

func (e *StaleError) Error() string {
	what := fmt.Sprintf("annotation %d", e.AnnotationID)
	if e.Tag != "" {
		what = "tag " + record.Quote(e.Tag)
	}
	msg := what + " changed since the page showed it"
	if e.Now != "" {
		msg += " (it is now " + e.Now + ")"
	}
	return msg + ": nothing was changed; reload to see it as it is and decide again"
}

// BatchError is the decision of a batch that failed (Index in the
// batch); the batch changed nothing.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string {
	return fmt.Sprintf("decision %d of the batch: %v (the batch changed nothing)", e.Index+1, e.Err)
}

func (e *BatchError) Unwrap() error { return e.Err }

// ReviewUndo is the decision that takes a person's confirm or reject of
// an annotation back: it is undecided again and back in the queue.
const ReviewUndo = "undo"

// Review decisions (annotations.review, tags.review).
const (
	ReviewConfirmed = "confirmed"
	ReviewRejected  = "rejected"
)

// DefaultStoredChunkBytes is how much chunk text ll-find --with-chunks
// puts on one record by default: ll-index's default text cap, so an item
// indexed with the defaults comes whole (overlapping chunks aside).
const DefaultStoredChunkBytes = 4 << 20

// ErrNoAnnotation is returned (wrapped in a *NoAnnotationError) when an
// annotation id is not one of the item's annotations.
var ErrNoAnnotation = errors.New("no such annotation")

// ErrNoImage is returned by Image for an image the item has no stored
// copy of (or no image at that position).
var ErrNoImage = errors.New("no stored image")

// MergePagesPerItem is the merge budget ll-index spends per indexed item.
const MergePagesPerItem = 64

// Queue names. Pending and stale feed ll-fetch: both skip items whose
// content came in the record (content_from_record), which have nothing to
// fetch.
const (
	QueuePending = "pending" // saved, or failed (retryable) and due for a retry
	QueueFailed  = "failed"  // failed
	QueueStale   = "stale"   // fetched longer ago than OlderThan
)

// ErrNotFound is returned for an unknown item id.
var ErrNotFound = errors.New("no such item")

// Archived is the archive filter.
type Archived int

// Values of Filter.Archived.
const (
	AnyArchived  Archived = iota // archived items or not
	NotArchived                  // leave archived items out
	OnlyArchived                 // archived items only
)

// DefaultScanRows is the default of SearchOptions.ScanRows.
const DefaultScanRows = 3000

// Ranking modes (ll-find --mode).
const (
	ModeLexical  = "lexical"
	ModeSemantic = "semantic"
	ModeHybrid   = "hybrid"
)

// DefaultSemanticWeight is the semantic side's share in hybrid fusion:
// equal weights, which serve a modern embedding model (published BEIR
// SciFact figures: BM25 0.686, bge-base 0.741, their RRF 0.744). A weak
// embedder should get less (docs/retrieval.md).
const DefaultSemanticWeight = 0.5

// ErrNoDatabase says the database file does not exist (Options.MustExist).
var ErrNoDatabase = errors.New("no database")

// DefaultCut is ll-find's, ll-brief's and the MCP tools' default
// SearchOptions.Cut (ledger.FindOptions): the largest share that
// cost neither nDCG@10 nor a relevant item in the top 29 on SciFact train
// half A (0.32; 0.3 kept, a margin), confirmed on half B
// (docs/retrieval.md "Weak matches").
const DefaultCut = 0.3

// Limits and defaults of the agent highlights of a saved record
// (SaveOptions.AgentHighlightCap, ll-save --agent-highlights).
const (
	DefaultAgentHighlightCap = 5
	MinAgentHighlightCap     = 3
	MaxAgentHighlightCap     = 7
)

// CheckAgentHighlightCap checks a cap on an agent's highlights per item
// (--agent-cap): MinAgentHighlightCap..MaxAgentHighlightCap. The one rule
// of the commands' flags and the store's SaveOptions and IndexOptions.
func CheckAgentHighlightCap(n int) error {
	if n < MinAgentHighlightCap || n > MaxAgentHighlightCap {
		return fmt.Errorf("agent-cap %d: want %d..%d", n, MinAgentHighlightCap, MaxAgentHighlightCap)
	}
	return nil
}

// ActorHuman is the actor of the person using the ledger.
const ActorHuman = record.ActorHuman

// DefaultMaxAttempts is the default of QueueOptions.MaxAttempts.
const DefaultMaxAttempts = 5

// NoAnnotationError names the annotation ids that are not the item's.
type NoAnnotationError struct {
	ItemID string
	IDs    []int64
}

func (e *NoAnnotationError) Error() string {
	if e.ItemID == "" && len(e.IDs) == 1 {
		return fmt.Sprintf("no annotation %d", e.IDs[0])
	}
	if len(e.IDs) == 1 {
		return fmt.Sprintf("no annotation %d on item %s", e.IDs[0], e.ItemID)
	}
	return fmt.Sprintf("no annotations %v on item %s", e.IDs, e.ItemID)
}

// Unwrap makes the error ErrNoAnnotation to errors.Is.
func (e *NoAnnotationError) Unwrap() error { return ErrNoAnnotation }
