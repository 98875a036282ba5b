package store

// Near-duplicate quotes: the pure part of merging highlights (and
// lowlights) that say the same thing (reanchor.go mergeNearDuplicates).

import "strings"

// quoteOverlapShare is how much of the shorter quote two partly
// overlapping quotes must share to be near-duplicates: three quarters.
const (
	quoteOverlapNum, quoteOverlapDen = 3, 4
	// quoteOverlapMaxBytes bounds the partial-overlap test (quadratic in
	// the quote length); longer quotes merge only by containment.
	quoteOverlapMaxBytes = 4096
)

// quoteOverlap reports whether quotes a and b are near-duplicates after
// folding case, white space and typographic marks (normalize): the same,
// one containing the other, or the end of one being the start of the
// other over at least three quarters of the shorter. union is the quote
// the merged annotation keeps: the longer one when one holds the other
// (a when they are the same), or the two joined over their overlap (in
// a's and b's own spelling) when they overlap.
func quoteOverlap(a, b string) (union string, ok bool) {
	return overlapOf(newQuoteNorm(a), newQuoteNorm(b))
}

// quoteNorm is a quote (trimmed) with its folded form, computed once per
// quote when many pairs are compared.
type quoteNorm struct {
	text string
	norm normText
}

func newQuoteNorm(q string) quoteNorm {
	q = strings.TrimSpace(q)
	return quoteNorm{q, normalize(q)}
}

// overlapOf is quoteOverlap of two quotes already folded.
func overlapOf(a, b quoteNorm) (union string, ok bool) {
	if a.norm.s == "" || b.norm.s == "" {
		return "", false
	}
	switch {
	case strings.Contains(a.norm.s, b.norm.s):
		return a.text, true
	case strings.Contains(b.norm.s, a.norm.s):
		return b.text, true
	}
	if u, ok := joinOverlap(a.text, a.norm, b.text, b.norm); ok {
		return u, true
	}
	return joinOverlap(b.text, b.norm, a.text, a.norm)
}

// joinOverlap is a followed by b when the end of a is the start of b
// over enough of the shorter (see quoteOverlap).
func joinOverlap(a string, na normText, b string, nb normText) (string, bool) {
	short := min(len(na.s), len(nb.s))
	if short > quoteOverlapMaxBytes {
		return "", false
	}
	need := (short*quoteOverlapNum + quoteOverlapDen - 1) / quoteOverlapDen
	for l := short; l >= need && l > 0; l-- {
		if na.s[len(na.s)-l:] == nb.s[:l] {
			return a + b[nb.off[l]:], true
		}
	}
	return "", false
}

// heldBy reports whether one of texts is q, or, when folded is true,
// holds q once both are folded (a quote merged into a longer one).
func heldBy(texts []string, q string, folded bool) bool {
	nq := normQuote(q)
	for _, t := range texts {
		if t == q || folded && nq != "" && strings.Contains(normalize(t).s, nq) {
			return true
		}
	}
	return false
}
