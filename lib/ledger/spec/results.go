package spec

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// IndexResult is what IndexBatch did with one record: its result, or the
// error that record alone met (as Index returns them).
type IndexResult struct {
	Res *record.IndexResult
	Err error
}

// MergeStats reports what MergeIndex did.
type MergeStats struct {
	Steps    int  // merge transactions that did work
	Complete bool // no merge work is left
}

// BackupResult is what Backup did besides writing the copy.
type BackupResult struct {
	// Removed are the temporary files of earlier backups to the same
	// file that were killed, removed before this one; RemovedBytes their
	// size.
	Removed      []string
	RemovedBytes int64
}

// Problem is one thing Check found wrong.
type Problem struct {
	Check   string `json:"check"`   // integrity, fts, orphans
	Message string `json:"message"` // what is wrong
	Count   int    `json:"count,omitempty"`
	Repair  string `json:"repair"` // how to repair it
}

// IngestInfo is an item's ingest status, carried under the record key
// "ingest" by the failed view and Status.
type IngestInfo struct {
	Status        string        `json:"status"`
	Attempts      int           `json:"attempts"`
	NextRetryAt   string        `json:"next_retry_at,omitempty"`
	LastError     *record.Error `json:"last_error,omitempty"`
	SavedAt       string        `json:"saved_at,omitempty"`
	UpdatedAt     string        `json:"updated_at,omitempty"`
	FetchedAt     string        `json:"fetched_at,omitempty"`
	ParsedAt      string        `json:"parsed_at,omitempty"`
	RevalidateDue bool          `json:"revalidate_due,omitempty"`
	DuplicateOf   string        `json:"duplicate_of,omitempty"`
	FromRecord    bool          `json:"content_from_record,omitempty"` // content came in the record: nothing to fetch
	Chunks        *int          `json:"chunks,omitempty"`
	Annotations   *int          `json:"annotations,omitempty"`
	Tags          *int          `json:"tags,omitempty"`

	// LastEnrichError is the last enrichment failure (ll-enrich's
	// enrich.error) of an item that stayed parsed; a stored enrichment
	// clears it.
	LastEnrichError *record.Error `json:"last_enrich_error,omitempty"`
	// LastEmbedError is the last embedding failure (ll-embed's
	// embed.error, linkledger embed's) of an item indexed without
	// vectors; stored vectors clear it.
	LastEmbedError *record.Error `json:"last_embed_error,omitempty"`
}

// BatchResult is what SaveBatch did with one record: its result, or the
// error that record alone met (*record.Error).
type BatchResult struct {
	Out *record.Record
	Err error
}

// Semantic is the semantic side of a search: the query's vector, the
// model that made it (only that model's vectors are read, never two
// models in one ranking), the mode and the fusion weight.
type Semantic struct {
	Vector []float32
	// Embed, when Vector is empty, embeds the query: a hybrid search
	// calls it on the semantic side's own goroutine, while the lexical
	// side ranks. Its failure leaves the lexical ranking
	// (SearchResult.SemanticErr), never an error.
	Embed  func(context.Context) ([]float32, error)
	Model  string
	Mode   string  // ModeSemantic or ModeHybrid
	Weight float64 // hybrid: the semantic side's share, 0..1
}

// StoredSetting is one row of the settings table.
type StoredSetting struct {
	Key       string `db:"key"`
	Value     string `db:"value"`
	UpdatedAt string `db:"updated_at"`
	UpdatedBy string `db:"updated_by"`
}

// DecayPolicy says which agent annotations stop counting in ranking and
// briefs: those with a confidence below Below, created longer ago than
// After, never confirmed by a person and on an item never cited. Either
// value 0 turns decay off. Decay is a view: nothing is written.
type DecayPolicy struct {
	Below float64
	After time.Duration
}

// Valid checks the policy's values.
func (p DecayPolicy) Valid() error {
	if math.IsNaN(p.Below) || p.Below < 0 || p.Below > 1 {
		return fmt.Errorf("decay below %v: want a confidence from 0 to 1", p.Below)
	}
	if p.After < 0 {
		return fmt.Errorf("decay after %v: want 0 or more", p.After)
	}
	return nil
}

// On reports whether the policy decays anything.
func (p DecayPolicy) On() bool { return p.Below > 0 && p.After > 0 }

// ChunkVector is one chunk's vector to store: the chunk by item and index,
// and its text as embedded (a chunk whose text changed since is skipped).
type ChunkVector struct {
	Index  int
	Text   string
	Vector []float32
}

// ItemToEmbed is a stored item whose chunks lack vectors of a model.
type ItemToEmbed struct {
	ID     string
	Chunks []ChunkVector // index and text; Vector empty
}
