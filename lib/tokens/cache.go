package tokens

import (
	"hash/maphash"
	"sync/atomic"
)

// The counts of the pieces that byte-pair encoding merges (pieces that are
// not one token, up to scanMax bytes) are kept in a small cache: prose
// repeats its words, and chunking counts every sentence and then each
// chunk made of them (ll-index spent a quarter of its time merging the
// same pieces again, docs/benchmarks.md). A count is a function of the
// piece alone, so a cached count is the count.
//
// The cache is a fixed array of slots, each holding one piece and its
// count, replaced on a collision: bounded memory (at most cacheSlots
// pieces of at most scanMax bytes), no lock (a slot is swapped whole), safe
// for concurrent counts.
const cacheSlots = 1 << 16

type cacheEntry struct {
	piece string
	n     int32
}

var (
	cacheSeed = maphash.MakeSeed()
	cache     [cacheSlots]atomic.Pointer[cacheEntry]
)

// mergedCount returns the number of tokens byte-pair encoding makes of p,
// which is at most scanMax bytes and not a token.
func mergedCount(p string) int {
	slot := &cache[maphash.String(cacheSeed, p)&(cacheSlots-1)]
	if e := slot.Load(); e != nil && e.piece == p {
		return int(e.n)
	}
	var buf [scanMax + 2]int32
	n := len(mergeScan(buf[:0], p)) - 1
	slot.Store(&cacheEntry{piece: string([]byte(p)), n: int32(n)})
	return n
}
