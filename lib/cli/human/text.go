package human

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// DefaultWidth is the line width of the text view when the terminal's is
// unknown; wider terminals still get at most MaxWidth columns of text, a
// comfortable line to read.
const (
	DefaultWidth = 80
	MaxWidth     = 100
)

// JoinChunks rebuilds an item's text from its chunks in order, once: a
// chunk starts with the last sentences of the one before it (the overlap,
// see lib/chunk), so each chunk adds only what follows the longest prefix
// of it that ends the text so far at a sentence boundary. Chunks that do
// not overlap (another page, a cue, an overlap dropped for size) start a
// new paragraph.
func JoinChunks(chunks []record.Chunk) string {
	cs := append([]record.Chunk(nil), chunks...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Index < cs[j].Index })
	var b strings.Builder
	prev := ""
	for i, c := range cs {
		t := c.Text
		if i == 0 {
			b.WriteString(t)
			prev = t
			continue
		}
		if k := overlapLen(prev, t); k > 0 {
			b.WriteString(t[k:])
		} else {
			b.WriteString("\n\n")
			b.WriteString(t)
		}
		prev = t
	}
	return b.String()
}

// overlapLen is the length of the longest prefix of next that is a suffix
// of prev and ends where next has white space (or ends), 0 for none. The
// repeated sentences of chunk overlap are whole sentences, so a match that
// ends inside a word is not one.
func overlapLen(prev, next string) int {
	for k := min(len(prev), len(next)); k > 0; k-- {
		if k < len(next) {
			r, _ := utf8.DecodeRuneInString(next[k:])
			if !unicode.IsSpace(r) {
				continue
			}
		}
		if strings.HasSuffix(prev, next[:k]) {
			return k
		}
	}
	return 0
}

// text writes the item's text (show --text) as paragraphs wrapped to the
// renderer's width, with the item's highlights marked: in colour when the
// renderer has it, else between « and ».
func (r *Renderer) text(b *strings.Builder, rec *record.Record) {
	if len(rec.Chunks) == 0 {
		return
	}
	width := r.textWidth() // indented like the rest of the block
	var quotes []string
	for _, a := range rec.Annotations {
		if a.Type == record.AnnHighlight && a.OrphanedAt == "" {
			if q := strings.Join(strings.Fields(cleanText(a.Text)), " "); q != "" {
				quotes = append(quotes, q)
			}
		}
	}
	b.WriteString("\n")
	for _, para := range paragraphs(cleanText(JoinChunks(rec.Chunks))) {
		r.paragraph(b, para, quotes, width)
		b.WriteString("\n")
	}
}

// cleanText turns control characters other than newline into spaces, so
// stored text cannot move the cursor or change colours.
func cleanText(s string) string {
	return strings.Map(func(c rune) rune {
		if c != '\n' && unicode.IsControl(c) {
			return ' '
		}
		return c
	}, s)
}

// paragraphs splits text at blank lines, each paragraph's white space
// folded to single spaces.
func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(s, "\r", ""), "\n\n") {
		if p = strings.Join(strings.Fields(p), " "); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// paragraph writes one paragraph wrapped at width, indented four spaces,
// with the byte ranges of quotes marked.
func (r *Renderer) paragraph(b *strings.Builder, p string, quotes []string, width int) {
	in := make([]bool, len(p))
	for _, q := range quotes {
		for from := 0; from < len(p); {
			i := strings.Index(p[from:], q)
			if i < 0 {
				break
			}
			for k := from + i; k < from+i+len(q); k++ {
				in[k] = true
			}
			from += i + len(q)
		}
	}
	open, shut, markW := "«", "»", 1
	if r.color {
		open, shut, markW = marked, reset, 0
	}
	col := 0
	inside := false
	for _, w := range wordSpans(p) {
		n := utf8.RuneCountInString(p[w[0]:w[1]])
		if col > 0 && col+1+n > width {
			// a colour across the line break is closed and opened again (a
			// pager keeps no style from one line to the next)
			if inside && r.color {
				b.WriteString(shut)
			}
			b.WriteString("\n")
			col = 0
		}
		if col == 0 {
			b.WriteString("    ")
			if inside && r.color {
				b.WriteString(open)
			}
		} else {
			if inside && !in[w[0]-1] {
				b.WriteString(shut)
				inside = false
				col += markW
			}
			b.WriteString(" ")
			col++
		}
		for k := w[0]; k < w[1]; {
			_, size := utf8.DecodeRuneInString(p[k:])
			if in[k] != inside {
				if in[k] {
					b.WriteString(open)
				} else {
					b.WriteString(shut)
				}
				inside = in[k]
				col += markW
			}
			b.WriteString(p[k : k+size])
			k += size
		}
		col += n
	}
	if inside {
		b.WriteString(shut)
	}
	b.WriteString("\n")
}

// wordSpans are the byte ranges of the space-separated words of p (p has
// single spaces only).
func wordSpans(p string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == ' ' {
			if i > start {
				out = append(out, [2]int{start, i})
			}
			start = i + 1
		}
	}
	return out
}
