package parse

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// DefaultMaxTextBytes is the default cap on the normalised text of one item
// (ll-parse and ll-index --max-text-bytes): 4 MiB holds a long book, and
// bounds what one record can cost in memory, chunks and database space
// (docs/reliability.md).
const DefaultMaxTextBytes = 4 << 20

// maxText is the text cap of opts.
func (o Options) maxText() int {
	if o.MaxTextBytes > 0 {
		return o.MaxTextBytes
	}
	return DefaultMaxTextBytes
}

// MaxChunks is the most chunks ll-index stores for one item whose text is
// capped at maxText bytes: one per 64 bytes of text, far more than
// chunking ever makes (a chunk holds about 1,200 bytes), so only a
// hand-made record reaches it.
func MaxChunks(maxText int) int {
	if maxText <= 0 {
		maxText = DefaultMaxTextBytes
	}
	return max(1, maxText/64)
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends on
// a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// capSegments keeps the segments whose text fits in limit bytes in all,
// cutting the one that crosses it. It reports the total size when it cut,
// 0 when everything fit.
func capSegments(segs []Segment, limit int) ([]Segment, int) {
	total, n := 0, 0
	for _, s := range segs {
		total += len(s.Text)
	}
	if total <= limit {
		return segs, 0
	}
	out := segs[:0:0]
	for _, s := range segs {
		if n+len(s.Text) > limit {
			s.Text = cutUTF8(s.Text, limit-n)
			if s.Text != "" {
				out = append(out, s)
			}
			break
		}
		out = append(out, s)
		n += len(s.Text)
	}
	return out, total
}

// capParagraphs keeps paragraphs while they fit in limit bytes joined with
// blank lines, cutting the one that crosses it. It reports whether it cut.
func capParagraphs(paras []string, limit int) ([]string, bool) {
	n := 0
	for i, p := range paras {
		if i > 0 {
			n += 2
		}
		if n+len(p) > limit {
			last := cutUTF8(p, max(0, limit-n))
			paras = paras[:i]
			if last = strings.TrimSpace(last); last != "" {
				paras = append(paras, last)
			}
			return paras, true
		}
		n += len(p)
	}
	return paras, false
}

// markTruncated records on p that the text was cut to limit bytes; from
// is the size before the cut, 0 when unknown.
func markTruncated(p *record.ParseInfo, from, limit int) {
	p.Truncated = true
	msg := fmt.Sprintf("text truncated to the first %d bytes (max text bytes)", limit)
	if from > limit {
		msg = fmt.Sprintf("text truncated to the first %d of %d bytes (max text bytes)", limit, from)
	}
	p.Warnings = append(p.Warnings, msg)
}

// MarkTruncated records in rec.Parse (made, as a text import, when the
// record has none) that its text was cut from from bytes to opts' cap, as
// ChunkText reports.
func MarkTruncated(rec *record.Record, from int, opts Options) {
	if rec.Parse == nil {
		rec.Parse = &record.ParseInfo{Adapter: AdapterTextImport}
	}
	markTruncated(rec.Parse, from, opts.maxText())
}

// Caps of the metadata fields, in bytes: far above any real title or
// description, low enough that a forged record cannot put megabytes into
// every search result.
const (
	MaxTitleBytes       = 2 << 10 // title, author, site_name, published_at, lang
	MaxDescriptionBytes = 8 << 10 // description, excerpt
)

// capMeta cuts over-long metadata fields of rec and returns a warning for
// each field it cut.
func capMeta(rec *record.Record) []string {
	var warns []string
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"title", &rec.Title, MaxTitleBytes}, {"author", &rec.Author, MaxTitleBytes},
		{"site_name", &rec.SiteName, MaxTitleBytes}, {"published_at", &rec.PublishedAt, MaxTitleBytes},
		{"lang", &rec.Lang, MaxTitleBytes},
		{"description", &rec.Description, MaxDescriptionBytes}, {"excerpt", &rec.Excerpt, MaxDescriptionBytes},
	} {
		if len(*f.v) > f.max {
			warns = append(warns, fmt.Sprintf("%s truncated to the first %d of %d bytes", f.name, f.max, len(*f.v)))
			*f.v = cutUTF8(*f.v, f.max)
		}
	}
	return warns
}

// Bound enforces the text cap on a record that arrives at ll-index with
// text or chunks already made (records can be written by hand): when its
// text or its chunks' text is over opts.MaxTextBytes, or it has more than
// MaxChunks chunks, the text is cut to the cap (made from the chunks when
// there is no text), the chunks are made again from it and rec.Parse says
// so. Metadata fields over MaxTitleBytes or MaxDescriptionBytes are cut
// too, with a warning each. It reports whether it changed the text.
func Bound(rec *record.Record, opts Options) bool {
	limit := opts.maxText()
	if warns := capMeta(rec); len(warns) > 0 {
		if rec.Parse == nil {
			rec.Parse = &record.ParseInfo{Adapter: AdapterTextImport}
		}
		rec.Parse.Truncated = true
		rec.Parse.Warnings = append(rec.Parse.Warnings, warns...)
	}
	chunkBytes := 0
	for _, c := range rec.Chunks {
		chunkBytes += len(c.Text)
	}
	if len(rec.TextValue()) <= limit && chunkBytes <= limit && len(rec.Chunks) <= MaxChunks(limit) {
		return false
	}
	from := len(rec.TextValue())
	if rec.Text == nil {
		var b strings.Builder
		for i, c := range rec.Chunks {
			if b.Len() > limit {
				break
			}
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(cutUTF8(c.Text, limit+1))
		}
		s := b.String()
		rec.Text, from = &s, chunkBytes
	}
	t := cutUTF8(*rec.Text, limit)
	rec.Text = &t
	rec.Chunks = nil
	ChunkText(rec, opts)
	MarkTruncated(rec, from, opts)
	return true
}
