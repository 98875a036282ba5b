package exporter

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/record"
)

// writeAnnotations writes an item's highlights, lowlights and notes, a
// section each (heading level head: "##" in a vault file, "###" under an
// item of a highlights file), each annotation a list entry with who made
// it, its confidence, pin, anchor and review state, and when. The vault
// and the highlights export both write annotations with it.
func writeAnnotations(b *bytes.Buffer, rec *record.Record, head string) {
	for _, sec := range []struct{ typ, head string }{
		{record.AnnHighlight, "Highlights"}, {record.AnnLowlight, "Lowlights"}, {record.AnnNote, "Notes"},
	} {
		var items []record.Annotation
		for _, a := range rec.Annotations {
			if a.Type == sec.typ {
				items = append(items, a)
			}
		}
		if len(items) == 0 {
			continue
		}
		fmt.Fprintf(b, "%s %s\n\n", head, sec.head)
		for _, a := range items {
			who := Inline(a.Actor)
			if a.Confidence != nil {
				who += fmt.Sprintf(", confidence %.2g", *a.Confidence)
			}
			if a.Pinned {
				who += ", pinned"
			}
			// a quote that is not in the source, or one a person
			// rejected, says so: it is not evidence
			switch a.Anchor {
			case record.AnchorUnanchored:
				who += ", unanchored: not in the text, not a quote of the source"
			case record.AnchorPending:
				who += ", pending: not yet checked against the text"
			}
			if a.Review != "" {
				who += ", " + Inline(a.Review)
			}
			fmt.Fprintf(b, "- %s  \n  — %s, %s\n", Block(a.Text, "  "), who, Inline(a.CreatedAt))
		}
		b.WriteString("\n")
	}
}

// inlineSpecials are the characters that start Markdown inline syntax
// (emphasis, code, links, images, raw HTML, entities, tables,
// strikethrough, Obsidian's tags and embeds): each is written
// backslash-escaped, so stored text reads as the text it is.
const inlineSpecials = "\\`*_[]<>#|!&~^{}"

// Inline is s as Markdown text on one line: every inline special
// character backslash-escaped and every line break or control character
// made a space, so a hostile title can neither start a heading, a list or
// a block of HTML nor make a link, an image or an emphasis.
func Inline(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r < 0x80 && strings.ContainsRune(inlineSpecials, r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Block is s as Markdown text over several lines, each after the first
// indented by indent (the continuation of a list entry): inline specials
// escaped as Inline does, each line's leading white space dropped (four
// spaces would make code) and a character that would start a block at a
// line's start escaped (a list's "-", "+" or "1.", a setext underline's
// "="). Blank lines are kept as one blank line.
func Block(s string, indent string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\r\n", "\n")
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		if line == "" {
			blank = len(out) > 0
			continue
		}
		line = Inline(line)
		if c := line[0]; c == '-' || c == '+' || c == '=' {
			line = `\` + line
		} else if i := strings.IndexFunc(line, func(r rune) bool { return r < '0' || r > '9' }); i > 0 && i <= 9 && (line[i] == '.' || line[i] == ')') {
			line = line[:i] + `\` + line[i:]
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	for i := 1; i < len(out); i++ {
		if out[i] != "" {
			out[i] = indent + out[i]
		}
	}
	return strings.Join(out, "\n")
}

// linkTarget is u as a Markdown link destination in angle brackets, or ""
// when u is not an http, https or file URL (a javascript: or data: link
// is never written as a link). Characters the bracket form cannot hold
// are percent-encoded.
func linkTarget(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https" && p.Scheme != "file") {
		return ""
	}
	var b strings.Builder
	for _, c := range []byte(u) {
		if c <= ' ' || c == '<' || c == '>' || c == '\\' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return "<" + b.String() + ">"
}

// HighlightsFile is a Markdown file of highlights (and lowlights and
// notes) from one item or across the ledger.
type HighlightsFile struct {
	// Title is the file's heading ("Highlights", "Highlights: Title").
	Title string
	// Note is a line under the heading (the filter, the time of export),
	// written as text.
	Note string
	// Items are the items, each with the annotations to write, in the
	// order to write them.
	Items []*record.Record
	// More says the export stopped at a limit: the file says so.
	More string
}

// Write writes the file: its heading and note, then for each item its
// title, its source (the link, and the site and author when known) and
// its annotations as the vault writes them.
func (h *HighlightsFile) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n\n", Inline(h.Title))
	if h.Note != "" {
		fmt.Fprintf(&b, "%s\n\n", Inline(h.Note))
	}
	if len(h.Items) == 0 {
		b.WriteString("No annotation matches.\n")
	}
	for _, rec := range h.Items {
		if _, err := bw.Write(b.Bytes()); err != nil {
			return err
		}
		b.Reset()
		fmt.Fprintf(&b, "## %s\n\n", Inline(titleOf(rec)))
		u := rec.URL
		if u == "" {
			u = rec.CanonicalURL
		}
		var src []string
		if t := linkTarget(u); t != "" {
			src = append(src, "["+Inline(u)+"]("+t+")")
		} else if u != "" {
			src = append(src, Inline(u))
		}
		if rec.SiteName != "" {
			src = append(src, Inline(rec.SiteName))
		}
		if rec.Author != "" {
			src = append(src, "by "+Inline(rec.Author))
		}
		if len(src) > 0 {
			fmt.Fprintf(&b, "Source: %s\n\n", strings.Join(src, " · "))
		}
		writeAnnotations(&b, rec, "###")
	}
	if h.More != "" {
		fmt.Fprintf(&b, "%s\n", Inline(h.More))
	}
	if _, err := bw.Write(b.Bytes()); err != nil {
		return err
	}
	return bw.Flush()
}

// GroupByItem gathers annotations listed one per record (the records of
// ledger.Highlights: an item's id, url and title with annotations[0]) into
// one record per item, in the order each item first appears, its
// annotations in list order.
func GroupByItem(recs []*record.Record) []*record.Record {
	var out []*record.Record
	at := map[string]*record.Record{}
	for _, r := range recs {
		g := at[r.ID]
		if g == nil {
			g = &record.Record{ID: r.ID, URL: r.URL, CanonicalURL: r.CanonicalURL, Title: r.Title}
			at[r.ID] = g
			out = append(out, g)
		}
		g.Annotations = append(g.Annotations, r.Annotations...)
	}
	return out
}

// FileName is a download's file name for a title and an id, made as a
// vault file's name is (characters file systems refuse made spaces,
// bounded in length): "TITLE ll_ID.md".
func FileName(title, id string) string { return fileName(title, id) }
