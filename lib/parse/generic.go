package parse

import (
	"errors"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/linkledger/linkledger/lib/record"
)

// Article returns the adapter for HTML articles: main-text extraction with
// mt (lib/parse/mainext's functions) plus page metadata (JSON-LD,
// OpenGraph, meta tags). Without mt it fails every page, so the chain
// falls back to the visible text.
func Article(mt MainText) Adapter {
	x := defaultExtractor
	x.mt = mt
	x.lead = mt.RestoreLead
	return articleAdapter{x: x}
}

// Markdown returns the adapter for Markdown bodies (text/markdown, or a
// .md URL served as plain text): markup is stripped to its text and a
// front-matter or first-heading title is used as the title.
func Markdown() Adapter { return markdownAdapter{} }

// PlainText returns the adapter for plain text bodies (text/plain, other
// non-HTML text, or a body with no content type that is not HTML).
func PlainText() Adapter { return plainAdapter{} }

// VisibleText returns the last-resort HTML adapter: all visible text of the
// page with scripts, styles, navigation, headers, footers and forms removed.
func VisibleText() Adapter { return visibleAdapter{} }

var errNoText = errors.New("no text in body")

type plainAdapter struct{}

func (plainAdapter) Name() string { return "plain-text" }

func (plainAdapter) Match(rec *record.Record) bool {
	if rec.Body == nil {
		return false
	}
	mt := mediaType(rec)
	switch {
	case mt == "":
		return !isHTML(rec)
	case mt == "text/html":
		return false
	case strings.HasPrefix(mt, "text/"):
		return true
	}
	return false
}

func (plainAdapter) Parse(rec *record.Record) (*Result, error) {
	text := Normalize(*rec.Body)
	if text == "" {
		return nil, errNoText
	}
	return &Result{Segments: paragraphSegments(text)}, nil
}

// paragraphSegments makes one segment per paragraph of normalised text.
func paragraphSegments(text string) []Segment {
	var segs []Segment
	for _, p := range Paragraphs(text) {
		segs = append(segs, Segment{Text: p})
	}
	return segs
}

type visibleAdapter struct{}

func (visibleAdapter) Name() string { return "visible-text" }

func (visibleAdapter) Match(rec *record.Record) bool { return isHTML(rec) }

func (visibleAdapter) Parse(rec *record.Record) (*Result, error) {
	doc, err := html.Parse(strings.NewReader(*rec.Body))
	if err != nil {
		return nil, err
	}
	paras := cleanBlocks(textBlocks(doc, chrome, false))
	if len(paras) == 0 {
		return nil, errNoText
	}
	res := metaResult(extractMeta(doc))
	for _, p := range paras {
		res.Segments = append(res.Segments, Segment{Text: p})
	}
	return res, nil
}

// chrome reports page furniture the visible-text adapter leaves out:
// navigation, headers, footers, asides, forms, and hidden elements.
func chrome(n *html.Node) bool {
	switch tagAtom(n) {
	case atom.Nav, atom.Header, atom.Footer, atom.Aside, atom.Form, atom.Menu, atom.Dialog:
		return true
	}
	if _, hidden := attrOK(n, "hidden"); hidden {
		return true
	}
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	switch strings.ToLower(attr(n, "role")) {
	case "navigation", "banner", "contentinfo", "complementary", "search", "dialog", "menu":
		return true
	}
	style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

// attrOK returns the named attribute and whether it is present.
func attrOK(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}
