package store

// #include "pagecache_linux.h"
import "C"

import "sync"

// A short-lived reader (ll-find, ll-brief) reads a few hundred to a few
// thousand database pages into a fresh SQLite page cache. Each cache page
// is malloc'ed, and every new 4 KB of process memory is a page fault,
// which costs about 20 µs on the VMs linkledger is benchmarked on (against
// ~1.4 µs a page when the kernel fills a whole range in one call): half of
// a query's page faults and a good part of its time. Handing SQLite one
// preallocated, prefaulted pool for its page cache
// (SQLITE_CONFIG_PAGECACHE) before the first connection removes those
// faults; pages beyond the pool are malloc'ed as before.

var pagePoolOnce sync.Once

// hugePage is the size of an x86-64 transparent huge page. The pool is
// mapped in whole, aligned huge pages: prefaulting 2 MB so takes ~0.2 ms
// here, against ~0.7 ms for the same memory in 4 KB pages.
const hugePage = 2 << 20

// usePagePool gives SQLite a page-cache pool of at least slots pages before
// its first connection: the mapping is rounded up to whole 2 MB huge pages
// and every slot that fits is used. Only the first call in a process
// counts; it does nothing when slots <= 0, or when SQLite is already in
// use (sqlite3_config then refuses, and SQLite keeps its own allocator).
func usePagePool(slots int) {
	pagePoolOnce.Do(func() {
		if slots <= 0 {
			return
		}
		hdr := int(C.ll_pcache_hdrsz())
		if hdr < 0 {
			return
		}
		sz := (4096 + hdr + 7) &^ 7
		size := (sz*slots + hugePage - 1) / hugePage * hugePage
		buf := C.ll_map(C.size_t(size))
		if buf == nil {
			return
		}
		poolSlots, poolSlotSize = size/sz, sz
		C.ll_pcache_pool(buf, C.int(sz), C.int(poolSlots))
	})
}

// poolSlots is the number of slots of the pool in use (0: none), each of
// poolSlotSize bytes.
var poolSlots, poolSlotSize int

// pagePoolUsed returns how many pool slots SQLite uses now (for tests).
func pagePoolUsed() int { return int(C.ll_pool_used()) }
