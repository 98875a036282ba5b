package store

// Quote anchors: finding a highlight's or lowlight's quote in an item's
// chunks, so that it can follow its text when ll-index replaces the
// chunks (reanchor.go). Everything here is pure: strings in, positions
// out, deterministic (no maps iterated, ties broken by position).

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/query"
)

// anchorContextRunes is how much text each side of a quote an anchor
// keeps (quote_prefix, quote_suffix). Migration 0011 uses the same number.
const anchorContextRunes = 48

// Ways a quote was found, weakest last (the method of an anchorMatch).
const (
	anchorExact      = "exact"      // the quote as written
	anchorNormalized = "normalized" // after folding case, white space and typographic marks
	anchorFuzzy      = "fuzzy"      // a slightly edited quote, within fuzzyMaxEdits
)

// Bounds of the fuzzy matcher: quotes shorter than fuzzyMinRunes are
// never matched fuzzily (a few letters match too much), longer than
// fuzzyMaxRunes neither, and a search that would fill more than
// fuzzyMaxCells cells of the edit-distance table is not tried: the
// annotation is orphaned instead of the re-index taking long.
const (
	fuzzyMinRunes = 16
	fuzzyMaxRunes = 1000
	fuzzyMaxCells = 16 << 20
	// fuzzyMaxTextCells bounds all the fuzzy searches in one text (one
	// item's re-anchoring): 16 searches at their own bound
	fuzzyMaxTextCells = 256 << 20
)

// fuzzyMaxEdits is the most edits (inserted, deleted or changed
// characters) a fuzzy match may have for a quote of n runes: one in eight.
func fuzzyMaxEdits(n int) int { return n / 8 }

// quoteAnchor is what is known of an annotation's place: its quote, the
// context seen around it the last time it was found (HasContext false
// when never), and the index of the chunk it was in (Hint, -1 if none).
type quoteAnchor struct {
	Quote          string
	Prefix, Suffix string
	HasContext     bool
	Hint           int
}

// anchorMatch is where a quote was found: the chunk (an index into the
// chunks searched), the byte range of the matched text in that chunk's
// text, how it was found, and for a fuzzy match its edit count.
type anchorMatch struct {
	Chunk      int
	Start, End int
	Method     string
	Edits      int
}

// normText is a text folded for matching: white-space runs as one space,
// lower case, typographic quotes and dashes as ASCII, zero-width
// characters dropped. off maps each byte of s back to the byte of the
// original it came from; off[len(s)] is the original's length.
type normText struct {
	s   string
	off []int
}

// foldRune is r as the matcher compares it; -1 drops it, ' ' stands for
// any white space.
func foldRune(r rune) rune {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return -1
	case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
		return '\''
	case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	}
	if unicode.IsSpace(r) {
		return ' '
	}
	return unicode.ToLower(r)
}

// normalize folds t (see normText).
func normalize(t string) normText {
	var b strings.Builder
	b.Grow(len(t))
	off := make([]int, 0, len(t)+1)
	space := false
	for i, r := range t {
		f := foldRune(r)
		if f < 0 {
			continue
		}
		if f == ' ' {
			if space {
				continue
			}
			space = true
		} else {
			space = false
		}
		n := b.Len()
		b.WriteRune(f)
		for range b.Len() - n {
			off = append(off, i)
		}
	}
	off = append(off, len(t))
	return normText{s: b.String(), off: off}
}

// normQuote is a quote folded and trimmed of white space at its ends.
func normQuote(q string) string { return strings.TrimSpace(normalize(q).s) }

// anchorText is an item's chunks prepared for matching: folded once, when
// a quote first needs it (most are found as written), for all the quotes
// looked for in them.
type anchorText struct {
	raw   []string
	norms []normText
	// fuzzyCells is what the fuzzy searches in this text have filled so
	// far: past fuzzyMaxTextCells no more are tried (an item with very
	// many changed quotes orphans the rest rather than take minutes)
	fuzzyCells int
}

func newAnchorText(chunks []string) *anchorText { return &anchorText{raw: chunks} }

// norm returns the folded chunks.
func (t *anchorText) norm() []normText {
	if t.norms == nil {
		t.norms = make([]normText, len(t.raw))
		for i, c := range t.raw {
			t.norms[i] = normalize(c)
		}
	}
	return t.norms
}

// maxOccurrences bounds how many places of one quote are weighed by their
// context (a quote of one common word can occur thousands of times).
const maxOccurrences = 1000

// find looks for q in the chunks: exactly first, then normalised, then
// fuzzily (bounded). Where a quote occurs several times, the occurrence
// whose surroundings best match the stored context wins, then the one in
// the chunk of q.Hint, then the first. ok is false when it is not found.
func (t *anchorText) find(q quoteAnchor) (anchorMatch, bool) {
	quote := strings.TrimSpace(q.Quote)
	if quote == "" {
		return anchorMatch{}, false
	}
	var cands []anchorMatch
	for ci, c := range t.raw {
		for from := 0; len(cands) < maxOccurrences; {
			i := strings.Index(c[from:], quote)
			if i < 0 {
				break
			}
			s := from + i
			cands = append(cands, anchorMatch{Chunk: ci, Start: s, End: s + len(quote), Method: anchorExact})
			_, w := utf8.DecodeRuneInString(c[s:])
			from = s + w
		}
	}
	if len(cands) == 0 {
		nq := normQuote(quote)
		if nq == "" {
			return anchorMatch{}, false
		}
		for ci, n := range t.norm() {
			for from := 0; len(cands) < maxOccurrences; {
				i := strings.Index(n.s[from:], nq)
				if i < 0 {
					break
				}
				s := from + i
				cands = append(cands, anchorMatch{Chunk: ci, Start: n.off[s], End: n.off[s+len(nq)], Method: anchorNormalized})
				_, w := utf8.DecodeRuneInString(n.s[s:])
				from = s + w
			}
		}
		if len(cands) == 0 {
			cands = t.fuzzy(nq)
		}
	}
	if len(cands) == 0 {
		return anchorMatch{}, false
	}
	return t.best(cands, q), true
}

// best picks among the candidates: fewest edits, then the best context
// score, then the hinted chunk, then the first.
func (t *anchorText) best(cands []anchorMatch, q quoteAnchor) anchorMatch {
	var pre, suf string
	if q.HasContext {
		pre, suf = normalize(q.Prefix).s, normalize(q.Suffix).s
	}
	bi, bscore := 0, -1
	for i, m := range cands {
		score := 0
		if q.HasContext && len(cands) > 1 {
			before, after := surroundings(t.raw[m.Chunk], m.Start, m.End, 2*anchorContextRunes)
			score = commonSuffix(pre, normalize(before).s) + commonPrefix(suf, normalize(after).s)
		}
		b := cands[bi]
		better := bscore < 0 ||
			m.Edits < b.Edits ||
			m.Edits == b.Edits && (score > bscore ||
				score == bscore && m.Chunk == q.Hint && b.Chunk != q.Hint)
		if better {
			bi, bscore = i, score
		}
	}
	return cands[bi]
}

// surroundings returns up to n runes of text before start and after end.
func surroundings(text string, start, end, n int) (before, after string) {
	b := start
	for k := 0; k < n && b > 0; k++ {
		_, w := utf8.DecodeLastRuneInString(text[:b])
		b -= w
	}
	e := end
	for k := 0; k < n && e < len(text); k++ {
		_, w := utf8.DecodeRuneInString(text[e:])
		e += w
	}
	return text[b:start], text[end:e]
}

// context is the quote_prefix and quote_suffix of m: anchorContextRunes
// runes of its chunk's text each side.
func (t *anchorText) context(m anchorMatch) (prefix, suffix string) {
	return surroundings(t.raw[m.Chunk], m.Start, m.End, anchorContextRunes)
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// fuzzy finds the places where the folded quote nq occurs with the fewest
// edits, at most fuzzyMaxEdits, in the folded chunks (approximate
// substring matching: an edit-distance table whose first row is free, so
// a match may start anywhere). Only the windows of text that can hold
// such a match are searched: cut into k+1 pieces, a quote with at most k
// edits keeps one piece intact, so each match lies around an exact
// occurrence of a piece (and a quote none of whose pieces occurs costs one
// scan per piece). It returns nothing when the quote is out of the fuzzy
// bounds or the windows would fill more than fuzzyMaxCells cells.
func (t *anchorText) fuzzy(nq string) []anchorMatch {
	p := []rune(nq)
	m := len(p)
	if m < fuzzyMinRunes || m > fuzzyMaxRunes {
		return nil
	}
	k := fuzzyMaxEdits(m)
	type piece struct {
		s   string
		off int // rune offset in the quote
	}
	size := m / (k + 1)
	pieces := make([]piece, 0, k+1)
	for i := 0; i <= k; i++ {
		lo, hi := i*size, (i+1)*size
		if i == k {
			hi = m
		}
		pieces = append(pieces, piece{string(p[lo:hi]), lo})
	}
	var out []anchorMatch
	bestEdits, cells := k+1, 0
	for ci, n := range t.norm() {
		// byteAt[j] is the byte offset in n.s of rune j; one past the end too
		byteAt := make([]int, 0, len(n.s)+1)
		for i := range n.s {
			byteAt = append(byteAt, i)
		}
		byteAt = append(byteAt, len(n.s))
		runes := len(byteAt) - 1
		var wins [][2]int
		for _, pc := range pieces {
			for from := 0; ; {
				i := strings.Index(n.s[from:], pc.s)
				if i < 0 {
					break
				}
				b := from + i
				r := sort.SearchInts(byteAt, b)
				wins = append(wins, [2]int{max(0, r-pc.off-k), min(runes, r-pc.off+m+k)})
				_, w := utf8.DecodeRuneInString(n.s[b:])
				from = b + w
			}
		}
		if len(wins) == 0 {
			continue
		}
		sort.Slice(wins, func(i, j int) bool { return wins[i][0] < wins[j][0] })
		merged := wins[:1]
		for _, w := range wins[1:] {
			if last := &merged[len(merged)-1]; w[0] <= last[1] {
				last[1] = max(last[1], w[1])
			} else {
				merged = append(merged, w)
			}
		}
		text := []rune(n.s)
		for _, w := range merged {
			cost := (w[1] - w[0]) * m
			if cells += cost; cells > fuzzyMaxCells || t.fuzzyCells+cost > fuzzyMaxTextCells {
				return nil
			}
			t.fuzzyCells += cost
			approxMatches(p, text, w[0], w[1], k, func(start, end, d int) {
				if d > bestEdits {
					return
				}
				if d < bestEdits {
					bestEdits, out = d, out[:0]
				}
				s, e := n.off[byteAt[start]], n.off[byteAt[end]]
				// a match one rune longer or shorter at the same start is
				// the same place: keep the first end found
				if l := len(out); l > 0 && out[l-1].Chunk == ci && out[l-1].Start == s {
					return
				}
				if len(out) < maxOccurrences {
					out = append(out, anchorMatch{Chunk: ci, Start: s, End: e, Method: anchorFuzzy, Edits: d})
				}
			})
		}
	}
	return out
}

// approxMatches runs the edit-distance table of quote p over text[lo:hi]
// and calls found(start, end, edits) for every end where p matches
// text[start:end] with at most k edits (rune indexes into text), in order.
func approxMatches(p, text []rune, lo, hi, k int, found func(start, end, edits int)) {
	m := len(p)
	cost := make([]int, m+1)
	start := make([]int, m+1)
	for i := range cost {
		cost[i], start[i] = i, lo
	}
	for j := lo + 1; j <= hi; j++ {
		// column j from column j-1, in place: diag holds (i-1, j-1)
		diag, diagStart := cost[0], start[0]
		cost[0], start[0] = 0, j
		for i := 1; i <= m; i++ {
			c, s := diag, diagStart // match or change
			if p[i-1] != text[j-1] {
				c++
			}
			if v := cost[i] + 1; v < c { // text rune j-1 left out of the match
				c, s = v, start[i]
			}
			if v := cost[i-1] + 1; v < c { // quote rune i-1 missing from the text
				c, s = v, start[i-1]
			}
			diag, diagStart = cost[i], start[i]
			cost[i], start[i] = c, s
		}
		if cost[m] <= k {
			found(start[m], j, cost[m])
		}
	}
}

// closestMaxRunes bounds the passage closestPassage returns.
const closestMaxRunes = 300

// closest returns the sentence of the chunks that shares the most of the
// quote's words (ties: the first), cut to closestMaxRunes, or "" when none
// shares a word. It is the hint of a quote that is not in the text: the
// passage the writer most likely meant, to quote exactly. Its cost is one
// pass over the text.
func (t *anchorText) closest(quote string) string {
	want := map[string]bool{}
	for _, w := range query.Words(quote) {
		want[w] = true
	}
	if len(want) == 0 {
		return ""
	}
	best, bestN := "", 0
	for _, c := range t.raw {
		for _, s := range sentences(c) {
			seen := map[string]bool{}
			for _, w := range query.Words(s) {
				if want[w] {
					seen[w] = true
				}
			}
			if len(seen) > bestN {
				best, bestN = s, len(seen)
			}
		}
	}
	best = tidySentence(strings.Join(strings.Fields(best), " "))
	if n := 0; utf8.RuneCountInString(best) > closestMaxRunes {
		for i := range best {
			if n == closestMaxRunes {
				return best[:i] + "…"
			}
			n++
		}
	}
	return best
}

// tidySentence trims what a rough sentence split leaves at its edges: a
// leading comma, semicolon, closing bracket or quote mark (the rest of
// `"Stop." he said` or `e.g., this`), and a quote mark left without its
// pair, so a hint reads as a passage to quote, not a fragment.
func tidySentence(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:)]}\"'”’»", r)
	})
	if strings.Count(s, `"`)%2 == 1 {
		if i := strings.LastIndex(s, `"`); i == len(s)-1 {
			s = s[:i]
		} else if j := strings.Index(s, `"`); j == 0 {
			s = s[1:]
		} else {
			s = s[:i] + s[i+1:]
		}
	}
	open, shut := strings.Count(s, "“"), strings.Count(s, "”")
	if open > shut && strings.HasSuffix(s, "“") {
		s = strings.TrimSuffix(s, "“")
	} else if open > shut {
		if i := strings.LastIndex(s, "“"); i >= 0 {
			s = s[:i] + s[i+len("“"):]
		}
	}
	return strings.TrimSpace(s)
}

// sentences splits text after '.', '!', '?' and line breaks (roughly: a
// hint needs no more).
func sentences(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if r == '.' || r == '!' || r == '?' || r == '\n' {
			if s := strings.TrimSpace(text[start : i+utf8.RuneLen(r)]); s != "" {
				out = append(out, s)
			}
			start = i + utf8.RuneLen(r)
		}
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
