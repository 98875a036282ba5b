package parse

import (
	"errors"
	"fmt"
	"net/http"
	nurl "net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"

	"github.com/linkledger/linkledger/lib/record"
)

// errNoArticle is returned when no extractor found a main text.
var errNoArticle = errors.New("no article text found")

// errNoMainText is returned by an article adapter built without its
// extractors (see MainText).
var errNoMainText = errors.New("article extractors not linked into this program")

// MainText is the pair of main-text extractors the article adapter
// combines. lib/parse/mainext implements them with go-readability and
// go-trafilatura; they are passed in rather than imported so that programs
// which never extract articles do not link those libraries (see mainext).
type MainText struct {
	// Readability returns the article node of doc.
	Readability func(doc *html.Node, u *nurl.URL) (*html.Node, error)
	// Trafilatura returns the main-content node of doc and the metadata
	// it found; with fallback it may use the readability node instead.
	Trafilatura func(doc *html.Node, u *nurl.URL, fallback bool, readability *html.Node) (content *html.Node, title, author, site, description string, date time.Time, err error)
	// RestoreLead puts back a lead (standfirst) the extractors dropped
	// when it is the page's own description (ll-parse --restore-lead; off
	// by default, see docs/parse.md).
	RestoreLead bool
}

func (m MainText) ok() bool { return m.Readability != nil && m.Trafilatura != nil }

// articleAdapter extracts the main text of an HTML page. go-trafilatura is
// the primary extractor; go-readability is its fallback and its check (see
// extractor and docs/parse.md for the measured choice).
type articleAdapter struct{ x extractor }

func (articleAdapter) Name() string { return "article" }

func (articleAdapter) Match(rec *record.Record) bool { return isHTML(rec) }

func (a articleAdapter) Parse(rec *record.Record) (*Result, error) {
	body := rec.Body
	if body == nil {
		return nil, errors.New("no text body")
	}
	if !a.x.mt.ok() {
		return nil, errNoMainText
	}
	doc, err := html.Parse(strings.NewReader(*body))
	if err != nil {
		return nil, err
	}
	meta := extractMeta(doc)
	x := a.x
	var big []string
	if len(*body) > maxTrafilaturaBytes {
		// trafilatura's time grows with the square of the text on very
		// large pages (a whole book on one page takes minutes).
		x.readOnly = true
		big = []string{fmt.Sprintf("article: page over %d MiB, extracted with readability only", maxTrafilaturaBytes>>20)}
	}
	// the extractors' content nodes are kept for the structure
	var nodes []*html.Node
	x.mt.Readability = func(doc *html.Node, u *nurl.URL) (*html.Node, error) {
		n, err := a.x.mt.Readability(doc, u)
		if err == nil {
			nodes = append(nodes, n)
		}
		return n, err
	}
	x.mt.Trafilatura = func(doc *html.Node, u *nurl.URL, fallback bool, r *html.Node) (*html.Node, string, string, string, string, time.Time, error) {
		n, title, author, site, desc, date, err := a.x.mt.Trafilatura(doc, u, fallback, r)
		if err == nil {
			nodes = append(nodes, n)
		}
		return n, title, author, site, desc, date, err
	}
	paras, warn, tm := x.mainText(doc, baseURL(rec))
	warn = append(big, warn...)
	fillMeta(&meta, tm)
	if textLen(paras) < minArticle {
		return nil, errNoArticle
	}
	res := metaResult(meta)
	res.Warnings = warn
	for _, p := range paras {
		res.Segments = append(res.Segments, Segment{Text: p})
	}
	res.Markdown, _ = structureMarkdown(nodes, paras, baseURL(rec), 0)
	return res, nil
}

// metaResult turns page metadata into a Result without text.
func metaResult(m pageMeta) *Result {
	return &Result{
		Title:       m.Title,
		Author:      m.Author,
		PublishedAt: m.PublishedAt,
		SiteName:    m.SiteName,
		Lang:        m.Lang,
		Description: m.Description,
	}
}

// extractor combines the two main-text extractors.
type extractor struct {
	mt MainText
	// fallback lets trafilatura compare its result with readability's and
	// DOM Distiller's and take theirs when its own looks wrong.
	fallback bool
	// agree drops trafilatura paragraphs that readability did not find, when
	// the two broadly agree (see agreeFilter).
	agree bool
	// share is the fraction of a paragraph's word 3-grams the check
	// extractor must have for agree to keep it; keep is the fraction of the
	// text that must survive for the filter to apply at all.
	share, keep float64
	// rescue takes readability's text when trafilatura's is empty or a small
	// fraction of it.
	rescue bool
	// readOnly uses readability alone (for comparison).
	readOnly bool
	// The long-tail rules (longtail.go): cards drops paragraphs of sibling
	// <article> cards other than the main one (D); linkDense drops short
	// link-dense paragraphs after the first (B); lead restores a lost lead
	// that is the page's own description (A).
	cards, linkDense, lead bool
	// boiler drops copyright, subscribe, share and follow lines (F).
	boiler bool
	// boxHeads drops box headings ("Most Popular", "Related") left
	// without their items (F).
	boxHeads bool
}

// maxTrafilaturaBytes is the largest body trafilatura is run on.
const maxTrafilaturaBytes = 2 << 20

// minArticle is the least main text, in characters, the article adapter
// accepts. On pages with less (link lists, stubs) the extractors return
// whatever is there, title and navigation included, in one run; the
// visible-text adapter does better on those.
const minArticle = 200

// defaultExtractor is the combination chosen on the extraction benchmark.
var defaultExtractor = extractor{fallback: true, agree: true, share: 0.5, keep: 0.5, rescue: true,
	cards: true, linkDense: true, boiler: true, boxHeads: true}

// fillMeta fills fields the page's own metadata lacks from what trafilatura
// found (it also reads bylines and dates in the page body).
func fillMeta(m *pageMeta, t pageMeta) {
	setOnce(&m.Title, t.Title)
	if plausibleByline(t.Author) {
		setOnce(&m.Author, cleanAuthor(t.Author))
	}
	setOnce(&m.PublishedAt, t.PublishedAt)
	setOnce(&m.SiteName, t.SiteName)
	setOnce(&m.Description, t.Description)
	// t.Lang is not used: trafilatura always sets it from an unchecked
	// guess on the text; Run detects the language itself, with a
	// reliability check, when the page declares none.
}

// bylineNoise marks author strings that ran into a date or a label.
var bylineNoise = regexp.MustCompile(`(?i)\d|\b(published|updated|posted|january|february|march|april|may|june|july|august|september|october|november|december)\b`)

// plausibleByline reports whether an author trafilatura read from the page
// body looks like names only.
func plausibleByline(s string) bool {
	return s != "" && len(s) < 120 && !bylineNoise.MatchString(s)
}

// mainText returns the paragraphs of the page's main text, warnings, and
// the metadata trafilatura found.
func (x extractor) mainText(doc *html.Node, u *nurl.URL) ([]string, []string, pageMeta) {
	paras, warn, tm := x.extract(doc, u)
	if len(paras) == 0 || !(x.cards || x.linkDense || x.lead || x.boiler || x.boxHeads) {
		return paras, warn, tm
	}
	src := newPageSource(doc)
	if x.cards {
		paras = dropCards(paras, src)
	}
	if x.linkDense {
		paras = dropLinkDense(paras, src)
	}
	if x.boiler {
		paras = dropBoilerLines(paras)
	}
	if x.boxHeads {
		paras = dropBoxHeadings(paras, src)
	}
	if x.lead {
		paras = restoreLead(paras, src, pageDescriptions(doc))
	}
	return paras, warn, tm
}

// extract runs the extractors and combines their paragraphs.
func (x extractor) extract(doc *html.Node, u *nurl.URL) ([]string, []string, pageMeta) {
	var warn []string
	var read []string
	rnode, rerr := x.mt.Readability(doc, u)
	if rerr == nil && rnode != nil {
		read = cleanBlocks(textBlocks(rnode, nil, false))
	}
	if x.readOnly {
		return read, nil, pageMeta{}
	}
	var traf []string
	var tm pageMeta
	if content, title, author, site, desc, date, err := x.mt.Trafilatura(doc, u, x.fallback, rnode); err == nil {
		if content != nil {
			traf = cleanBlocks(textBlocks(content, nil, true))
		}
		tm = pageMeta{Title: cleanField(title), Author: cleanField(author), SiteName: cleanField(site),
			Description: cleanField(desc)}
		if !date.IsZero() {
			tm.PublishedAt = record.FormatTime(date)
		}
	}
	switch {
	case len(traf) == 0 && len(read) == 0:
		return nil, nil, tm
	case len(traf) == 0:
		return read, append(warn, "article: trafilatura found nothing, used readability"), tm
	}
	if x.rescue && len(read) > 0 && textLen(traf)*4 < textLen(read) {
		return read, append(warn, "article: trafilatura text much shorter than readability's, used readability"), tm
	}
	if x.agree && len(read) > 0 {
		traf = agreeFilter(traf, read, x.share, x.keep)
	}
	return traf, warn, tm
}

// cleanBlocks normalises each block and drops empty ones.
func cleanBlocks(blocks []string) []string {
	out := blocks[:0]
	for _, b := range blocks {
		if b = Normalize(b); b != "" {
			out = append(out, b)
		}
	}
	return out
}

func textLen(paras []string) int {
	n := 0
	for _, p := range paras {
		n += utf8.RuneCountInString(p)
	}
	return n
}

// words splits lower-cased text into its runs of letters, digits and
// underscores (the \w+ words of the benchmark's scorer).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_'
	})
}

// agreeFilter keeps the paragraphs of primary that the check extractor also
// found (a share of their word 3-grams appear in it; a paragraph of one or
// two words must appear in it in a row). When less than keep of
// the text would survive, the extractors disagree on what the page is and
// primary is kept whole.
func agreeFilter(primary, check []string, share, keep float64) []string {
	grams := map[string]bool{}
	var all strings.Builder // every check paragraph's words, " a b c "
	all.WriteByte(' ')
	for _, p := range check {
		w := words(p)
		for i := 0; i+3 <= len(w); i++ {
			grams[strings.Join(w[i:i+3], " ")] = true
		}
		for _, x := range w {
			all.WriteString(x)
			all.WriteByte(' ')
		}
		all.WriteString("| ")
	}
	checkWords := all.String()
	var kept []string
	for _, p := range primary {
		w := words(p)
		if len(w) < 3 {
			// A short paragraph (a label, a line of verse) is kept when
			// its words occur in a row anywhere in the check text: the
			// check extractor may have joined it to its neighbours.
			if len(w) == 0 || strings.Contains(checkWords, " "+strings.Join(w, " ")+" ") || cjkAgrees(w, checkWords, share) {
				kept = append(kept, p)
			}
			continue
		}
		hit := 0
		for i := 0; i+3 <= len(w); i++ {
			if grams[strings.Join(w[i:i+3], " ")] {
				hit++
			}
		}
		if float64(hit) >= share*float64(len(w)-2) || cjkAgrees(w, checkWords, share) {
			kept = append(kept, p)
		}
	}
	if float64(textLen(kept)) < keep*float64(textLen(primary)) {
		return primary
	}
	return kept
}

// cjkAgrees reports whether a paragraph written mostly in Chinese or
// Japanese (at least half of its letters in words holding Han or kana)
// agrees with the check text word by word: such a "word" is a whole
// clause, so its 3-grams join clauses that the check extractor may have
// set apart (a poem's lines each followed by its romanisation, ruby
// annotations); the paragraph is kept when share of its CJK characters
// are in words the check text holds whole.
func cjkAgrees(w []string, checkWords string, share float64) bool {
	total, cjk, found := 0, 0, 0
	for _, x := range w {
		n := utf8.RuneCountInString(x)
		total += n
		if !hasCJK(x) {
			continue
		}
		cjk += n
		if strings.Contains(checkWords, " "+x+" ") {
			found += n
		}
	}
	return cjk > 0 && 2*cjk >= total && float64(found) >= share*float64(cjk)
}

// hasCJK reports whether s holds a Han, Hiragana or Katakana letter.
func hasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// mediaType is the record's content type without parameters, lower case:
// fetch.sniffed_type when ll-fetch found the body was not what the server
// declared, else fetch.content_type.
func mediaType(rec *record.Record) string {
	if rec.Fetch == nil {
		return ""
	}
	ct := rec.Fetch.ContentType
	if rec.Fetch.SniffedType != "" {
		ct = rec.Fetch.SniffedType
	}
	mt, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// isHTML reports whether the record's body is HTML: by content type, or by
// sniffing the body when no content type is known.
func isHTML(rec *record.Record) bool {
	if rec.Body == nil {
		return false
	}
	switch mt := mediaType(rec); mt {
	case "text/html", "application/xhtml+xml":
		return true
	case "":
		return sniff(*rec.Body) == "text/html"
	}
	return false
}

// sniff guesses the media type of a body with no content type.
func sniff(body string) string {
	head := body
	if len(head) > 512 {
		head = head[:512]
	}
	mt, _, _ := strings.Cut(http.DetectContentType([]byte(head)), ";")
	return mt
}

// baseURL is the URL links in the body resolve against: the final URL after
// redirects, else the record's URL.
func baseURL(rec *record.Record) *nurl.URL {
	s := rec.URL
	if rec.Fetch != nil && rec.Fetch.FinalURL != "" {
		s = rec.Fetch.FinalURL
	}
	u, err := nurl.Parse(s)
	if err != nil || u.Scheme == "" {
		return nil
	}
	return u
}
