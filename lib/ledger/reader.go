package ledger

import (
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// Paragraph is one paragraph of an item's clean text, for reading: the
// page it is on (PDF, 0 for none) and the media time its chunk starts at
// (YouTube).
type Paragraph struct {
	Text   string
	Page   int
	StartS *float64
	// Chunk is the index of the chunk the paragraph starts in.
	Chunk int
}

// maxOverlap bounds the overlap searched between two chunks (bytes); the
// chunker repeats at most a few sentences.
const maxOverlap = 8 << 10

// Paragraphs turns an item's chunks (in index order) back into its text
// as paragraphs: the sentences each chunk repeats from the one before are
// dropped, and the text is split at the blank lines the chunker keeps
// between pieces. A chunk on another page starts a new paragraph.
func Paragraphs(chunks []record.Chunk) []Paragraph {
	var out []Paragraph
	prev := ""
	prevPage := -1
	for _, c := range chunks {
		rest := c.Text
		joined := false
		if c.Page == prevPage && prev != "" {
			if k := overlap(prev, rest); k > 0 {
				rest = rest[k:]
				joined = true
			}
		}
		prev, prevPage = c.Text, c.Page
		parts := strings.Split(rest, "\n\n")
		for i, p := range parts {
			if i == 0 && joined && len(out) > 0 {
				out[len(out)-1].Text += p
				continue
			}
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			out = append(out, Paragraph{Text: p, Page: c.Page, StartS: c.StartS, Chunk: c.Index})
		}
	}
	for i := range out {
		out[i].Text = strings.TrimSpace(out[i].Text)
	}
	return out
}

// overlap is the length of the longest suffix of a that is a prefix of b
// (at most maxOverlap bytes), ending on a word: 0 when there is none.
func overlap(a, b string) int {
	n := min(len(a), len(b), maxOverlap)
	for k := n; k > 0; k-- {
		if b[k-1] != a[len(a)-1] {
			continue
		}
		if k < len(b) && b[k] != ' ' && b[k] != '\n' {
			continue // not a whole sentence: the next chunk goes on inside a word
		}
		if a[len(a)-k:] == b[:k] {
			return k
		}
	}
	return 0
}
