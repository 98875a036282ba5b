package web

import (
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pages are the parsed templates: each page is the layout plus its own
// file, which defines "content".
type pages struct {
	byName map[string]*template.Template
}

var funcs = template.FuncMap{
	"when":    when,
	"conf":    conf,
	"isAgent": isAgent,
	"short":   short,
	"mark":    mark,
	"ingest":  ledger.Ingest,
	"add":     func(a, b int) int { return a + b },
	"pct":     func(f float64) string { return strconv.FormatFloat(f*100, 'f', 0, 64) + "%" },
	"ts":      timestamp,
	"cue":     cueURL,
	"deref":   func(b *bool) bool { return b != nil && *b },
	"count":   count,
}

// count is "1 attempt", "2 attempts": n and the word, plural unless n is 1.
func count(n int, word string) string {
	if n != 1 {
		word += "s"
	}
	return strconv.Itoa(n) + " " + word
}

// cueURL links a media item at a time: YouTube's t parameter in seconds.
func cueURL(item string, at *float64) string {
	u, err := url.Parse(item)
	if err != nil || at == nil {
		return item
	}
	q := u.Query()
	q.Set("t", strconv.Itoa(int(*at))+"s")
	u.RawQuery = q.Encode()
	return u.String()
}

func loadPages() (*pages, error) {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	p := &pages{byName: map[string]*template.Template{}}
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if base == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		p.byName[base] = t
	}
	return p, nil
}

// when shows an RFC 3339 time as date and minute, UTC.
func when(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// timestamp shows seconds of media time as h:mm:ss or m:ss.
func timestamp(p *float64) string {
	if p == nil {
		return ""
	}
	s := int(*p)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func conf(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', 2, 64)
}

func isAgent(actor string) bool { return strings.HasPrefix(actor, "agent:") }

// short cuts s to at most n runes, with an ellipsis.
func short(n int, s string) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// seg is a run of text, marked or not; templates escape Text as any text.
type seg struct {
	Text string
	Mark bool
}

// mark splits text into runs, marking the whole words that are one of
// terms (case-insensitive).
func mark(text string, terms []string) []seg {
	if len(terms) == 0 {
		return []seg{{Text: text}}
	}
	want := map[string]bool{}
	for _, t := range terms {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			want[t] = true
		}
	}
	var out []seg
	push := func(s string, m bool) {
		if s == "" {
			return
		}
		if n := len(out); n > 0 && out[n-1].Mark == m {
			out[n-1].Text += s
			return
		}
		out = append(out, seg{s, m})
	}
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	start := -1
	for i, r := range text {
		if word(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			w := text[start:i]
			push(w, want[strings.ToLower(w)])
			start = -1
		}
		push(string(r), false)
	}
	if start >= 0 {
		w := text[start:]
		push(w, want[strings.ToLower(w)])
	}
	return out
}

// queryTerms are the words of a search query, for marking.
func queryTerms(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// annSeg is a run of an item's paragraph: plain, or a highlight or
// lowlight (Ann set).
type annSeg struct {
	Text string
	Ann  *record.Annotation
	// Inner is a second annotation over the same run (the structured
	// reader marks overlapping quotes inside one another).
	Inner *record.Annotation
	// Anchor and InnerAnchor are set on the first run of an annotation
	// in the page: its mark carries the id a-ID that a post's redirect
	// returns to (inplace.go).
	Anchor, InnerAnchor bool
}

// para is a paragraph of the reader with its marked runs.
type para struct {
	ledger.Paragraph
	Segs []annSeg
}

// markParagraphs marks each highlight and lowlight in place: the first
// paragraph whose text holds the quote exactly. Quotes that overlap one
// already marked, or span paragraphs, are listed beside the text only.
func markParagraphs(ps []ledger.Paragraph, anns []record.Annotation) (out []para, placed map[int64]bool) {
	placed = map[int64]bool{}
	type span struct {
		start, end int
		ann        *record.Annotation
	}
	spans := make([][]span, len(ps))
	for k := range anns {
		a := &anns[k]
		if a.Type == record.AnnNote || a.Text == "" || a.Review == "rejected" {
			continue
		}
		for i, p := range ps {
			at := strings.Index(p.Text, a.Text)
			if at < 0 {
				continue
			}
			s := span{at, at + len(a.Text), a}
			clash := false
			for _, o := range spans[i] {
				if s.start < o.end && o.start < s.end {
					clash = true
					break
				}
			}
			if !clash {
				spans[i] = append(spans[i], s)
				placed[a.ID] = true
			}
			break
		}
	}
	out = make([]para, len(ps))
	for i, p := range ps {
		out[i].Paragraph = p
		ss := spans[i]
		sort.Slice(ss, func(a, b int) bool { return ss[a].start < ss[b].start })
		pos := 0
		for _, s := range ss {
			if s.start > pos {
				out[i].Segs = append(out[i].Segs, annSeg{Text: p.Text[pos:s.start]})
			}
			out[i].Segs = append(out[i].Segs, annSeg{Text: p.Text[s.start:s.end], Ann: s.ann})
			pos = s.end
		}
		if pos < len(p.Text) {
			out[i].Segs = append(out[i].Segs, annSeg{Text: p.Text[pos:]})
		}
	}
	return out, placed
}

// pager is the paging of a list: the current page (1-based) and the links
// to the pages before and after, which keep the other query parameters.
type pager struct {
	Page       int
	Prev, Next string
}

func newPager(q url.Values, page int, more bool) pager {
	p := pager{Page: page}
	link := func(n int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(n))
		return "?" + v.Encode()
	}
	if page > 1 {
		p.Prev = link(page - 1)
	}
	if more {
		p.Next = link(page + 1)
	}
	return p
}

func pageNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 1
	}
	return min(n, 10000)
}
