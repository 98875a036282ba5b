// Package chunk splits normalised text into overlapping pieces of a bounded
// number of tokens for indexing and retrieval. Chunks follow paragraph
// boundaries first, then sentence boundaries, and split a sentence at word
// boundaries only when it alone is over the limit. Token counts are real
// cl100k_base counts (see CountTokens).
package chunk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// Defaults, in tokens.
const (
	DefaultTarget  = 300
	DefaultMax     = 450
	DefaultOverlap = 40
)

// Options bounds chunk sizes in tokens. Zero fields take the defaults; a
// negative OverlapTokens means no overlap.
type Options struct {
	TargetTokens  int // size a chunk is filled to
	MaxTokens     int // hard limit; a paragraph may run past the target up to it to end on its boundary (default: 1.5 × target)
	OverlapTokens int // budget for the trailing sentences repeated at the start of the next chunk
}

// sizes is Options resolved to numbers.
type sizes struct{ Target, Max, Overlap int }

// withDefaults resolves zero fields to the defaults.
func (o Options) withDefaults() sizes {
	s := sizes{Target: o.TargetTokens, Max: o.MaxTokens, Overlap: o.OverlapTokens}
	if s.Target <= 0 {
		s.Target = DefaultTarget
	}
	if s.Max <= 0 {
		s.Max = DefaultMax
		if s.Target != DefaultTarget {
			s.Max = s.Target * 3 / 2
		}
	}
	switch {
	case s.Overlap == 0:
		s.Overlap = DefaultOverlap
		if s.Overlap >= s.Target {
			s.Overlap = s.Target / 4
		}
	case s.Overlap < 0:
		s.Overlap = 0
	}
	return s
}

// Validate reports options that cannot work together.
func (o Options) Validate() error {
	d := o.withDefaults()
	if d.Max < d.Target {
		return fmt.Errorf("max chunk size %d is below the target %d", d.Max, d.Target)
	}
	if d.Overlap >= d.Target {
		return fmt.Errorf("overlap %d must be below the chunk size %d", d.Overlap, d.Target)
	}
	return nil
}

// Piece is a run of text chunking keeps together where it can (a paragraph,
// a transcript cue, a page), with the media offset and page its chunks carry.
type Piece struct {
	Text   string
	StartS *float64
	Page   int
	// Heading starts a section: no chunk holds text from before it and
	// after it (the chunk before ends there, without overlap into it).
	Heading bool
	// Code is a code block: kept whole in one chunk when it fits in the
	// hard limit (Options.Max), else split like any paragraph.
	Code bool
	// Kind is the chunk kind of the section the piece is in (empty: the
	// body; record.ChunkReferences: a reference list). A chunk holds
	// pieces of one kind: a change of kind is a boundary like a heading.
	Kind string
}

// unit is a sentence (or part of an over-long sentence) with its token count
// and the piece it came from.
type unit struct {
	text   string
	tokens int
	piece  int    // index of the piece
	sep    string // separator to put before this unit when it follows another of the same piece
}

// Split cuts pieces into chunks. Empty input gives no chunks. A chunk never
// spans two pages: pieces are chunked page by page (consecutive pieces with
// the same Page), so a chunk's page is exact for citations.
func Split(pieces []Piece, opts Options) []record.Chunk {
	var chunks []record.Chunk
	for start := 0; start < len(pieces); {
		end := start + 1
		for end < len(pieces) && pieces[end].Page == pieces[start].Page {
			end++
		}
		for _, c := range splitRun(pieces[start:end], opts) {
			c.Index = len(chunks)
			chunks = append(chunks, c)
		}
		start = end
	}
	return chunks
}

// splitRun chunks pieces that share one page (or have none).
func splitRun(pieces []Piece, opts Options) []record.Chunk {
	o := opts.withDefaults()
	if o.Max < o.Target {
		o.Max = o.Target
	}
	if o.Overlap >= o.Target {
		o.Overlap = o.Target / 4
	}
	var units []unit
	for i, p := range pieces {
		for _, u := range sentenceUnits(p.Text, i, o.Max) {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return nil
	}

	var chunks []record.Chunk
	var cur []unit
	curTokens := 0
	fresh := 0 // units in cur that are not overlap from the previous chunk
	flush := func() {
		if fresh == 0 {
			return
		}
		text := join(cur)
		first := pieces[cur[0].piece]
		tokens := cur[0].tokens // a unit's count is exact: no need to count again
		if len(cur) > 1 {
			tokens = CountTokens(text)
		}
		chunks = append(chunks, record.Chunk{
			Index:  len(chunks),
			Text:   text,
			Tokens: tokens,
			StartS: first.StartS,
			Page:   first.Page,
			Kind:   first.Kind,
		})
		// Carry the last sentences that fit in the overlap budget.
		var keep []unit
		n := 0
		for j := len(cur) - 1; j >= 0 && n+cur[j].tokens <= o.Overlap; j-- {
			keep = append([]unit{cur[j]}, keep...)
			n += cur[j].tokens
		}
		// Never carry the whole chunk: the next one must move forward.
		if len(keep) == len(cur) {
			keep, n = nil, 0
		}
		cur, curTokens, fresh = keep, n, 0
	}

	for i := 0; i < len(units); {
		// Try to take the whole paragraph starting here when it fits.
		j := i
		ptoks := 0
		for j < len(units) && units[j].piece == units[i].piece {
			ptoks += units[j].tokens
			j++
		}
		startOfPiece := i == 0 || units[i-1].piece != units[i].piece
		if startOfPiece && len(cur) > 0 && (pieces[units[i].piece].Heading || pieces[units[i].piece].Kind != pieces[cur[len(cur)-1].piece].Kind) {
			// a section starts: the chunk before ends here, and none
			// carries text across the heading
			flush()
			cur, curTokens, fresh = nil, 0, 0
		}
		if startOfPiece && pieces[units[i].piece].Code && ptoks <= o.Max && curTokens+ptoks > o.Target {
			// a code block that fits whole goes whole into a chunk
			flush()
			if curTokens+ptoks > o.Max {
				cur, curTokens = nil, 0
			}
			cur = append(cur, units[i:j]...)
			curTokens += ptoks
			fresh += j - i
			i = j
			continue
		}
		if startOfPiece {
			switch {
			case curTokens+ptoks <= o.Target:
				cur = append(cur, units[i:j]...)
				curTokens += ptoks
				fresh += j - i
				i = j
				continue
			case fresh > 0 && ptoks <= o.Target && curTokens >= o.Target/2:
				// A chunk already half full ends at the paragraph boundary
				// rather than cutting the next paragraph.
				flush()
				continue
			}
		}
		u := units[i]
		lastOfPiece := i+1 == len(units) || units[i+1].piece != u.piece
		if fresh > 0 && curTokens+u.tokens > o.Target && !(lastOfPiece && curTokens+u.tokens <= o.Max) {
			flush()
		}
		// Overlap plus this unit may be too big for the hard limit: drop the
		// overlap (after a flush, cur holds nothing else).
		if fresh == 0 && curTokens+u.tokens > o.Max {
			cur, curTokens = nil, 0
		}
		cur = append(cur, u)
		curTokens += u.tokens
		fresh++
		i++
	}
	flush()
	return chunks
}

// join puts units back together: a blank line between pieces, the original
// separator within a piece.
func join(us []unit) string {
	var b strings.Builder
	for k, u := range us {
		if k > 0 {
			if us[k-1].piece != u.piece {
				b.WriteString("\n\n")
			} else {
				b.WriteString(u.sep)
			}
		}
		b.WriteString(u.text)
	}
	return b.String()
}

// sentenceUnits splits one piece into sentences with token counts; a
// sentence over max tokens is cut at word boundaries.
func sentenceUnits(text string, piece, max int) []unit {
	var out []unit
	for _, s := range Sentences(text) {
		n := countUpTo(s.Text, max)
		if n <= max {
			out = append(out, unit{text: s.Text, tokens: n, piece: piece, sep: s.Sep})
			continue
		}
		for k, part := range splitWords(s.Text, max) {
			sep := " "
			if k == 0 {
				sep = s.Sep
			}
			n := part.tokens
			if n < 0 {
				n = CountTokens(part.text)
			}
			out = append(out, unit{text: part.text, tokens: n, piece: piece, sep: sep})
		}
	}
	return out
}

// part is a piece of an over-long sentence and its token count, -1 when
// not counted yet.
type part struct {
	text   string
	tokens int
}

// splitWords cuts s at spaces into parts of at most max tokens each (a
// single word over max, such as a long URL, becomes a part of its own and is
// cut by bytes).
func splitWords(s string, max int) []part {
	var parts []part
	var cur []string
	curTokens := 0
	for _, w := range strings.Fields(s) {
		n := countUpTo(" "+w, max)
		if n > max {
			if len(cur) > 0 {
				parts = append(parts, part{strings.Join(cur, " "), -1})
				cur, curTokens = nil, 0
			}
			parts = append(parts, splitRunes(w, max)...)
			continue
		}
		if curTokens+n > max && len(cur) > 0 {
			parts = append(parts, part{strings.Join(cur, " "), -1})
			cur, curTokens = nil, 0
		}
		cur = append(cur, w)
		curTokens += n
	}
	if len(cur) > 0 {
		parts = append(parts, part{strings.Join(cur, " "), -1})
	}
	return parts
}

// splitRunes cuts a word with no spaces into parts of at most max tokens:
// each part is the first max tokens of what is left (only a window of it is
// tokenised, at most 32 bytes a token), shortened a rune at a time in the
// rare case the part alone tokenises into more. Each part comes with its
// count, so nothing is counted twice.
func splitRunes(w string, max int) []part {
	var parts []part
	for w != "" {
		// Tokenise a window of about six bytes a token (long runs of
		// letters average five or six), doubling it while it holds fewer
		// than max tokens.
		size := max * 6
		var end int
		for {
			window := w[:boundary(w, size)]
			end = boundary(window, prefixBytes(window, max))
			if end < len(window) || len(window) == len(w) || size >= max*32 {
				break
			}
			size *= 2
		}
		if end == 0 {
			end = firstRuneEnd(w)
		}
		n := CountTokens(w[:end])
		for end > firstRuneEnd(w) && n > max {
			end = boundary(w, end-1)
			n = CountTokens(w[:end])
		}
		parts = append(parts, part{w[:end], n})
		w = w[end:]
	}
	return parts
}

// firstRuneEnd is the byte length of the first rune of s.
func firstRuneEnd(s string) int {
	for i := range s {
		if i > 0 {
			return i
		}
	}
	return len(s)
}

// boundary moves n back to the start of the rune it falls in.
func boundary(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
