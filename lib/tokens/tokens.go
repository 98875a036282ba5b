// Package tokens counts cl100k_base tokens (the encoding of OpenAI's GPT-4
// and GPT-3.5 models) exactly as github.com/tiktoken-go/tokenizer does with
// codec.ErrorModeReplace, but with nothing to build when a process starts.
//
// tiktoken-go keeps the vocabulary as a 100k-entry Go map literal that is
// built on first use (about 20 ms) and splits text with a regexp2 matcher.
// Here the vocabulary is a table generated from tiktoken-go's (go generate;
// see internal/gen) and embedded with go:embed: a Robin Hood hash table of
// packed 8-byte slots followed by the token bytes, 1.7 MB in all (layout in
// internal/ranktable). A lookup hashes the bytes, probes the slots in place
// and compares the candidate's bytes. Nothing is built or copied at start-up,
// so the first count costs little more than any other: only the operating
// system mapping in the pages of the table that it touches. The
// pre-tokenizer is cl100k_base's split regexp written out by hand
// (split.go), and byte-pair encoding joins the lowest-ranked pair first
// (bpe.go), as tiktoken does.
//
// Invalid UTF-8 is counted as U+FFFD, one per maximal invalid subpart, as
// tiktoken-go's replace mode does. Special tokens such as <|endoftext|> are
// plain text. Where tiktoken-go's split departs from the regexp it is given
// (it skips DEL, and cuts "\n \n" after the first newline), this package
// follows tiktoken-go; see split.go.
package tokens

import (
	"iter"
	"unicode/utf8"
)

// Count returns the number of cl100k_base tokens in s. It is safe for
// concurrent use. Its cost is linear in len(s): a pre-tokenizer piece
// longer than maxPiece bytes is encoded in parts (see maxPiece), the one
// place where the count may differ from tiktoken's.
func Count(s string) int {
	return CountUpTo(s, -1)
}

// CountUpTo returns Count(s) when it is at most limit, and limit+1
// otherwise, without counting past that (a negative limit: no limit). So
// deciding whether a 20 MB sentence fits in a chunk costs a scan of s up to
// the limit, not a full encoding.
func CountUpTo(s string, limit int) int {
	s = replaceInvalid(s)
	n := 0
	var bounds []int32
	var sc *scratch
	for i, j := nextPiece(s, 0); i < j; i, j = nextPiece(s, j) {
		for piece := s[i:j]; piece != ""; {
			if limit >= 0 && n > limit {
				return limit + 1
			}
			p := piece[:cutPiece(piece)]
			piece = piece[len(p):]
			switch _, ok := rank(p); {
			case len(p) == 1 || ok:
				n++
			case len(p) <= scanMax:
				n += mergedCount(p)
			default:
				if sc == nil {
					sc = scratches.Get().(*scratch)
					defer scratches.Put(sc)
				}
				bounds = mergeHeap(bounds[:0], p, sc)
				n += len(bounds) - 1
			}
		}
	}
	if limit >= 0 && n > limit {
		return limit + 1
	}
	return n
}

// Split yields the cl100k_base tokens of s in order, as strings. They are
// the bytes of s, except that each maximal invalid UTF-8 subpart is
// replaced by U+FFFD first, so the tokens of an invalid s add up to a
// longer string than s.
func Split(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		s := replaceInvalid(s)
		var bounds []int32
		sc := scratches.Get().(*scratch)
		defer scratches.Put(sc)
		for i, j := nextPiece(s, 0); i < j; i, j = nextPiece(s, j) {
			for piece := s[i:j]; piece != ""; {
				p := piece[:cutPiece(piece)]
				piece = piece[len(p):]
				if _, ok := rank(p); len(p) == 1 || ok {
					if !yield(p) {
						return
					}
					continue
				}
				bounds = merge(bounds[:0], p, sc)
				for k := 0; k+1 < len(bounds); k++ {
					if !yield(p[bounds[k]:bounds[k+1]]) {
						return
					}
				}
			}
		}
	}
}

// replaceInvalid returns s with each maximal subpart of an invalid UTF-8
// sequence replaced by U+FFFD: the longest prefix of a well-formed sequence
// that does not complete it, or else a single byte (Unicode's "substitution
// of maximal subparts").
func replaceInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/2)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, "\uFFFD"...)
			n = invalidPrefix(s[i:])
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

// invalidPrefix returns the length of the maximal subpart at the start of
// s, which does not start with a valid UTF-8 sequence.
func invalidPrefix(s string) int {
	// Second-byte bounds after each lead byte, from Unicode's table of
	// well-formed byte sequences; later bytes are always 80..BF.
	lo, hi, need := byte(0x80), byte(0xbf), 0
	switch b := s[0]; {
	case 0xc2 <= b && b <= 0xdf:
		need = 1
	case b == 0xe0:
		lo, need = 0xa0, 2
	case b == 0xed:
		hi, need = 0x9f, 2
	case 0xe1 <= b && b <= 0xef:
		need = 2
	case b == 0xf0:
		lo, need = 0x90, 3
	case 0xf1 <= b && b <= 0xf3:
		need = 3
	case b == 0xf4:
		hi, need = 0x8f, 3
	}
	n := 1
	for n <= need && n < len(s) && lo <= s[n] && s[n] <= hi {
		n++
		lo, hi = 0x80, 0xbf
	}
	return n
}
