// Package parse turns fetched bodies into normalised text and metadata
// through a chain of adapters chosen by source type and content type.
package parse

import (
	"github.com/linkledger/linkledger/lib/record"
)

// Segment is a run of text that chunking keeps together where it can
// (a paragraph, a transcript cue, a page). StartS and Page travel into the
// chunks made from it.
type Segment struct {
	Text   string
	StartS *float64
	Page   int
}

// Result is what an adapter extracted from one record.
type Result struct {
	Title        string
	Author       string
	PublishedAt  string // RFC 3339 UTC when known
	SiteName     string
	Lang         string
	Excerpt      string
	Description  string
	DurationS    float64
	SourceType   string // corrected source type, "" to keep the record's
	Source       string // upstream source that answered (e.g. x-syndication)
	NoTextReason string // typed reason when the main text is missing
	// Truncated is set by an adapter that stopped reading its extractor's
	// output at the text cap (the PDF adapter); parse.Run marks the record.
	Truncated bool
	Warnings  []string
	// Markdown is the structure of the text (headings, lists, code,
	// tables, figures) as CommonMark with tables; "" when the adapter
	// has none. parse.Run caps it.
	Markdown string
	// Images are the images of the Markdown (absolute http(s) addresses
	// as it has them, alt text, caption); parse.Run keeps those still in
	// the capped Markdown.
	Images []record.Image
	// Segments is the text in reading order. Adapters that only have flat
	// text put paragraphs (split on blank lines) in segments.
	Segments []Segment
}

// Adapter extracts text from one kind of input.
type Adapter interface {
	// Name is recorded in the parse record (parse.adapter).
	Name() string
	// Match reports whether the adapter can handle the record, judging by
	// source type, content type and URL.
	Match(rec *record.Record) bool
	// Parse extracts the text. An error whose type is *record.Error is
	// reported as is; any other error is wrapped as extract_failed and the
	// chain falls back to the next matching adapter.
	Parse(rec *record.Record) (*Result, error)
}
