package web

// The reader's structured document: an item's Markdown (record.Markdown,
// docs/parse.md "Structure") parsed with goldmark into blocks of our own
// (sblock), which the reader template renders element by element. Raw
// HTML in the Markdown is dropped, never rendered; only the elements
// below exist; text is escaped by html/template like any text; links
// keep http(s) addresses only. Highlights, lowlights and a note's quote
// are found in the item's text and marked in the blocks whose text runs
// fall inside them, across paragraph breaks and overlapping.

import (
	"net/url"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/linkledger/linkledger/lib/record"
)

// sblock is one element of the structured reader: Kind is one of h2, h3,
// h4, p, ul, ol, li, pre, blockquote, table, tr, th, td, figure,
// figcaption, hr (blocks) or inline (a tight list item's text), em,
// strong, code, a, span (a link without a web address), img, br, text.
type sblock struct {
	Kind string
	Href string // a: an http(s) address; img: the image's address
	Alt  string // img
	// Src is an img's stored copy in the ledger (/items/ID/images/N);
	// "" when there is none, and the reader shows the alt text instead:
	// it never points the browser at the image's own address.
	Src   string
	Start int // ol: the first number, when not 1
	Segs  []annSeg
	Kids  []*sblock
}

// maxStructureBlocks bounds the blocks rendered from one item's Markdown;
// past it the reader shows the text as paragraphs.
const maxStructureBlocks = 200_000

// markdownParser parses CommonMark with GFM tables; raw HTML is parsed
// (so it is not shown as text) and then dropped by convert.
var markdownParser = goldmark.New(goldmark.WithExtensions(extension.Table)).Parser()

// structureBlocks parses md into the reader's blocks, with the
// annotations' quotes marked where they are found in txt (the item's
// text), and images shown from imgs (an address -> the path of its
// stored copy). placed holds the annotations marked somewhere. ok is false when
// md has no blocks (or too many).
func structureBlocks(md, txt string, anns []record.Annotation, imgs map[string]string) (blocks []*sblock, placed map[int64]bool, ok bool) {
	src := []byte(md)
	doc := markdownParser.Parse(text.NewReader(src))
	m := newMarker(txt, anns)
	c := &converter{src: src, m: m, imgs: imgs}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if b := c.block(n); b != nil {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 || c.count > maxStructureBlocks {
		return nil, nil, false
	}
	blocks = figures(blocks)
	return blocks, m.placed, true
}

type converter struct {
	imgs  map[string]string // an image's address -> its stored copy's path
	src   []byte
	m     *marker
	count int
}

// block converts a block node; nil for what the reader does not show.
func (c *converter) block(n ast.Node) *sblock {
	c.count++
	if c.count > maxStructureBlocks {
		return nil
	}
	switch n := n.(type) {
	case *ast.Heading:
		lvl := min(max(n.Level, 2), 4)
		return c.inlines(&sblock{Kind: "h" + string(rune('0'+lvl))}, n)
	case *ast.Paragraph:
		return c.inlines(&sblock{Kind: "p"}, n)
	case *ast.TextBlock:
		// a tight list item's text: no paragraph of its own
		return c.inlines(&sblock{Kind: "inline"}, n)
	case *ast.List:
		b := &sblock{Kind: "ul"}
		if n.IsOrdered() {
			b.Kind = "ol"
			if n.Start > 1 {
				b.Start = n.Start
			}
		}
		return c.children(b, n)
	case *ast.ListItem:
		return c.children(&sblock{Kind: "li"}, n)
	case *ast.Blockquote:
		return c.children(&sblock{Kind: "blockquote"}, n)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var sb strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			sb.Write(seg.Value(c.src))
		}
		b := &sblock{Kind: "pre"}
		b.Segs = c.m.run(strings.TrimRight(sb.String(), "\n"))
		return b
	case *ast.ThematicBreak:
		return &sblock{Kind: "hr"}
	case *east.Table:
		return c.children(&sblock{Kind: "table"}, n)
	case *east.TableHeader:
		// the header row: its cells are th
		row := &sblock{Kind: "tr"}
		for k := n.FirstChild(); k != nil; k = k.NextSibling() {
			if cell, ok := k.(*east.TableCell); ok {
				row.Kids = append(row.Kids, c.inlines(&sblock{Kind: "th"}, cell))
			}
		}
		return row
	case *east.TableRow:
		return c.children(&sblock{Kind: "tr"}, n)
	case *east.TableCell:
		return c.inlines(&sblock{Kind: "td"}, n)
	}
	// raw HTML blocks, link reference definitions and anything else: not shown
	return nil
}

func (c *converter) children(b *sblock, n ast.Node) *sblock {
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		if kb := c.block(k); kb != nil {
			b.Kids = append(b.Kids, kb)
		}
	}
	return b
}

// inlines fills b with n's inline content.
func (c *converter) inlines(b *sblock, n ast.Node) *sblock {
	for k := n.FirstChild(); k != nil; k = k.NextSibling() {
		c.inline(b, k)
	}
	return b
}

func (c *converter) inline(b *sblock, n ast.Node) {
	c.count++
	if c.count > maxStructureBlocks {
		return
	}
	switch n := n.(type) {
	case *ast.Text:
		s := string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(n.Segment.Value(c.src)))))
		c.addText(b, s)
		switch {
		case n.HardLineBreak():
			b.Kids = append(b.Kids, &sblock{Kind: "br"})
		case n.SoftLineBreak():
			c.addText(b, " ")
		}
	case *ast.String:
		c.addText(b, string(n.Value))
	case *ast.CodeSpan:
		k := &sblock{Kind: "code"}
		var sb strings.Builder
		for t := n.FirstChild(); t != nil; t = t.NextSibling() {
			if tn, ok := t.(*ast.Text); ok {
				sb.Write(tn.Segment.Value(c.src))
			}
		}
		k.Segs = c.m.run(sb.String())
		b.Kids = append(b.Kids, k)
	case *ast.Emphasis:
		kind := "em"
		if n.Level >= 2 {
			kind = "strong"
		}
		b.Kids = append(b.Kids, c.inlines(&sblock{Kind: kind}, n))
	case *ast.Link:
		k := &sblock{Kind: "a", Href: webHref(string(n.Destination))}
		if k.Href == "" {
			k.Kind = "span"
		}
		b.Kids = append(b.Kids, c.inlines(k, n))
	case *ast.AutoLink:
		u := string(n.URL(c.src))
		k := &sblock{Kind: "a", Href: webHref(u)}
		if k.Href == "" {
			k.Kind = "span"
		}
		k.Kids = []*sblock{{Kind: "text", Segs: c.m.run(string(n.Label(c.src)))}}
		b.Kids = append(b.Kids, k)
	case *ast.Image:
		var alt strings.Builder
		for t := n.FirstChild(); t != nil; t = t.NextSibling() {
			if tn, ok := t.(*ast.Text); ok {
				alt.Write(util.UnescapePunctuations(tn.Segment.Value(c.src)))
			}
		}
		dest := string(n.Destination)
		b.Kids = append(b.Kids, &sblock{Kind: "img", Href: webHref(dest), Alt: alt.String(), Src: c.imgs[dest]})
	default:
		// raw HTML and anything else inline: not shown
	}
}

// addText appends a text run to b, marked where annotations cover it.
func (c *converter) addText(b *sblock, s string) {
	if s == "" {
		return
	}
	b.Kids = append(b.Kids, &sblock{Kind: "text", Segs: c.m.run(s)})
}

// webHref is u when it is an absolute http(s) address, else "".
func webHref(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.String()
}

// figures turns a paragraph holding only an image into a figure, with
// the short paragraph after it as its caption (html-to-markdown writes a
// <figure> as the image, then its caption as a paragraph).
func figures(bs []*sblock) []*sblock {
	out := bs[:0]
	for i := 0; i < len(bs); i++ {
		b := bs[i]
		for _, k := range b.Kids {
			if k.Kind == "blockquote" || k.Kind == "li" {
				k.Kids = figures(k.Kids)
			}
		}
		if b.Kind == "p" && onlyImage(b) {
			f := &sblock{Kind: "figure", Kids: []*sblock{b.Kids[0]}}
			if i+1 < len(bs) && bs[i+1].Kind == "p" && !onlyImage(bs[i+1]) && utf8.RuneCountInString(plain(bs[i+1])) <= 300 {
				cap := bs[i+1]
				cap.Kind = "figcaption"
				f.Kids = append(f.Kids, cap)
				i++
			}
			out = append(out, f)
			continue
		}
		out = append(out, b)
	}
	return out
}

func onlyImage(b *sblock) bool {
	n := 0
	for _, k := range b.Kids {
		switch {
		case k.Kind == "img":
			n++
		case k.Kind == "text" && strings.TrimSpace(plain(k)) == "":
		default:
			return false
		}
	}
	return n == 1
}

// plain is b's text.
func plain(b *sblock) string {
	var sb strings.Builder
	for _, s := range b.Segs {
		sb.WriteString(s.Text)
	}
	for _, k := range b.Kids {
		sb.WriteString(plain(k))
	}
	return sb.String()
}

// --- marking ---------------------------------------------------------------

// marker places annotations on the text runs of the structure. Every run
// is looked for in the item's text after the previous one (whitespace
// ignored on both sides, as a code block's line breaks or a table's cell
// borders differ between the two); the characters of a run found there
// are marked by the annotations whose quote covers them in the text.
type marker struct {
	sq     []byte // the text without whitespace
	cursor int    // where the next run is looked for in sq
	spans  []qspan
	placed map[int64]bool
}

// qspan is an annotation's quote in squashed coordinates [start, end).
type qspan struct {
	start, end int
	ann        *record.Annotation
}

// searchWindow bounds how far past the cursor a run is looked for, so a
// run the text lacks (an image's alt text) costs little.
const searchWindow = 32 << 10

func newMarker(txt string, anns []record.Annotation) *marker {
	m := &marker{sq: []byte(squashSpace(txt)), placed: map[int64]bool{}}
	sq := string(m.sq)
	for k := range anns {
		a := &anns[k]
		if a.Review == "rejected" {
			continue
		}
		quote := a.Text
		switch a.Type {
		case record.AnnHighlight, record.AnnLowlight:
		case record.AnnNote:
			// a note made in the reader ends with the quote it is about
			i := strings.LastIndex(quote, "\n\n> ")
			if i < 0 {
				continue
			}
			quote = quote[i+4:]
		default:
			continue
		}
		q := squashSpace(quote)
		if q == "" {
			continue
		}
		if at := strings.Index(sq, q); at >= 0 {
			m.spans = append(m.spans, qspan{at, at + len(q), a})
		}
	}
	// earlier quotes first; a longer one first at the same place (it is
	// the outer mark)
	sort.SliceStable(m.spans, func(i, j int) bool {
		if m.spans[i].start != m.spans[j].start {
			return m.spans[i].start < m.spans[j].start
		}
		return m.spans[i].end > m.spans[j].end
	})
	return m
}

// run splits s, the next run of the structure's text, into marked and
// plain segments.
func (m *marker) run(s string) []annSeg {
	q := squashSpace(s)
	if q == "" || len(m.spans) == 0 {
		if q != "" {
			m.advance(q)
		}
		return []annSeg{{Text: s}}
	}
	at := m.advance(q)
	if at < 0 || !m.touches(at, at+len(q)) {
		return []annSeg{{Text: s}}
	}
	// the squashed position of each non-space byte of s
	var out []annSeg
	pos := at
	var cur *annSeg
	for i, r := range s {
		w := utf8.RuneLen(r)
		var outer, inner *record.Annotation
		if unicode.IsSpace(r) {
			// a space is marked when the characters on both sides are
			outer, inner = m.cover(pos-1, pos)
		} else {
			outer, inner = m.cover(pos, pos)
			pos += w
		}
		if cur == nil || cur.Ann != outer || cur.Inner != inner {
			out = append(out, annSeg{Ann: outer, Inner: inner})
			cur = &out[len(out)-1]
		}
		cur.Text += s[i : i+w]
	}
	for _, o := range out {
		if o.Ann != nil {
			m.placed[o.Ann.ID] = true
		}
		if o.Inner != nil {
			m.placed[o.Inner.ID] = true
		}
	}
	return out
}

// advance finds q in the squashed text from the cursor and moves the
// cursor past it; -1 (cursor unmoved) when it is not within the window.
func (m *marker) advance(q string) int {
	end := min(len(m.sq), m.cursor+searchWindow+len(q))
	i := strings.Index(string(m.sq[m.cursor:end]), q)
	if i < 0 {
		return -1
	}
	at := m.cursor + i
	m.cursor = at + len(q)
	return at
}

// touches reports whether a span overlaps squashed [a, b).
func (m *marker) touches(a, b int) bool {
	for _, s := range m.spans {
		if s.start < b && a < s.end {
			return true
		}
	}
	return false
}

// cover returns the annotations (at most two: the outer and one inner)
// whose spans hold both squashed positions a and b.
func (m *marker) cover(a, b int) (outer, inner *record.Annotation) {
	for i := range m.spans {
		s := &m.spans[i]
		if s.start > a {
			break
		}
		if a >= s.start && a < s.end && b >= s.start && b < s.end {
			if outer == nil {
				outer = s.ann
			} else if inner == nil {
				inner = s.ann
				return
			}
		}
	}
	return
}

// squashSpace is s without whitespace.
func squashSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
