package parse

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// blockAtoms are the elements that start and end a paragraph of text.
var blockAtoms = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
	atom.Caption: true, atom.Center: true, atom.Dd: true, atom.Details: true, atom.Dialog: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true,
	atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Summary: true, atom.Table: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Tr: true, atom.Ul: true, atom.Html: true, atom.Legend: true, atom.Menu: true,
}

// invisibleAtoms never hold readable text.
var invisibleAtoms = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Head: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Select: true, atom.Textarea: true, atom.Input: true, atom.Button: true,
	atom.Audio: true, atom.Video: true, atom.Picture: true, atom.Img: true, atom.Link: true, atom.Meta: true,
	atom.Title: true,
}

// textBlocks walks n and returns its text as paragraphs: block elements
// separate paragraphs, <br> breaks a line, table cells are separated by a
// space, whitespace is collapsed except inside <pre>. skip, when set, prunes
// extra subtrees (navigation for the visible-text adapter).
//
// With trimmed set, text nodes are taken to have lost their surrounding
// whitespace (trafilatura trims them), so words of adjacent inline elements
// are kept apart by a space unless punctuation joins them.
func textBlocks(n *html.Node, skip func(*html.Node) bool, trimmed bool) []string {
	w := &blockWriter{trimmed: trimmed}
	w.walk(n, skip, false)
	w.flush()
	return w.out
}

// linkedBlocks is textBlocks (untrimmed) with, for each block, the share
// of its non-space characters that sit inside links, and whether it is
// inside a table.
func linkedBlocks(n *html.Node, skip func(*html.Node) bool) ([]string, []float64, []bool) {
	w := &blockWriter{}
	w.walk(n, skip, false)
	w.flush()
	return w.out, w.dens, w.tabled
}

type blockWriter struct {
	out     []string
	cur     strings.Builder
	trimmed bool
	pending bool // an element boundary was passed since the last text
	// link is the depth of <a> elements being walked; curLink and curAll
	// count the current block's non-space characters inside links and in
	// all; dens holds each block's share (linkedBlocks).
	link, curLink, curAll int
	dens                  []float64
	// table is the depth of <table> elements being walked; tabled holds
	// whether each block was inside one.
	table  int
	tabled []bool
	// cell is the depth of short table cells being walked: inside one,
	// block elements (a <p> or <div> wrapping the cell's text) do not end
	// the paragraph, so a row stays one line, its label with its values.
	cell int
}

// maxInlineCell is the most characters a table cell may hold for its
// blocks to be read as one line: a longer cell is a layout cell holding
// paragraphs of its own.
const maxInlineCell = 200

// text appends a text node's content.
func (w *blockWriter) text(s string) {
	if s == "" {
		return
	}
	if w.trimmed && w.pending && w.cur.Len() > 0 {
		r, _ := utf8.DecodeRuneInString(s)
		prev := w.cur.String()
		last, _ := utf8.DecodeLastRuneInString(prev)
		if !unicode.IsSpace(r) && !unicode.IsSpace(last) && !strings.ContainsRune(".,;:!?)]}»”’'%", r) && !strings.ContainsRune("([{«“‘/-", last) {
			w.cur.WriteByte(' ')
		}
	}
	w.pending = false
	w.cur.WriteString(s)
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	w.curAll += n
	if w.link > 0 {
		w.curLink += n
	}
}

func (w *blockWriter) flush() {
	if t := strings.TrimSpace(w.cur.String()); t != "" {
		w.out = append(w.out, t)
		d := 0.0
		if w.curAll > 0 {
			d = float64(w.curLink) / float64(w.curAll)
		}
		w.dens = append(w.dens, d)
		w.tabled = append(w.tabled, w.table > 0)
	}
	w.cur.Reset()
	w.curLink, w.curAll = 0, 0
}

func (w *blockWriter) walk(n *html.Node, skip func(*html.Node) bool, pre bool) {
	switch n.Type {
	case html.TextNode:
		if pre {
			w.text(n.Data)
		} else {
			w.text(collapseSpace(n.Data))
		}
		return
	case html.ElementNode:
		a := tagAtom(n)
		if invisibleAtoms[a] || (skip != nil && skip(n)) {
			return
		}
		switch a {
		case atom.Br:
			w.cur.WriteString("\n")
			return
		case atom.Td, atom.Th:
			w.cur.WriteString(" ")
		}
	case html.DocumentNode:
	default:
		return
	}
	block := n.Type == html.ElementNode && blockAtoms[tagAtom(n)]
	if block && w.cell > 0 {
		// a block inside a short cell: a word boundary, not a paragraph
		block = false
		w.cur.WriteString(" ")
	}
	if block {
		w.flush()
	}
	isCell := n.Type == html.ElementNode && (tagAtom(n) == atom.Td || tagAtom(n) == atom.Th) &&
		(w.cell > 0 || shortCell(n))
	if isCell {
		w.cell++
	}
	inPre := pre || tagAtom(n) == atom.Pre
	isLink := n.Type == html.ElementNode && tagAtom(n) == atom.A
	if isLink {
		w.link++
	}
	isTable := n.Type == html.ElementNode && tagAtom(n) == atom.Table
	if isTable {
		w.table++
	}
	w.pending = true
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, skip, inPre)
	}
	w.pending = true
	if isLink {
		w.link--
	}
	if isTable {
		w.table--
	}
	if isCell {
		w.cell--
	}
	if block {
		w.flush()
	}
}

// shortCell reports whether a table cell holds at most maxInlineCell
// characters of text (it stops counting past that).
func shortCell(n *html.Node) bool {
	count := 0
	var f func(*html.Node) bool
	f = func(n *html.Node) bool {
		if n.Type == html.TextNode {
			count += utf8.RuneCountInString(strings.TrimSpace(n.Data))
			return count <= maxInlineCell
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if !f(c) {
				return false
			}
		}
		return true
	}
	return f(n)
}

// tagAtom is the element's atom, looked up from its name for nodes built
// in code (extractors create elements without setting DataAtom).
func tagAtom(n *html.Node) atom.Atom {
	if n.DataAtom != 0 {
		return n.DataAtom
	}
	return atom.Lookup([]byte(strings.ToLower(n.Data)))
}

// collapseSpace turns every run of HTML whitespace into one space, keeping
// a leading and trailing space when there was one (words of adjacent inline
// elements stay apart).
func collapseSpace(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		if s == "" {
			return ""
		}
		return " "
	}
	out := strings.Join(f, " ")
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		out = " " + out
	}
	if r, _ := utf8.DecodeLastRuneInString(s); unicode.IsSpace(r) {
		out += " "
	}
	return out
}

// attr returns the value of the named attribute of n.
func attr(n *html.Node, name string) string {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val
		}
	}
	return ""
}

// nodeText is the collapsed text content of n.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style) {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// findAll returns the element nodes under n for which match is true.
func findAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return out
}
