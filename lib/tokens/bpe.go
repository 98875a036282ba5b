package tokens

import (
	"math"
	"slices"
	"sync"
	"unicode/utf8"
)

// Byte-pair encoding of one piece: start from single bytes and, while some
// two neighbouring parts together form a token, join the pair whose token
// has the lowest rank (the leftmost such pair on a tie). Short pieces scan
// for that pair each time; long ones keep the candidate pairs in a heap.
// Both join the same pairs in the same order.

// noRank marks a pair that is not a token.
const noRank = math.MaxUint32

// scanMax is the longest piece, in bytes, merged by mergeScan. Scanning is
// quadratic in the piece length but has no set-up cost; almost all pieces
// of real text are far shorter.
const scanMax = 64

// pairRank returns the rank of s as a token, or noRank.
func pairRank(s string) uint32 {
	if r, ok := rank(s); ok {
		return uint32(r)
	}
	return noRank
}

// maxPiece is the longest piece, in bytes, that byte-pair encoding sees
// whole. A longer pre-tokenizer piece (a 20 MB "word" with no spaces, a
// long run of CJK letters without punctuation) is encoded in consecutive
// parts of at most maxPiece bytes, cut at rune boundaries, so the cost of
// a count is linear in the input and its memory bounded by maxPiece.
// Tokens never span a cut, so the count of such a piece may be a few tokens
// higher than tiktoken's (at most one per cut); pieces of real prose are far
// shorter and counted exactly. No cl100k_base token is longer than 256
// bytes.
const maxPiece = 4096

// cutPiece returns the length of the first part of p that is byte-pair
// encoded on its own: all of p, or at most maxPiece bytes ending at a rune
// boundary. p is valid UTF-8 and not empty.
func cutPiece(p string) int {
	if len(p) <= maxPiece {
		return len(p)
	}
	n := maxPiece
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	if n == 0 {
		return maxPiece // cannot happen in valid UTF-8
	}
	return n
}

// scratch holds mergeHeap's working arrays so that a count of many long
// pieces reuses them instead of allocating per piece.
type scratch struct {
	next, prev []int32
	rankAt     []uint32
	h          pairHeap
}

// scratches recycles scratch between calls: chunking counts many windows
// of a long word one after another.
var scratches = sync.Pool{New: func() any { return new(scratch) }}

// merge appends to dst the start offsets of the tokens piece p is encoded
// as, then len(p), and returns the extended slice. sc may be nil.
func merge(dst []int32, p string, sc *scratch) []int32 {
	if len(p) <= scanMax {
		return mergeScan(dst, p)
	}
	return mergeHeap(dst, p, sc)
}

// mergeScan is merge for a piece of at most scanMax bytes.
func mergeScan(dst []int32, p string) []int32 {
	// starts[k] is where part k begins (starts[m] = len(p) for m parts);
	// ranks[k] is the rank of parts k and k+1 joined.
	var startsBuf [scanMax + 1]int32
	var ranksBuf [scanMax]uint32
	n := len(p)
	starts, ranks := startsBuf[:n+1], ranksBuf[:n]
	for k := range starts {
		starts[k] = int32(k)
	}
	for k := 0; k+1 < n; k++ {
		ranks[k] = pairRank(p[k : k+2])
	}
	m := n // number of parts
	for m > 1 {
		best, at := uint32(noRank), -1
		for k, r := range ranks[:m-1] {
			if r < best {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		// Parts at and at+1 become one: drop the start of at+1 and the
		// rank of the pair (at, at+1), then re-rank the pairs that now
		// include the joined part.
		copy(starts[at+1:m], starts[at+2:m+1])
		copy(ranks[at:m-2], ranks[at+1:m-1])
		m--
		if at+1 < m {
			ranks[at] = pairRank(p[starts[at]:starts[at+2]])
		}
		if at > 0 {
			ranks[at-1] = pairRank(p[starts[at-1]:starts[at+1]])
		}
	}
	return append(dst, starts[:m+1]...)
}

// mergeHeap is merge for a piece of any length, in O(n log n): the parts
// form a linked list over their start offsets and every pair that is a token
// waits in a min-heap keyed by rank and then offset. A heap entry whose pair
// has since changed is skipped when it comes up: a part only ever grows, so
// a pair that changed is a longer string with another rank.
func mergeHeap(dst []int32, p string, sc *scratch) []int32 {
	n := int32(len(p))
	if sc == nil {
		sc = &scratch{}
	}
	// next[k] and rankAt[k] describe the part starting at byte k: where the
	// following part starts (n at the end, -1 once k is no longer a start)
	// and the rank of the two joined. prev[k] is the start of the part before.
	sc.next = slices.Grow(sc.next[:0], int(n))[:n]
	sc.prev = slices.Grow(sc.prev[:0], int(n))[:n]
	sc.rankAt = slices.Grow(sc.rankAt[:0], int(n))[:n]
	next, prev, rankAt := sc.next, sc.prev, sc.rankAt
	h := sc.h[:0]
	defer func() { sc.h = h[:0] }()
	pairAt := func(k int32) uint32 {
		j := next[k]
		if j >= n {
			return noRank
		}
		return pairRank(p[k:next[j]])
	}
	for k := int32(0); k < n; k++ {
		next[k], prev[k] = k+1, k-1
	}
	for k := int32(0); k < n; k++ {
		rankAt[k] = pairAt(k)
		if rankAt[k] != noRank {
			h = append(h, uint64(rankAt[k])<<32|uint64(k))
		}
	}
	h.init()
	for len(h) > 0 {
		top := h.pop()
		k, r := int32(top), uint32(top>>32)
		if next[k] < 0 || rankAt[k] != r {
			continue // stale
		}
		j := next[k]
		next[k] = next[j]
		if next[j] < n {
			prev[next[j]] = k
		}
		next[j], rankAt[j] = -1, noRank
		for _, b := range [2]int32{k, prev[k]} {
			if b < 0 {
				continue
			}
			if rankAt[b] = pairAt(b); rankAt[b] != noRank {
				h.push(uint64(rankAt[b])<<32 | uint64(b))
			}
		}
	}
	for k := int32(0); k < n; k = next[k] {
		dst = append(dst, k)
	}
	return append(dst, n)
}

// pairHeap is a binary min-heap of pairs packed as rank<<32 | offset, so
// that comparing two entries orders them by rank and then offset.
type pairHeap []uint64

func (h pairHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *pairHeap) push(v uint64) {
	*h = append(*h, v)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if s[parent] <= s[i] {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *pairHeap) pop() uint64 {
	s := *h
	top := s[0]
	s[0] = s[len(s)-1]
	*h = s[:len(s)-1]
	h.down(0)
	return top
}

func (h pairHeap) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1] < h[c] {
			c++
		}
		if h[i] <= h[c] {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
