package parse

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
	llsniff "github.com/linkledger/linkledger/lib/sniff"
)

// AdapterTextImport is the parse.adapter of records that arrived with text
// and no body (imported notes and corpora).
const AdapterTextImport = "text-import"

// excerptRunes is the longest excerpt taken from the text.
const excerptRunes = 280

// Options configures Run.
type Options struct {
	Chunk chunk.Options
	// MaxTextBytes caps the normalised text of one item (0: the default,
	// DefaultMaxTextBytes). Text past it is dropped and parse.truncated
	// set; see docs/reliability.md.
	MaxTextBytes int
}

// Run parses one fetched record in place with the first matching adapter of
// the chain, falling back to the next matching adapter when one fails. It
// fills the metadata, the normalised text, its checksum, the chunks and
// rec.Parse, and on failure sets rec.Error (stage parse):
//
//   - a record that already carries an error, or whose fetch was
//     not_modified, passes through untouched;
//   - a record with no body but with text is normalised and chunked
//     (adapter "text-import"); with neither it fails with no_body;
//   - an adapter error of type *record.Error ends the chain with that error,
//     except extract_failed with retryable=false, which falls back like any
//     other error;
//   - when every matching adapter failed (or none matched) the record fails
//     with extract_failed.
func Run(rec *record.Record, adapters []Adapter, opts Options) {
	if rec.Error != nil || (rec.Fetch != nil && rec.Fetch.NotModified) {
		return
	}
	if rec.Body == nil && rec.BodyBase64 == nil {
		if rec.Text == nil || strings.TrimSpace(*rec.Text) == "" {
			rec.Fail(record.StageParse, record.CodeNoBody, "record has no body or text to parse", false)
			return
		}
		if refuseJunk(rec, "text", *rec.Text) {
			return
		}
		from := ChunkText(rec, opts)
		rec.Parse = &record.ParseInfo{Adapter: AdapterTextImport}
		if from > 0 {
			markTruncated(rec.Parse, from, opts.maxText())
		}
		return
	}
	// A text body that arrived base64-encoded (an unknown charset, say) is
	// decoded for the text adapters and put back afterwards.
	// Bytes of a known binary format (a PDF whatever its label) stay
	// binary for the adapters that read them.
	if rec.Body == nil && isTextType(mediaType(rec)) {
		if b, err := base64.StdEncoding.DecodeString(*rec.BodyBase64); err == nil && llsniff.Binary(b) == "" {
			s := strings.ToValidUTF8(string(b), "\uFFFD")
			rec.Body = &s
			defer func() { rec.Body = nil }()
		}
	}
	// Records are untrusted: a body that is not text is refused here too,
	// whoever wrote it (ll-fetch refuses it first; docs/fetch.md).
	if rec.Body != nil && refuseJunk(rec, "body", *rec.Body) {
		return
	}
	var failed []string
	var reasons []string
	for _, a := range adapters {
		if !a.Match(rec) {
			continue
		}
		res, err := safeParse(a, rec)
		if err == nil && !hasText(res) && res.NoTextReason == "" {
			err = errNoText
		}
		if err != nil {
			var re *record.Error
			if errors.As(err, &re) && !(re.Code == record.CodeExtractFailed && !re.Retryable) {
				e := *re
				if e.Stage == "" {
					e.Stage = record.StageParse
				}
				rec.Error = &e
				return
			}
			failed = append(failed, a.Name())
			reasons = append(reasons, a.Name()+": "+err.Error())
			continue
		}
		apply(rec, a.Name(), res, failed, reasons, opts)
		return
	}
	if len(failed) == 0 {
		ct := "unknown"
		if mt := mediaType(rec); mt != "" {
			ct = mt
		}
		rec.Fail(record.StageParse, record.CodeExtractFailed, "no adapter for content type "+ct, false)
		return
	}
	rec.Fail(record.StageParse, record.CodeExtractFailed, strings.Join(reasons, "; "), false)
}

// refuseJunk fails the record with bad_content when s (its body or text)
// is not text: mostly control characters or undecodable bytes.
func refuseJunk(rec *record.Record, field, s string) bool {
	junk, why := llsniff.Junk(s)
	if junk {
		rec.Fail(record.StageParse, record.CodeBadContent, "the record's "+field+" is not text ("+why+"); not indexed", false)
	}
	return junk
}

// isTextType reports media types whose body is text.
func isTextType(mt string) bool {
	return strings.HasPrefix(mt, "text/") || mt == "application/xhtml+xml"
}

// safeParse runs an adapter, turning a panic inside an extractor into an
// error so one odd page cannot stop the stream.
func safeParse(a Adapter, rec *record.Record) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("extractor crashed: %v", p)
		}
	}()
	res, err = a.Parse(rec)
	if err == nil && res == nil {
		err = errNoText
	}
	return res, err
}

func hasText(res *Result) bool {
	for _, s := range res.Segments {
		if strings.TrimSpace(s.Text) != "" {
			return true
		}
	}
	return false
}

// apply writes an adapter's result into the record. Metadata the adapter
// did not find keeps the record's value (a title given at save time, say).
// Why earlier adapters failed goes into the warnings.
func apply(rec *record.Record, adapter string, res *Result, failed, reasons []string, opts Options) {
	setOnceRev(&rec.Title, res.Title)
	setOnceRev(&rec.Author, res.Author)
	setOnceRev(&rec.PublishedAt, res.PublishedAt)
	setOnceRev(&rec.SiteName, res.SiteName)
	setOnceRev(&rec.Lang, res.Lang)
	setOnceRev(&rec.Description, res.Description)
	if res.DurationS > 0 {
		rec.DurationS = res.DurationS
	}
	if res.SourceType != "" {
		rec.SourceType = res.SourceType
	}

	// The text is capped twice: the adapter's raw text before normalising
	// (so a 150 MB extraction is not normalised whole) and the normalised
	// paragraphs (normalising may grow text a little).
	limit := opts.maxText()
	segs, from := capSegments(res.Segments, limit)
	truncated := from > 0 || res.Truncated
	var pieces []chunk.Piece
	var paras []string
	n := 0
	heads, code := markdownSections(res.Markdown)
	refLevel := 0 // the level of the reference list's heading while in it
	for _, s := range segs {
		ps, cut := capParagraphs(Paragraphs(Normalize(s.Text)), limit-n)
		for _, p := range ps {
			sq := squash(p)
			level, head := heads[sq]
			if head {
				switch {
				case referenceHeading(p):
					refLevel = level
				case level <= refLevel:
					refLevel = 0
				}
			}
			kind := ""
			if refLevel > 0 {
				kind = record.ChunkReferences
			}
			pieces = append(pieces, chunk.Piece{Text: p, StartS: s.StartS, Page: s.Page, Heading: head, Code: code[sq], Kind: kind})
			paras = append(paras, p)
			n += len(p) + 2
		}
		if cut {
			truncated = true
			break
		}
	}
	text := strings.Join(paras, "\n\n")
	rec.Text = &text
	if rec.Lang == "" {
		rec.Lang = detectLang(text)
	}
	rec.Checksum = ""
	if text != "" {
		rec.Checksum = Checksum(text)
	}
	rec.Chunks = chunk.Split(pieces, opts.Chunk)
	// the structure is capped like the text, with room for its markup
	md, mdCut := capMarkdown(res.Markdown, 2*limit)
	rec.Markdown = md
	if rec.Title == "" {
		rec.Title = fallbackTitle(paras, rec)
	}
	if res.Excerpt != "" {
		rec.Excerpt = res.Excerpt
	} else if rec.Excerpt == "" {
		rec.Excerpt = excerpt(paras)
	}
	rec.Parse = &record.ParseInfo{
		Adapter:      adapter,
		Source:       res.Source,
		FallbackFrom: failed,
		Warnings:     append(reasons, res.Warnings...),
		NoTextReason: res.NoTextReason,
	}
	if mdCut && !truncated {
		rec.Parse.Truncated = true
		rec.Parse.Warnings = append(rec.Parse.Warnings, fmt.Sprintf("markdown truncated to %d bytes (twice max text bytes)", 2*limit))
	}
	if truncated {
		markTruncated(rec.Parse, from, limit)
	}
	if warns := capMeta(rec); len(warns) > 0 {
		rec.Parse.Truncated = true
		rec.Parse.Warnings = append(rec.Parse.Warnings, warns...)
	}
}

// setOnceRev sets dst to val when val is not empty (adapter results win
// over what the record had; empty results keep it).
func setOnceRev(dst *string, val string) {
	if val != "" {
		*dst = val
	}
}

// ChunkText normalises a record's existing text and fills its checksum and
// chunks (for records that arrive with text rather than a body), and its
// excerpt and language when missing. Text over opts.MaxTextBytes is cut to
// it; ChunkText then returns the size before the cut (0 when nothing was
// cut) and the caller says so in rec.Parse, which ChunkText does not touch.
func ChunkText(rec *record.Record, opts Options) (cutFrom int) {
	limit := opts.maxText()
	raw := rec.TextValue()
	if len(raw) > limit {
		cutFrom = len(raw)
		raw = cutUTF8(raw, limit)
	}
	text := Normalize(raw)
	if len(text) > limit {
		cutFrom = max(cutFrom, len(text))
		text = cutUTF8(text, limit)
	}
	rec.Text = &text
	rec.Checksum = ""
	rec.Chunks = nil
	if text == "" {
		return cutFrom
	}
	rec.Checksum = Checksum(text)
	if rec.Lang == "" {
		rec.Lang = detectLang(text)
	}
	var pieces []chunk.Piece
	for _, p := range Paragraphs(text) {
		pieces = append(pieces, chunk.Piece{Text: p})
	}
	rec.Chunks = chunk.Split(pieces, opts.Chunk)
	if rec.Excerpt == "" {
		rec.Excerpt = excerpt(Paragraphs(text))
	}
	return cutFrom
}

// excerpt is the start of the text: the first paragraph of some length (a
// title line or dateline is skipped), cut at a word boundary near
// excerptRunes with an ellipsis.
func excerpt(paras []string) string {
	if len(paras) == 0 {
		return ""
	}
	p := paras[0]
	for _, q := range paras {
		if utf8.RuneCountInString(q) >= 80 {
			p = q
			break
		}
	}
	p = strings.Join(strings.Fields(p), " ")
	if utf8.RuneCountInString(p) <= excerptRunes {
		return p
	}
	cut := []rune(p)[:excerptRunes]
	s := string(cut)
	if i := strings.LastIndexByte(s, ' '); i > excerptRunes/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ,;:-") + "…"
}

// fallbackTitle names an item whose source gave no title: its first line
// when that is short enough to be a heading, else the last segment of its
// URL's path ("notes.txt").
func fallbackTitle(paras []string, rec *record.Record) string {
	if len(paras) > 0 {
		first, _, _ := strings.Cut(paras[0], "\n")
		first = strings.TrimSpace(first)
		if n := utf8.RuneCountInString(first); n > 0 && n <= 100 {
			return first
		}
	}
	u := rec.CanonicalURL
	if u == "" {
		u = rec.URL
	}
	u, _, _ = strings.Cut(u, "?")
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 && i+1 < len(u) && !strings.HasSuffix(u[:i], ":/") {
		return u[i+1:]
	}
	return ""
}
