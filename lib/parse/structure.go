package parse

// The structured document: the main content as Markdown (CommonMark with
// GFM tables), beside the plain text. The article adapter's extractors
// hand over their content nodes; html-to-markdown converts the one that
// holds most of the kept text, after pruning the blocks the text lost
// (so the Markdown never shows what the text filtered out) and turning
// what the converter cannot see into elements it can: formulas into their
// source, a <code> holding lines (trafilatura's form of <pre>) into a
// code block. See docs/parse.md "Structure".

import (
	"context"
	nurl "net/url"
	"regexp"
	"strings"
	"time"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// markdownTimeout bounds one conversion; a page that takes longer keeps
// its text and goes without structure.
const markdownTimeout = 10 * time.Second

// maxMarkdownNodes is the most elements a content node may have for its
// structure to be kept (conversion time and memory grow with them).
const maxMarkdownNodes = 200_000

// structureMarkdown converts the candidate node that covers most of
// paras (the kept text, normalised paragraphs) to Markdown, capped at
// limit bytes on a block boundary. It returns "" when no candidate
// covers any of the text or the conversion fails, and cut when the cap
// dropped some of it.
func structureMarkdown(cands []*html.Node, paras []string, u *nurl.URL, limit int) (md string, cut bool) {
	kept := map[string]bool{}
	for _, p := range paras {
		kept[squash(p)] = true
	}
	covers := make([]int, len(cands))
	most := 0
	for i, n := range cands {
		if n == nil || countNodes(n, maxMarkdownNodes+1) > maxMarkdownNodes {
			continue
		}
		seen := map[string]bool{}
		for _, b := range textBlocks(n, nil, false) {
			if s := squash(Normalize(b)); kept[s] && !seen[s] {
				covers[i] += len(s)
				seen[s] = true
			}
		}
		most = max(most, covers[i])
	}
	if most == 0 {
		return "", false
	}
	// The first candidate within a tenth of the best is taken: the
	// readability node comes first and keeps the page's own elements
	// (figures, <pre>, formulas), which trafilatura rewrites or drops.
	var best *html.Node
	for i, n := range cands {
		if covers[i] > 0 && covers[i]*10 >= most*9 {
			best = n
			break
		}
	}
	n := cloneNode(best)
	prepareStructure(n, kept, u)
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
	))
	ctx, cancel := context.WithTimeout(context.Background(), markdownTimeout)
	defer cancel()
	// addresses are already absolute (prepareStructure resolves them)
	b, err := conv.ConvertNode(n, converter.WithContext(ctx))
	if err != nil {
		return "", false
	}
	return capMarkdown(strings.TrimSpace(string(b)), limit)
}

// capMarkdown cuts md to at most limit bytes at the last blank line
// before it (a block boundary), so no block is left half open.
func capMarkdown(md string, limit int) (string, bool) {
	if limit <= 0 || len(md) <= limit {
		return md, false
	}
	s := cutUTF8(md, limit)
	if i := strings.LastIndex(s, "\n\n"); i > 0 {
		s = s[:i]
	}
	// a fence left open by the cut is closed
	if strings.Count(s, "\n```")%2 == 1 || strings.HasPrefix(s, "```") && strings.Count(s, "\n```")%2 == 0 {
		s += "\n```"
	}
	return strings.TrimSpace(s), true
}

// squash is s without any whitespace: paragraphs compare equal whatever
// their line breaks (a code block's text keeps them, trafilatura's does not).
func squash(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// leafBlocks are the blocks whose text the plain text holds as one
// paragraph each; one the text lost is pruned from the structure.
var leafBlocks = map[atom.Atom]bool{
	atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true,
	atom.H6: true, atom.Li: true, atom.Pre: true, atom.Dt: true, atom.Dd: true,
}

// prepareStructure readies n for conversion, in place: leaf blocks whose
// text is not one of the kept paragraphs are removed, formulas become
// their source, a <code> holding lines outside <pre> becomes a code block,
// and links and images that are not http(s) lose their address.
func prepareStructure(n *html.Node, kept map[string]bool, base *nurl.URL) {
	var walk func(*html.Node, bool)
	// inRow: inside a table row the text kept whole (a row of short
	// cells is one paragraph of the text), whose cells' blocks stay
	walk = func(n *html.Node, inRow bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			if c.Type != html.ElementNode {
				c = next
				continue
			}
			a := tagAtom(c)
			switch {
			case a == atom.Math:
				replaceMath(c)
				c = next
				continue
			case a == atom.Script || a == atom.Style || a == atom.Noscript || a == atom.Template || a == atom.Iframe:
				n.RemoveChild(c)
				c = next
				continue
			case a == atom.Tr && !inRow:
				if t := squash(Normalize(blockText(c))); t != "" && kept[t] {
					walk(c, true)
					c = next
					continue
				}
			case leafBlocks[a] && !hasBlockChild(c) && !inRow:
				if t := squash(Normalize(blockText(c))); t != "" && !kept[t] && !keptPrefix(t, kept) {
					n.RemoveChild(c)
					c = next
					continue
				}
			case a == atom.Code && !insidePre(c) && strings.Contains(nodeRawText(c), "\n"):
				wrapPre(c)
				c = next
				continue
			case a == atom.A:
				if !setWebURL(c, "href", base) {
					// no address to keep: the link's text stays
					for k := c.FirstChild; k != nil; {
						kn := k.NextSibling
						c.RemoveChild(k)
						n.InsertBefore(k, c)
						k = kn
					}
					n.RemoveChild(c)
					c = next
					continue
				}
			case a == atom.Img:
				removeAttr(c, "srcset")
				if !setWebURL(c, "src", base) {
					// no address to keep: the alt text stays, in italics
					if alt := strings.TrimSpace(attr(c, "alt")); alt != "" {
						em := &html.Node{Type: html.ElementNode, Data: "em", DataAtom: atom.Em}
						em.AppendChild(&html.Node{Type: html.TextNode, Data: alt})
						n.InsertBefore(em, c)
					}
					n.RemoveChild(c)
					c = next
					continue
				}
			}
			walk(c, inRow)
			c = next
		}
	}
	walk(n, false)
}

// keptPrefix reports whether a kept paragraph of some length starts t:
// the text kept the start of the block (an extractor cut it at an
// element it dropped, a formula say).
func keptPrefix(t string, kept map[string]bool) bool {
	if len(kept) > 5000 {
		return false
	}
	for k := range kept {
		if len(k) >= 16 && strings.HasPrefix(t, k) {
			return true
		}
	}
	return false
}

// blockText is the text of a leaf block as the plain text has it.
func blockText(n *html.Node) string {
	return strings.Join(textBlocks(n, nil, false), "\n\n")
}

func hasBlockChild(n *html.Node) bool {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && (blockAtoms[tagAtom(c)] || hasBlockChild(c)) {
			return true
		}
	}
	return false
}

func insidePre(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && tagAtom(p) == atom.Pre {
			return true
		}
	}
	return false
}

// nodeRawText is n's text as it is, whitespace included.
func nodeRawText(n *html.Node) string {
	var b strings.Builder
	var f func(*html.Node)
	f = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			f(c)
		}
	}
	f(n)
	return b.String()
}

// wrapPre replaces c (a code element holding lines) with a code block of
// its text: <pre><code>.
func wrapPre(c *html.Node) {
	pre := &html.Node{Type: html.ElementNode, Data: "pre", DataAtom: atom.Pre}
	code := &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code}
	code.AppendChild(&html.Node{Type: html.TextNode, Data: nodeRawText(c)})
	pre.AppendChild(code)
	c.Parent.InsertBefore(pre, c)
	c.Parent.RemoveChild(c)
}

// replaceMath puts a formula's source in place of a <math> element: its
// alttext, else a TeX annotation, else its text; as inline code, so the
// Markdown keeps it verbatim.
func replaceMath(m *html.Node) {
	src := attr(m, "alttext")
	if src == "" {
		for _, an := range findAll(m, func(n *html.Node) bool { return strings.EqualFold(n.Data, "annotation") }) {
			if strings.Contains(strings.ToLower(attr(an, "encoding")), "tex") {
				src = nodeText(an)
				break
			}
		}
	}
	if src == "" {
		src = nodeText(m)
	}
	src = strings.TrimSpace(src)
	if src == "" {
		m.Parent.RemoveChild(m)
		return
	}
	code := &html.Node{Type: html.ElementNode, Data: "code", DataAtom: atom.Code}
	code.AppendChild(&html.Node{Type: html.TextNode, Data: src})
	m.Parent.InsertBefore(code, m)
	m.Parent.RemoveChild(m)
}

// setWebURL sets n's attribute key to its value resolved against base
// and reports whether that is an http(s) address: links and images
// elsewhere (javascript:, data:, file:) are not kept.
func setWebURL(n *html.Node, key string, base *nurl.URL) bool {
	v := strings.TrimSpace(attr(n, key))
	if v == "" {
		return false
	}
	u, err := nurl.Parse(v)
	if err != nil {
		return false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	for i := range n.Attr {
		if n.Attr[i].Key == key {
			n.Attr[i].Val = u.String()
		}
	}
	return true
}

func removeAttr(n *html.Node, key string) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Key != key {
			out = append(out, a)
		}
	}
	n.Attr = out
}

// countNodes counts n's nodes, stopping at most.
func countNodes(n *html.Node, most int) int {
	k := 0
	var f func(*html.Node)
	f = func(n *html.Node) {
		for c := n; c != nil && k < most; c = c.NextSibling {
			k++
			if c.FirstChild != nil {
				f(c.FirstChild)
			}
		}
	}
	k++
	if n.FirstChild != nil {
		f(n.FirstChild)
	}
	return k
}

// cloneNode deep-copies n without its parent or siblings (the converter
// changes the tree it is given; the extractors' nodes stay as they were).
func cloneNode(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace}
	c.Attr = append([]html.Attribute(nil), n.Attr...)
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		c.AppendChild(cloneNode(k))
	}
	return c
}

// mdEscape is a backslash escape of Markdown punctuation.
// referenceHeadings are the titles of a page's reference list, lower
// case: a section under one is marked record.ChunkReferences.
var referenceHeadings = map[string]bool{
	"references": true, "reference list": true, "bibliography": true, "notes": true,
	"notes and references": true, "references and notes": true, "footnotes": true, "endnotes": true,
	"works cited": true, "citations": true, "sources": true, "further reading": true,
	"literature": true, "external links": true, "sources and further reading": true,
	// a few languages the ledger's users read
	"einzelnachweise": true, "literatur": true, "weblinks": true, "quellen": true, "anmerkungen": true,
	"références": true, "notes et références": true, "bibliographie": true,
	"referencias": true, "bibliografía": true, "参考文献": true, "参考资料": true, "注释": true,
}

// referenceHeading reports whether a heading's text titles a reference
// list: one of referenceHeadings, after a section number ("7.", "VII.")
// and a trailing colon or "[edit]" are set aside.
func referenceHeading(h string) bool {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimSuffix(h, "[edit]")
	h = strings.TrimSuffix(h, "[bearbeiten | quelltext bearbeiten]")
	h = strings.TrimRight(strings.TrimSpace(h), ":：")
	if f := strings.Fields(h); len(f) > 1 && strings.TrimRight(f[0], ".") != "" &&
		strings.Trim(strings.TrimRight(f[0], "."), "0123456789ivx") == "" {
		h = strings.Join(f[1:], " ")
	}
	return referenceHeadings[strings.Join(strings.Fields(h), " ")]
}

var mdEscape = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")

// markdownSections reads md's ATX headings (with their levels) and fenced
// code blocks, as squashed text, so the chunker can tell them among the
// text's paragraphs (a chunk does not cross a heading; a code block stays
// whole).
func markdownSections(md string) (headings map[string]int, code map[string]bool) {
	headings, code = map[string]int{}, map[string]bool{}
	var block []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" {
				code[squash(strings.Join(block, "\n"))] = true
				block, fence = nil, ""
				continue
			}
			block = append(block, line)
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if h := strings.TrimLeft(t, "#"); len(h) < len(t) && len(t)-len(h) <= 6 && strings.HasPrefix(h, " ") {
			h = strings.TrimRight(strings.TrimSpace(h), "#")
			k := squash(mdEscape.ReplaceAllString(h, "$1"))
			if _, seen := headings[k]; !seen {
				headings[k] = len(t) - len(h)
			}
		}
	}
	return headings, code
}
