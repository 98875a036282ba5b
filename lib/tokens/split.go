package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer cuts text into pieces that byte-pair encoding then
// works on one at a time. cl100k_base defines the pieces by the regexp
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// matched leftmost-first, one match after another. pieceEnd is that regexp
// written out by hand, as tiktoken-go runs it (regexp2's generated matcher):
//
//   - \p{L} and \p{N} are Go's unicode.L and unicode.N, \s is unicode.IsSpace
//     (so U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F,
//     U+205F and U+3000 are spaces, but U+001C-U+001F and U+200B are not).
//   - (?i:'s|...) also matches 'ſ (U+017F, which folds to s).
//   - DEL (U+007F) is in none of the regexp's classes (regexp2's generated
//     ASCII bitmaps leave out 127), so no alternative matches it and the
//     matcher steps over it: it is in no piece and counts for nothing.
//   - \s*[\r\n]+ backtracks \s* to the first \r or \n of the run of spaces,
//     not the last as a textbook backtracking engine would: "\n \n" is two
//     pieces, "\n" and " \n".
//
// Every rune but DEL starts a match of some alternative, so the pieces
// cover the text but for its DELs.

// Classes of a rune, as far as the regexp can tell them apart.
const (
	other     = iota // [^\s\p{L}\p{N}]
	letter           // \p{L}
	number           // \p{N}
	space            // \s
	unmatched        // DEL, which tiktoken-go's matcher skips
)

// asciiClass holds the class of each ASCII byte.
var asciiClass = func() (c [utf8.RuneSelf]uint8) {
	for b := range c {
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z':
			c[b] = letter
		case '0' <= b && b <= '9':
			c[b] = number
		case b == ' ', '\t' <= b && b <= '\r':
			c[b] = space
		case b == 0x7f:
			c[b] = unmatched
		}
	}
	return c
}()

// classAt returns the class of the rune at s[i] and its length in bytes.
// s is valid UTF-8.
func classAt(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return runeClass(r), n
}

func runeClass(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		return letter
	case unicode.IsNumber(r):
		return number
	case unicode.IsSpace(r):
		return space
	}
	return other
}

// nextPiece returns the bounds of the first piece of s at or after s[i],
// or i, i at the end of s. s is valid UTF-8.
func nextPiece(s string, i int) (start, end int) {
	for i < len(s) && s[i] == 0x7f {
		i++
	}
	if i == len(s) {
		return i, i
	}
	return i, pieceEnd(s, i)
}

// pieceEnd returns the end of the piece that starts at s[i]. s is valid
// UTF-8, i < len(s) and s[i] is not DEL.
func pieceEnd(s string, i int) int {
	b := s[i]
	if b == '\'' {
		if e := contractionEnd(s, i+1); e > 0 {
			return e
		}
	}
	c, n := classAt(s, i)
	switch c {
	case letter: // \p{L}+
		return runEnd(s, i+n, letter)
	case number: // \p{N}{1,3}
		e := i + n
		for k := 1; k < 3 && e < len(s); k++ {
			c, n := classAt(s, e)
			if c != number {
				break
			}
			e += n
		}
		return e
	}
	// [^\r\n\p{L}\p{N}]\p{L}+
	if b != '\r' && b != '\n' && i+n < len(s) {
		if c1, n1 := classAt(s, i+n); c1 == letter {
			return runEnd(s, i+n+n1, letter)
		}
	}
	// ' ?[^\s\p{L}\p{N}]+[\r\n]*
	if c == other {
		return newlinesEnd(s, runEnd(s, i+n, other))
	}
	if b == ' ' && i+1 < len(s) {
		if c1, n1 := classAt(s, i+1); c1 == other {
			return newlinesEnd(s, runEnd(s, i+1+n1, other))
		}
	}
	return spacesEnd(s, i)
}

// contractionEnd returns the end of 's, 't, 're, 've, 'm, 'll or 'd (any
// case, and 'ſ) whose apostrophe ends at s[j], or 0 if there is none.
func contractionEnd(s string, j int) int {
	if j >= len(s) {
		return 0
	}
	switch s[j] {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D':
		return j + 1
	case 'r', 'R', 'v', 'V':
		if j+1 < len(s) && s[j+1]|0x20 == 'e' {
			return j + 2
		}
	case 'l', 'L':
		if j+1 < len(s) && s[j+1]|0x20 == 'l' {
			return j + 2
		}
	case 0xc5: // ſ is C5 BF
		if j+1 < len(s) && s[j+1] == 0xbf {
			return j + 2
		}
	}
	return 0
}

// runEnd returns the end of the run of runes of class c from s[j].
func runEnd(s string, j int, c uint8) int {
	for j < len(s) {
		cj, n := classAt(s, j)
		if cj != c {
			break
		}
		j += n
	}
	return j
}

// newlinesEnd returns the end of the run of \r and \n from s[j].
func newlinesEnd(s string, j int) int {
	for j < len(s) && (s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// spacesEnd returns the end of the piece of spaces that starts at s[i]:
//
//	\s*[\r\n]+  up to the end of the first run of \r and \n, if the
//	            spaces hold one
//	\s+(?!\S)   all the spaces at the end of the text, or all but the
//	            last before something else
//	\s+         the one space before something else
func spacesEnd(s string, i int) int {
	last, j := i, i
	for j < len(s) {
		if s[j] == '\r' || s[j] == '\n' {
			return newlinesEnd(s, j)
		}
		c, n := classAt(s, j)
		if c != space {
			break
		}
		last = j
		j += n
	}
	if j == len(s) || last == i {
		return j
	}
	return last
}
