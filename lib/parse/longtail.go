package parse

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The rules in this file judge the paragraphs the extractors kept by where
// they sit in the whole page (issue 29, "extraction's long tail"). Each is
// general: none names a site, a class or an id. docs/parse.md gives the
// measured effect of each on both halves of the development set.

// pageSource describes the visible blocks of a whole page, keyed by their
// words (see blockKey), so a kept paragraph can be found in it.
type pageSource struct {
	texts []string           // normalised blocks in document order
	pos   map[string]int     // key → first position in texts
	dens  map[string]float64 // key → link density of its first occurrence
	table map[string]bool    // key → its first occurrence is a table row
	count map[string]int     // key → occurrences in the page
	// card maps the key of a block found only inside <article> cards to
	// its card: an <article> with at least one sibling <article> (directly,
	// or each wrapped alone in an item of the same list or container).
	card map[string]*html.Node
}

// blockKey is a paragraph's lower-cased words joined by spaces: the same
// text rendered with different spacing or punctuation gets the same key.
func blockKey(p string) string { return strings.Join(words(p), " ") }

// hiddenNode reports elements the page hides from readers.
func hiddenNode(n *html.Node) bool {
	if _, ok := attrOK(n, "hidden"); ok {
		return true
	}
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	style := strings.ToLower(strings.ReplaceAll(attr(n, "style"), " ", ""))
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}

func newPageSource(doc *html.Node) *pageSource {
	s := &pageSource{pos: map[string]int{}, dens: map[string]float64{}, count: map[string]int{}, table: map[string]bool{}, card: map[string]*html.Node{}}
	blocks, dens, tabled := linkedBlocks(doc, hiddenNode)
	for i, b := range blocks {
		b = Normalize(b)
		k := blockKey(b)
		if k == "" {
			continue
		}
		s.count[k]++
		if _, ok := s.pos[k]; !ok {
			s.pos[k] = len(s.texts)
			s.dens[k] = dens[i]
			s.table[k] = tabled[i]
		}
		s.texts = append(s.texts, b)
	}
	inCards := map[string]int{}
	owner := map[string]*html.Node{}
	for _, a := range findAll(doc, func(n *html.Node) bool { return tagAtom(n) == atom.Article }) {
		c := cardOf(a)
		if c == nil {
			continue
		}
		for _, b := range textBlocks(a, hiddenNode, false) {
			k := blockKey(Normalize(b))
			if k == "" {
				continue
			}
			inCards[k]++
			if owner[k] == nil {
				owner[k] = c
			}
		}
	}
	for k, n := range inCards {
		if n >= s.count[k] {
			s.card[k] = owner[k]
		}
	}
	return s
}

// cardOf returns the card an <article> is, or nil when it is not one: the
// article itself, or the element that wraps it alone (an <li>, a <div>),
// when that has a sibling element which is, or wraps alone, an <article>.
func cardOf(a *html.Node) *html.Node {
	c := a
	if p := a.Parent; p != nil && onlyElementChild(p) == a && tagAtom(p) != atom.Body && tagAtom(p) != atom.Main {
		c = p
	}
	if c.Parent == nil {
		return nil
	}
	for sib := c.Parent.FirstChild; sib != nil; sib = sib.NextSibling {
		if sib == c || sib.Type != html.ElementNode {
			continue
		}
		if tagAtom(sib) == atom.Article {
			return c
		}
		if only := onlyElementChild(sib); only != nil && tagAtom(only) == atom.Article {
			return c
		}
	}
	return nil
}

// onlyElementChild returns n's single element child, or nil when it has
// none or several.
func onlyElementChild(n *html.Node) *html.Node {
	var only *html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if only != nil {
			return nil
		}
		only = c
	}
	return only
}

// dropCards (D) keeps a page's main text out of its sibling <article>
// cards: when kept paragraphs come from cards, the owner of most of the
// kept text (a card, or the page outside every card) is the article, and
// paragraphs from every other card go (related posts, teasers, the next
// stories of an endless news page).
func dropCards(paras []string, src *pageSource) []string {
	owners := make([]*html.Node, len(paras))
	size := map[*html.Node]int{}
	any := false
	for i, p := range paras {
		owners[i] = src.card[blockKey(p)]
		size[owners[i]] += utf8.RuneCountInString(p)
		any = any || owners[i] != nil
	}
	if !any {
		return paras
	}
	var main *html.Node
	best := -1
	for n, sz := range size {
		if sz > best || (sz == best && n == nil) {
			main, best = n, sz
		}
	}
	var out []string
	for i, p := range paras {
		if owners[i] == nil || owners[i] == main {
			out = append(out, p)
		}
	}
	return out
}

// linkDenseMax is the most words a paragraph may have to be dropped for
// its links, and linkDenseShare the share of its characters inside links
// that marks it.
const (
	linkDenseMax   = 30
	linkDenseShare = 0.6
)

// dropLinkDense (B) drops, after the first paragraph, short paragraphs
// that are mostly link text on the page and come in a run of two or more
// ("related" lists, menus) or start with a short label and a colon
// ("Related: …", "See more: …"). A lone link line inside the text (a
// product named in a review, a heading that links to its subject), a bare
// URL and a table row (the cells of a table of links are its content) are
// kept, and so is a paragraph not found on the page.
func dropLinkDense(paras []string, src *pageSource) []string {
	dense := make([]bool, len(paras))
	for i, p := range paras {
		d, ok := src.dens[blockKey(p)]
		dense[i] = i > 0 && ok && d >= linkDenseShare && len(words(p)) <= linkDenseMax && !looksLikeURL(p) && !src.table[blockKey(p)]
	}
	out := paras[:0:0]
	for i, p := range paras {
		run := (i > 0 && dense[i-1]) || (i+1 < len(paras) && dense[i+1])
		if dense[i] && (run || labelled(p)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// labelled reports a paragraph that starts with a label of at most three
// words and a colon, followed by more text.
func labelled(p string) bool {
	label, rest, ok := strings.Cut(p, ":")
	return ok && strings.TrimSpace(rest) != "" && len(strings.Fields(label)) <= 3
}

// looksLikeURL reports a paragraph that is a web address.
func looksLikeURL(p string) bool {
	p = strings.ToLower(strings.TrimSpace(p))
	return !strings.ContainsAny(p, " \n") && (strings.HasPrefix(p, "http://") || strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "www."))
}

// boilerLine matches the lines of page furniture an extractor may keep: a
// copyright notice, a call to subscribe or to share, "follow us".
var boilerLine = regexp.MustCompile(`(?i)^\W*(©|\(c\)\s*\d{4}|copyright\b|all rights reserved|(subscribe|sign up)\b.*\b(newsletter|updates|channel|podcast)|share (this|on)\b|follow us\b)|\ball rights reserved\W*$`)

// boilerMaxWords is the most words a boilerplate line may have.
const boilerMaxWords = 20

// dropBoilerLines (F) drops, after the first paragraph, short paragraphs
// that are a copyright, subscribe, share or follow line.
func dropBoilerLines(paras []string) []string {
	out := paras[:0:0]
	for i, p := range paras {
		if i > 0 && len(words(p)) <= boilerMaxWords && boilerLine.MatchString(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// boxHeading matches the heading of a box of other stories or links: the
// most popular or most read, trending, related, "more from …",
// recommended, "you may also like", "read next".
var boxHeading = regexp.MustCompile(`(?i)^\W*(most (popular|read|viewed|shared|emailed|commented)|trending|popular (now|stories|posts|articles)|related|more (from|on|in|stories|news|articles|posts|to read)\b|recommended|you (may|might) (also )?(like|enjoy)|read (next|more|also)\b|also read|top stories|editors?'?s? picks|what to read next|don'?t miss)`)

// boxHeadingMaxWords is the most words a box heading may have ("More
// from the Science desk").
const boxHeadingMaxWords = 5

// dropBoxHeadings (F) drops, after the first paragraph, a short
// paragraph that is a box heading when it ends the kept text or when the
// block after it on the page is link-dense and was not kept: the heading
// of a "Most Popular" or "Related" box whose items the extractors or the
// link-dense rule left out.
func dropBoxHeadings(paras []string, src *pageSource) []string {
	kept := map[string]bool{}
	for _, p := range paras {
		kept[blockKey(p)] = true
	}
	out := paras[:0:0]
	for i, p := range paras {
		if i > 0 && len(words(p)) <= boxHeadingMaxWords && boxHeading.MatchString(p) && (i == len(paras)-1 || src.linksAfter(blockKey(p), kept)) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// linksAfter reports whether the page block after the first one with key
// k is link-dense and not kept.
func (s *pageSource) linksAfter(k string, kept map[string]bool) bool {
	at, ok := s.pos[k]
	if !ok || at+1 >= len(s.texts) {
		return false
	}
	next := blockKey(s.texts[at+1])
	return !kept[next] && s.dens[next] >= linkDenseShare
}

// pageDescriptions returns the page's own descriptions: meta description,
// og:description, twitter:description and the JSON-LD description of the
// article or page.
func pageDescriptions(doc *html.Node) []string {
	var out []string
	seen := map[string]bool{}
	add := func(s string) {
		s = cleanField(s)
		if k := blockKey(s); k != "" && !seen[k] {
			seen[k] = true
			out = append(out, s)
		}
	}
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Meta }) {
		key := strings.ToLower(strings.TrimSpace(attr(n, "property") + attr(n, "name")))
		switch key {
		case "description", "og:description", "twitter:description", "dc.description":
			add(attr(n, "content"))
		}
	}
	for _, n := range findAll(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.Script && strings.Contains(strings.ToLower(attr(n, "type")), "ld+json")
	}) {
		var v any
		if json.Unmarshal([]byte(nodeRaw(n)), &v) != nil {
			continue
		}
		var art, page, media pageMeta
		walkLD(v, &art, &page, &media, 0)
		add(art.Description)
		add(page.Description)
	}
	return out
}

// leadMinWords is the fewest words a description needs to be looked for
// as a lead (shorter ones are slogans and site blurbs).
const leadMinWords = 8

// restoreLead (A) puts back a lead (standfirst) the extractors lost: a
// visible block above the first kept paragraph whose text is the page's
// own description (or starts with it, when the description was cut), when
// the kept text does not already hold that description.
func restoreLead(paras []string, src *pageSource, descs []string) []string {
	if len(paras) == 0 {
		return paras
	}
	first := len(src.texts)
	for _, p := range paras {
		if i, ok := src.pos[blockKey(p)]; ok && i < first {
			first = i
		}
	}
	have := gramSet(paras)
	for _, d := range descs {
		d = strings.TrimRight(strings.TrimSpace(d), ".…")
		dw := words(d)
		if len(dw) < leadMinWords || coverage(dw, have) >= 0.5 {
			continue
		}
		for i := 0; i < first; i++ {
			b := src.texts[i]
			bw := words(b)
			if len(bw) < len(dw) || len(bw) > 3*len(dw) || src.dens[blockKey(b)] >= 0.5 {
				continue
			}
			if strings.Join(bw[:len(dw)], " ") == strings.Join(dw, " ") {
				return append([]string{b}, paras...)
			}
		}
	}
	return paras
}

// gramSet is the set of word 3-grams of paras (a paragraph under three
// words is one entry).
func gramSet(paras []string) map[string]bool {
	grams := map[string]bool{}
	for _, p := range paras {
		w := words(p)
		for i := 0; i+3 <= len(w); i++ {
			grams[strings.Join(w[i:i+3], " ")] = true
		}
		if len(w) < 3 {
			grams[strings.Join(w, " ")] = true
		}
	}
	return grams
}

// coverage is the share of w's 3-grams found in grams.
func coverage(w []string, grams map[string]bool) float64 {
	if len(w) < 3 {
		if grams[strings.Join(w, " ")] {
			return 1
		}
		return 0
	}
	hit := 0
	for i := 0; i+3 <= len(w); i++ {
		if grams[strings.Join(w[i:i+3], " ")] {
			hit++
		}
	}
	return float64(hit) / float64(len(w)-2)
}
