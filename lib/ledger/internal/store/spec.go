package store

import "github.com/linkledger/linkledger/lib/ledger/spec"

// The store's names for the shapes it shares with lib/ledger, which
// defines them in lib/ledger/spec (the store's own code keeps its short
// names; nothing outside lib/ledger sees these).
const (
	ApplicationID            = spec.ApplicationID
	ReviewUndo               = spec.ReviewUndo
	ReviewConfirmed          = spec.ReviewConfirmed
	ReviewRejected           = spec.ReviewRejected
	DefaultStoredChunkBytes  = spec.DefaultStoredChunkBytes
	MergePagesPerItem        = spec.MergePagesPerItem
	QueuePending             = spec.QueuePending
	QueueFailed              = spec.QueueFailed
	QueueStale               = spec.QueueStale
	AnyArchived              = spec.AnyArchived
	NotArchived              = spec.NotArchived
	OnlyArchived             = spec.OnlyArchived
	DefaultScanRows          = spec.DefaultScanRows
	ModeLexical              = spec.ModeLexical
	ModeSemantic             = spec.ModeSemantic
	ModeHybrid               = spec.ModeHybrid
	DefaultSemanticWeight    = spec.DefaultSemanticWeight
	DefaultCut               = spec.DefaultCut
	DefaultAgentHighlightCap = spec.DefaultAgentHighlightCap
	MinAgentHighlightCap     = spec.MinAgentHighlightCap
	MaxAgentHighlightCap     = spec.MaxAgentHighlightCap
	ActorHuman               = spec.ActorHuman
	DefaultMaxAttempts       = spec.DefaultMaxAttempts
)

var (
	ErrNoAnnotation = spec.ErrNoAnnotation
	ErrNoImage      = spec.ErrNoImage
	ErrNotFound     = spec.ErrNotFound
	ErrNoDatabase   = spec.ErrNoDatabase
	DefaultWeights  = spec.DefaultWeights
)

type (
	NotLedgerError    = spec.NotLedgerError
	NoAnnotationError = spec.NoAnnotationError
	DimensionError    = spec.DimensionError
	StaleError        = spec.StaleError
	BatchError        = spec.BatchError
	Archived          = spec.Archived
	IndexOptions      = spec.IndexOptions
	SaveOptions       = spec.SaveOptions
	Weights           = spec.Weights
	ReviewDecision    = spec.ReviewDecision
	AnnotationFilter  = spec.AnnotationFilter
	MergeStats        = spec.MergeStats
	ChunkVector       = spec.ChunkVector
	ItemToEmbed       = spec.ItemToEmbed
	BackupResult      = spec.BackupResult
	Problem           = spec.Problem
	StoredSetting     = spec.StoredSetting
	IndexResult       = spec.IndexResult
	BatchResult       = spec.BatchResult
	IngestInfo        = spec.IngestInfo
	Semantic          = spec.Semantic
	DecayPolicy       = spec.DecayPolicy
	Filter            = spec.Filter
	QueueOptions      = spec.QueueOptions
	SearchOptions     = spec.SearchOptions
	SearchResult      = spec.SearchResult
)
