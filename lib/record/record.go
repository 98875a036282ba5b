// Package record defines the one record type that flows, as one JSON object
// per line, through every linkledger filter (ll-save, ll-fetch, ll-parse,
// ll-index, ll-find, ll-brief). It depends on the standard library only.
//
// A filter fills the fields it owns and passes every other field through
// untouched: keys this package does not know are kept in Extra and written
// back out in sorted order, so records compose with jq and with tools that
// add their own keys. The contract is documented in docs/records.md.
package record

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Record is one line of the stream. Fields are grouped by the stage that owns
// them; every field is optional and omitted when empty.
type Record struct {
	// Identity (ll-save; ll-fetch and ll-parse fill url/canonical_url/id for
	// bare URL input when missing).
	ID           string `json:"id,omitempty"`
	URL          string `json:"url,omitempty"`
	CanonicalURL string `json:"canonical_url,omitempty"`
	OriginalURL  string `json:"original_url,omitempty"`
	SourceType   string `json:"source_type,omitempty"`

	// Intent (input to ll-save).
	Note        string       `json:"note,omitempty"`
	Tags        []string     `json:"tags,omitempty"`
	TagsRemove  []string     `json:"tags_remove,omitempty"`
	Actor       string       `json:"actor,omitempty"`
	Annotations []Annotation `json:"annotations,omitempty"`
	Pin         []int64      `json:"pin,omitempty"`
	Unpin       []int64      `json:"unpin,omitempty"`
	// Review holds a person's decisions on the item's agent annotations
	// and tags (linkledger review; docs/records.md "Review decisions").
	Review   []ReviewDecision `json:"review,omitempty"`
	Artifact *Artifact        `json:"artifact,omitempty"`
	// Enrich is set by ll-enrich when the model failed on the record.
	Enrich     *EnrichInfo   `json:"enrich,omitempty"`
	Save       *SaveResult   `json:"save,omitempty"`
	Status     string        `json:"status,omitempty"`
	New        *bool         `json:"new,omitempty"`
	Revalidate *Revalidation `json:"revalidate,omitempty"`
	// SavedAt is when the link was first saved elsewhere (ll-import): a new
	// item takes it as its saved time when it is in the past.
	SavedAt string `json:"saved_at,omitempty"`
	// Via names the importer of the record (import:pocket, ...); ll-save
	// records it in the item's history and skips annotations the item
	// already has, so an import can run again.
	Via string `json:"via,omitempty"`

	// Fetch (ll-fetch).
	Fetch      *FetchInfo `json:"fetch,omitempty"`
	Body       *string    `json:"body,omitempty"`        // text bodies, decoded to UTF-8
	BodyBase64 *string    `json:"body_base64,omitempty"` // binary bodies (PDF, images)

	// Parse (ll-parse).
	Title       string     `json:"title,omitempty"`
	Author      string     `json:"author,omitempty"`
	PublishedAt string     `json:"published_at,omitempty"`
	SiteName    string     `json:"site_name,omitempty"`
	Lang        string     `json:"lang,omitempty"`
	Excerpt     string     `json:"excerpt,omitempty"`
	Description string     `json:"description,omitempty"`
	DurationS   float64    `json:"duration_s,omitempty"`
	Text        *string    `json:"text,omitempty"`
	Checksum    string     `json:"checksum,omitempty"`
	Chunks      []Chunk    `json:"chunks,omitempty"`
	Parse       *ParseInfo `json:"parse,omitempty"`

	// Markdown is the main content's structure (headings, lists, code
	// blocks, tables, figures, quotes, formulas) as CommonMark with
	// tables, beside Text; Text stays what search and chunks use
	// (docs/records.md). ll-parse writes it for HTML articles and
	// Markdown files; linkledger show --markdown reads it back.
	Markdown string `json:"markdown,omitempty"`
	// Images are the images of the main content, in document order
	// (ll-parse lists them, at most MaxListedImages; ll-index fetches and
	// stores them; docs/records.md "images").
	Images []Image `json:"images,omitempty"`

	// Embed is set by ll-embed: the model and dimension of the vectors it
	// added to the chunks ("embedding"), or why it added none (error).
	Embed *EmbedInfo `json:"embed,omitempty"`

	// Index (ll-index).
	Index *IndexResult `json:"index,omitempty"`

	// Retrieval (ll-find, ll-brief).
	Hit *Hit `json:"hit,omitempty"`
	// Copies are the other items with the same text as this hit (ll-find:
	// a group of copies is one hit; with --all-copies each copy lists the
	// others).
	Copies []Copy `json:"copies,omitempty"`
	// Stored is set by ll-find --with-chunks: the record carries the
	// item's chunks as stored (in "chunks"), not new content, so ll-index
	// stores only an enrichment or an enrichment failure and never rewrites
	// the content from it.
	Stored *Stored `json:"stored,omitempty"`

	// Whole item and housekeeping (linkledger show, tags, archive,
	// unarchive, delete, unannotate; docs/records.md).
	ArchivedAt string `json:"archived_at,omitempty"` // when the item was archived; absent when it is not
	// Reading is a person's reading state of the item: starred, read,
	// how far, and its reading time (find's hits, show, status, star).
	Reading   *Reading      `json:"reading,omitempty"`
	Tagged    []Tag         `json:"tagged,omitempty"`    // the item's tags with who added them and when
	Artifacts []Artifact    `json:"artifacts,omitempty"` // every artifact of the item, oldest first
	TagCount  *TagCount     `json:"tag_count,omitempty"` // one tag of the tags listing
	Change    *Change       `json:"change,omitempty"`    // what a housekeeping verb did to the item
	Event     *HistoryEvent `json:"event,omitempty"`     // one event of linkledger history
	Setting   *Setting      `json:"setting,omitempty"`   // one ledger setting (linkledger config); no item

	// Error is set when a stage failed for this record. Later stages pass it
	// on; ll-index stores it on the item.
	Error *Error `json:"error,omitempty"`

	// Extra holds keys this package does not own; they are written back out.
	Extra map[string]json.RawMessage `json:"-"`
}

// MaxListedImages is the most images ll-parse lists in a record.
const MaxListedImages = 64

// Image is one image of the main content: its address (http or https,
// resolved against the page, as the record's markdown has it), its alt
// text and the caption of the figure it is in. ll-index fetches it
// (docs/fetch.md "Images"); Stored and the bytes are set there.
type Image struct {
	URL     string `json:"url"`
	Alt     string `json:"alt,omitempty"`
	Caption string `json:"caption,omitempty"`
	// ContentType and Bytes describe the stored copy; Error says why
	// there is none (ll-index output only).
	ContentType string `json:"content_type,omitempty"`
	Bytes       int64  `json:"bytes,omitempty"`
	Error       string `json:"error,omitempty"`
	// Data is the fetched image, in memory only (never in a record line).
	Data []byte `json:"-"`
}

// Annotation is a highlight, lowlight or note by a human or an agent.
type Annotation struct {
	ID         int64    `json:"id,omitempty"`
	Type       string   `json:"type"`
	Text       string   `json:"text"`
	Actor      string   `json:"actor,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Pinned     bool     `json:"pinned,omitempty"`
	ChunkID    *int64   `json:"chunk_id,omitempty"`
	ChunkIndex *int     `json:"chunk_index,omitempty"` // the anchored chunk's index (show)
	CreatedAt  string   `json:"created_at,omitempty"`
	Displaced  []int64  `json:"displaced,omitempty"`
	// Review is a person's decision on an agent annotation: confirmed or
	// rejected (empty: not reviewed). linkledger review sets it.
	Review string `json:"review,omitempty"`
	// Decayed is true when the annotation stops counting under the decay
	// policy (linkledger review lists; docs/retrieval.md "Decay").
	Decayed bool `json:"decayed,omitempty"`
	// OrphanedAt is when re-indexing the item's changed text lost the
	// highlight's or lowlight's quote (it keeps its text; found again,
	// the mark goes). Empty: anchored, or never anchored to a quote.
	OrphanedAt string `json:"orphaned_at,omitempty"`
	// Anchor says when a highlight or lowlight is not a quote of the
	// source: "unanchored" (its text is not in the item's text: a
	// person's words, or a quote a changed text lost; OrphanedAt says
	// since when) or "pending" (the item has no text yet: it is checked
	// when the item is indexed). Empty: found in the text, or a note.
	Anchor string `json:"anchor,omitempty"`
	// Version is a digest of the annotation as a decision sees it (type,
	// text, confidence, pin, review; the review queue and a review's
	// answer carry it): a decision that names it is refused when the
	// annotation changed since (docs/ui.md "Review you can trust").
	Version string `json:"version,omitempty"`
}

// Values of Annotation.Anchor.
const (
	AnchorUnanchored = "unanchored"
	AnchorPending    = "pending"
)

// Tag is one tag of an item with who added it and when.
type Tag struct {
	Tag       string `json:"tag"`
	Actor     string `json:"actor"`
	CreatedAt string `json:"created_at,omitempty"`
	// Review is confirmed when a person confirmed an agent's tag (empty:
	// not reviewed; a rejected tag is no longer on the item).
	Review string `json:"review,omitempty"`
	// Version is a digest of the tag as a decision sees it (who added it
	// when, its review), in the review queue and a review's answer.
	Version string `json:"version,omitempty"`
}

// ReviewDecision is one review decision in an ll-save record ("review")
// and, as done, in save.reviewed: on an annotation by annotation_id or on
// a tag of the record's item by tag. Decision is confirm or reject
// (written back as confirmed, rejected); Confidence sets an annotation's
// confidence; Pinned pins or unpins a highlight.
type ReviewDecision struct {
	AnnotationID int64    `json:"annotation_id,omitempty"`
	Tag          string   `json:"tag,omitempty"`
	Decision     string   `json:"decision,omitempty"`
	Confidence   *float64 `json:"confidence,omitempty"`
	Pinned       *bool    `json:"pinned,omitempty"`
}

// Setting is one of the ledger's stored policies (linkledger config).
// Source is "stored" or "default" (nothing stored: the built-in value).
type Setting struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	Source    string          `json:"source"`
	UpdatedAt string          `json:"updated_at,omitempty"`
	UpdatedBy string          `json:"updated_by,omitempty"`
}

// TagCount is one tag of the tags listing: on how many items it is, in
// all and by the actor who added it (human, agent:NAME).
type TagCount struct {
	Tag     string         `json:"tag"`
	Items   int            `json:"items"`
	ByActor map[string]int `json:"by_actor"`
}

// Change says what a housekeeping verb did to an item.
type Change struct {
	// Action is archive, unarchive, delete, unannotate, star, unstar,
	// read or unread.
	Action string `json:"action"`
	// Changed is false when there was nothing to do (archiving an item
	// already archived).
	Changed bool   `json:"changed"`
	At      string `json:"at,omitempty"`
	// AnnotationsRemoved are the annotation ids unannotate removed.
	AnnotationsRemoved []int64 `json:"annotations_removed,omitempty"`
	// Removed counts what went with a deleted item.
	Removed *Removed `json:"removed,omitempty"`
	// DuplicatesCleared are the items that were marked duplicates of a
	// deleted item and no longer are.
	DuplicatesCleared []string `json:"duplicates_cleared,omitempty"`
}

// Reading is an item's reading state (the library, issue 30;
// docs/records.md "Reading state"): when it was starred and read (absent:
// not starred, unread; an archived item counts as read), how far down it
// was read (0..1 of the reader's part Part), and about how many minutes
// its text takes to read.
type Reading struct {
	StarredAt string  `json:"starred_at,omitempty"`
	ReadAt    string  `json:"read_at,omitempty"`
	Progress  float64 `json:"progress,omitempty"`
	Part      int     `json:"part,omitempty"`
	Minutes   int     `json:"minutes,omitempty"`
}

// Removed counts the rows deleted with an item.
type Removed struct {
	Chunks      int `json:"chunks"`
	Annotations int `json:"annotations"`
	Tags        int `json:"tags"`
	Artifacts   int `json:"artifacts"`
}

// Artifact is a derived summary of an item (summary and key claims).
type Artifact struct {
	Summary   string   `json:"summary,omitempty"`
	KeyClaims []string `json:"key_claims,omitempty"`
	CreatedBy string   `json:"created_by,omitempty"`
	CreatedAt string   `json:"created_at,omitempty"`
	// Claims are the key claims with where they came from (ll-enrich):
	// the chunk and the enricher's confidence. key_claims keeps the texts.
	Claims []Claim `json:"claims,omitempty"`
	// Method says how the artifact was made: "offline" for ll-enrich's
	// extractive enricher, "llm" for a model (ll-enrich --llm or --cmd).
	Method string `json:"method,omitempty"`
	// The model path (method llm): the model's name, the endpoint's host
	// (never its path, query or key), the tokens the server counted, who
	// wrote the summary ("model": not checked against the text) and the
	// tags the model suggested.
	Model        string      `json:"model,omitempty"`
	EndpointHost string      `json:"endpoint_host,omitempty"`
	Tokens       *TokenUsage `json:"tokens,omitempty"`
	SummaryBy    string      `json:"summary_by,omitempty"`
	Tags         []string    `json:"tags,omitempty"`
}

// SupportedClaims is KeyClaims without the claims marked unsupported in
// Claims (a model's claim whose quote is not in the item): only supported
// claims are evidence, so every view that serves key claims (find, brief,
// MCP) serves these. An artifact stored before unsupported claims were
// kept out of key_claims still has them there; they go here.
func (a *Artifact) SupportedClaims() []string {
	bad := map[string]bool{}
	for _, c := range a.Claims {
		if c.Unsupported {
			bad[c.Text] = true
		}
	}
	for _, c := range a.Claims {
		if !c.Unsupported {
			delete(bad, c.Text)
		}
	}
	if len(bad) == 0 {
		return a.KeyClaims
	}
	var out []string
	for _, k := range a.KeyClaims {
		if !bad[k] {
			out = append(out, k)
		}
	}
	return out
}

// TokenUsage is a model server's token count for one request.
type TokenUsage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// EnrichInfo is what ll-enrich says about a record it could not enrich:
// the record passes on as parsed, without an artifact.
type EnrichInfo struct {
	Error *Error `json:"error,omitempty"`
}

// Claim is one key claim of an artifact: an exact sentence of the item,
// the index of its chunk and a confidence in 0..1.
type Claim struct {
	Text       string  `json:"text"`
	ChunkIndex int     `json:"chunk_index"`
	Confidence float64 `json:"confidence"`
	// Unsupported is true for a model's claim whose quote is not in the
	// item (its chunk_index is then -1).
	Unsupported bool `json:"unsupported,omitempty"`
}

// SaveResult is what ll-save did with an intent record.
type SaveResult struct {
	Existing      bool     `json:"existing"`
	TagsAdded     []string `json:"tags_added,omitempty"`
	TagsRemoved   []string `json:"tags_removed,omitempty"`
	AnnotationIDs []int64  `json:"annotation_ids,omitempty"`
	Displaced     []int64  `json:"displaced,omitempty"`
	// Merged are the ids of highlights or lowlights merged into another
	// that quotes the same text (the history says into which).
	Merged    []int64 `json:"merged,omitempty"`
	NoteAdded bool    `json:"note_added,omitempty"`
	// Pinned and Unpinned are the highlights the record pinned or
	// unpinned (--pin, --unpin; pinning a pinned one is no change but is
	// listed), so a person sees what a pin did.
	Pinned   []int64 `json:"pinned,omitempty"`
	Unpinned []int64 `json:"unpinned,omitempty"`
	// Reviewed are the record's review decisions as applied.
	Reviewed []ReviewDecision `json:"reviewed,omitempty"`
}

// Stored says which stored content a record carries (ll-find
// --with-chunks): the item's checksum when read, how many chunks it has,
// and how many of them were left out of the record by --max-chunk-bytes
// (the record then has the first ones only).
type Stored struct {
	Checksum      string `json:"checksum,omitempty"`
	Chunks        int    `json:"chunks"`
	ChunksOmitted int    `json:"chunks_omitted,omitempty"`
}

// Copy is another item with the same text: its id and canonical URL.
type Copy struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// Revalidation marks an item returned by ll-find or ll-brief whose content is
// older than the stale threshold.
type Revalidation struct {
	Due       bool   `json:"due"`
	FetchedAt string `json:"fetched_at,omitempty"`
}

// FetchInfo is what ll-fetch learned about the response.
type FetchInfo struct {
	FinalURL     string `json:"final_url,omitempty"`
	Status       int    `json:"status,omitempty"`
	ContentType  string `json:"content_type,omitempty"`
	Charset      string `json:"charset,omitempty"`
	FetchedAt    string `json:"fetched_at,omitempty"`
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"last_modified,omitempty"`
	Bytes        int64  `json:"bytes,omitempty"`
	Attempts     int    `json:"attempts,omitempty"`
	NotModified  bool   `json:"not_modified,omitempty"`
	Source       string `json:"source,omitempty"` // which fetcher/upstream answered: http, file, youtube-innertube, x-syndication, ...
	// SniffedType is set when the body is not what content_type declares:
	// the type the body was carried and parsed as (a PDF served as
	// text/html says application/pdf). Absent when the two agree.
	SniffedType string `json:"sniffed_type,omitempty"`
}

// ChunkReferences is the Kind of a chunk of a page's reference list.
const ChunkReferences = "references"

// Chunk is one piece of an item's normalised text.
type Chunk struct {
	ID     int64    `json:"id,omitempty"`
	Index  int      `json:"index"`
	Text   string   `json:"text"`
	Tokens int      `json:"tokens"`
	StartS *float64 `json:"start_s,omitempty"` // media time offset (YouTube)
	Page   int      `json:"page,omitempty"`    // 1-based page (PDF)
	// Kind marks a chunk that is not the body of the text: "references"
	// for a page's reference list (References, Bibliography, Notes,
	// Works cited, Further reading, …), which briefs rank below the body.
	// Empty for the body.
	Kind string `json:"kind,omitempty"`
	// Embedding is the chunk's vector (ll-embed): little-endian float32
	// values, base64 (standard alphabet, padded); record.embed names the
	// model and dimension.
	Embedding string `json:"embedding,omitempty"`
}

// EmbedInfo is what ll-embed says about a record: the model and vector
// dimension of the chunks' embeddings, and how many chunks got one; or,
// when the endpoint failed, the error (the record passes on without
// vectors and is indexed lexically).
type EmbedInfo struct {
	Model      string `json:"model,omitempty"`
	Dimensions int    `json:"dimensions,omitempty"`
	Chunks     int    `json:"chunks,omitempty"`
	Error      *Error `json:"error,omitempty"`
}

// ParseInfo says how the text was produced.
type ParseInfo struct {
	Adapter      string   `json:"adapter"`
	Source       string   `json:"source,omitempty"` // upstream source that answered
	FallbackFrom []string `json:"fallback_from,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	// NoTextReason is a typed reason why the main text (transcript, PDF
	// text layer) is missing while the item still indexes what it has.
	NoTextReason string `json:"no_text_reason,omitempty"`
	// Truncated is true when the text was cut at the text cap (ll-parse
	// and ll-index --max-text-bytes); a warning says how much was kept.
	Truncated bool `json:"truncated,omitempty"`
}

// IndexResult is what ll-index stored.
type IndexResult struct {
	Status      string `json:"status"`
	Chunks      int    `json:"chunks"`
	DuplicateOf string `json:"duplicate_of,omitempty"`
	Unchanged   bool   `json:"unchanged,omitempty"`
}

// Hit is a retrieval result.
type Hit struct {
	Rank        int               `json:"rank"`
	Score       float64           `json:"score"`
	WhyRanked   *WhyRanked        `json:"why_ranked,omitempty"`
	Highlights  []Annotation      `json:"highlights,omitempty"`
	Lowlights   []Annotation      `json:"lowlights,omitempty"`
	Notes       []Annotation      `json:"notes,omitempty"`
	Snippets    []Snippet         `json:"snippets,omitempty"`
	Chunks      []Chunk           `json:"chunks,omitempty"`
	Artifact    *Artifact         `json:"artifact,omitempty"`
	FetchedAt   string            `json:"fetched_at,omitempty"`
	SavedAt     string            `json:"saved_at,omitempty"`
	IngestState string            `json:"ingest_status,omitempty"`
	Related     *RelatedWhy       `json:"related,omitempty"`
	Meta        map[string]string `json:"meta,omitempty"`
}

// WhyRanked explains a ranking score term by term.
type WhyRanked struct {
	BM25                 float64  `json:"bm25"`
	PinnedBoost          float64  `json:"pinned_boost"`
	LowConfidencePenalty float64  `json:"low_confidence_penalty"`
	RankingScore         float64  `json:"ranking_score"`
	MatchedFields        []string `json:"matched_fields,omitempty"`
	MatchedTerms         []string `json:"matched_terms,omitempty"`
	// Fusion explains a semantic or hybrid ranking (ll-find --mode);
	// absent in lexical mode.
	Fusion *Fusion `json:"fusion,omitempty"`
}

// Fusion is where an item stood on each side of a semantic or hybrid
// ranking: its lexical rank and ranking score (0 and absent: the lexical
// side did not find it), its semantic rank and cosine similarity (its best
// chunk's), and the fused score it is ranked by (docs/retrieval.md).
type Fusion struct {
	Mode               string   `json:"mode"`
	LexicalRank        int      `json:"lexical_rank,omitempty"`
	LexicalScore       *float64 `json:"lexical_score,omitempty"`
	SemanticRank       int      `json:"semantic_rank,omitempty"`
	SemanticSimilarity *float64 `json:"semantic_similarity,omitempty"`
	FusedScore         float64  `json:"fused_score"`
}

// RelatedWhy explains why an item is related to another.
type RelatedWhy struct {
	To         string   `json:"to"`
	SharedTags []string `json:"shared_tags,omitempty"`
	Terms      []string `json:"terms,omitempty"`
}

// Snippet is a compact excerpt of a matching chunk.
type Snippet struct {
	ChunkIndex int      `json:"chunk_index"`
	Text       string   `json:"text"`
	StartS     *float64 `json:"start_s,omitempty"`
	Page       int      `json:"page,omitempty"`
	URL        string   `json:"url,omitempty"` // deep link (e.g. YouTube &t=123s)
}

// knownKeys is the set of JSON keys owned by Record, computed once.
var knownKeys = sync.OnceValue(func() map[string]bool {
	keys := map[string]bool{}
	t := reflect.TypeOf(Record{})
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			keys[name] = true
		}
	}
	return keys
})

// recordAlias has Record's fields without its methods, to avoid recursion.
type recordAlias Record

// UnmarshalJSON decodes the known fields and keeps every other key in Extra.
func (r *Record) UnmarshalJSON(data []byte) error {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	var a recordAlias
	if err := json.Unmarshal(data, &a); err != nil {
		return err
	}
	*r = Record(a)
	known := knownKeys()
	for k, v := range all {
		if !known[k] {
			if r.Extra == nil {
				r.Extra = map[string]json.RawMessage{}
			}
			r.Extra[k] = v
		}
	}
	return nil
}

// MarshalJSON writes the known fields in declaration order, then the
// pass-through keys sorted by name. HTML characters are not escaped.
func (r Record) MarshalJSON() ([]byte, error) {
	out, ok := appendRecord(make([]byte, 0, 1024), &r)
	if !ok {
		var err error
		if out, err = marshalAlias(&r); err != nil {
			return nil, err
		}
	}
	if len(r.Extra) == 0 {
		return out, nil
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !knownKeys()[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out = out[:len(out)-1] // drop closing brace
	for _, k := range keys {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(out, kb...)
		out = append(out, ':')
		out = append(out, r.Extra[k]...)
	}
	return append(out, '}'), nil
}

// marshalAlias writes r's known fields with encoding/json (the fields
// appendRecord does not cover).
func marshalAlias(r *Record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode((*recordAlias)(r)); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// TextValue returns the record's text or "" when it has none.
func (r *Record) TextValue() string {
	if r.Text == nil {
		return ""
	}
	return *r.Text
}

// Ref returns the best identifier of the record for diagnostics, made safe
// for a terminal by Echo (records can be written by anyone).
func (r *Record) Ref() string {
	switch {
	case r.CanonicalURL != "":
		return Echo(r.CanonicalURL)
	case r.URL != "":
		return Echo(r.URL)
	default:
		return Echo(r.ID)
	}
}
