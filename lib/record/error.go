package record

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Error is the error object a failed stage attaches to a record.
type Error struct {
	Stage      string `json:"stage"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Retryable  bool   `json:"retryable"`
	HTTPStatus int    `json:"http_status,omitempty"`
	Line       int    `json:"line,omitempty"` // input line number, for input errors
	// RetryAfter is the earliest time (RFC 3339 UTC) to try again, from a
	// server's Retry-After; ll-index sets the item's next_retry_at no
	// earlier.
	RetryAfter string `json:"retry_after,omitempty"`
	// Hint is the next thing to try, when there is one (quote_not_found:
	// the passage of the text closest to the quote).
	Hint string `json:"hint,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.Stage, e.Code, e.Message) }

// Stages.
const (
	StageSave   = "save"
	StageFetch  = "fetch"
	StageParse  = "parse"
	StageEnrich = "enrich" // ll-enrich
	StageEmbed  = "embed"  // ll-embed
	StageIndex  = "index"
	StageFind   = "find"
	StageBrief  = "brief"
	StageImport = "import" // ll-import: a row of an export file it could not read
)

// Error codes. They are part of the contract (docs/records.md): scripts match
// on them, so existing codes are never renamed.
const (
	CodeBadJSON         = "bad_json"           // input line is not a JSON object
	CodeBadURL          = "bad_url"            // not a URL or path we can save
	CodeUnsupported     = "unsupported_scheme" // scheme other than http, https, file
	CodeBadInput        = "bad_input"          // record is valid JSON but not a valid request
	CodeNotFound        = "not_found"          // item id or annotation id unknown
	CodeTimeout         = "timeout"
	CodeConnection      = "connection"
	CodeHTTPStatus      = "http_status" // non-success HTTP status
	CodeTooManyRedirect = "too_many_redirects"
	CodeBadRedirect     = "bad_redirect" // redirect to a non-http(s) scheme (the embeddings client: to another origin)
	CodeTooLarge        = "too_large"    // body over the size cap
	CodeBadEncoding     = "bad_encoding" // Content-Encoding unknown, or the body does not decode as it says
	CodeBadContent      = "bad_content"  // a body declared or taken as text is not text (binary junk)
	CodeFileRead        = "file_read"
	CodeFileNotAllowed  = "file_not_allowed" // a local file nobody allowed (docs/security.md)
	CodeBlockedAddress  = "blocked_address"  // a private or local address, refused by --public-only
	CodeNoBody          = "no_body"          // nothing to parse
	CodeExtractFailed   = "extract_failed"
	CodeEncrypted       = "encrypted" // PDF needs a password
	CodeCorrupt         = "corrupt"
	CodeMissingTool     = "missing_tool" // an external tool (pdftotext) is absent
	CodeUpstream        = "upstream"     // a source API answered with an error shape
	CodeStore           = "store"        // database error
	// CodeQuoteNotFound: an agent's highlight or lowlight quotes text the
	// item does not hold (error.hint: the closest passage).
	CodeQuoteNotFound = "quote_not_found"
	// CodeDeleted: ll-index met a record of an item deleted since (its
	// fetch was in flight): the record does not bring the item back.
	CodeDeleted = "deleted"
)

// Source types.
const (
	SourceArticle = "article"
	SourceX       = "x"
	SourceYouTube = "youtube"
	SourcePDF     = "pdf"
	SourceText    = "text"
)

// Ingest states of an item.
const (
	StateSaved    = "saved"
	StateFetched  = "fetched"
	StateParsed   = "parsed"
	StateEnriched = "enriched"
	StateFailed   = "failed"
)

// Annotation types.
const (
	AnnHighlight = "highlight"
	AnnLowlight  = "lowlight"
	AnnNote      = "note"
)

// ItemID returns the stable item ID of a canonical URL: the same canonical
// URL gives the same ID in every database.
func ItemID(canonicalURL string) string {
	sum := sha256.Sum256([]byte(canonicalURL))
	return "ll_" + hex.EncodeToString(sum[:8])
}

// TimeFormat is the one time format of the record: RFC 3339, UTC.
const TimeFormat = time.RFC3339

// FormatTime formats t as RFC 3339 UTC, "" for the zero time.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeFormat)
}

// Fail attaches an error to the record and returns it.
func (r *Record) Fail(stage, code, msg string, retryable bool) *Record {
	r.Error = &Error{Stage: stage, Code: code, Message: msg, Retryable: retryable}
	return r
}
