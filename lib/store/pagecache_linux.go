package store

/*
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

// Provided by the SQLite amalgamation that github.com/mattn/go-sqlite3
// compiles into the binary. sqlite3_config is variadic, which cgo cannot
// call directly.
extern int sqlite3_config(int, ...);

static int ll_pcache_hdrsz(void) {
	int sz = 0;
	if (sqlite3_config(24, &sz) != 0) return -1; // SQLITE_CONFIG_PCACHE_HDRSZ
	return sz;
}

static int ll_pcache_pool(void *buf, int sz, int n) {
	return sqlite3_config(7, buf, sz, n); // SQLITE_CONFIG_PAGECACHE
}

// ll_map maps len bytes (a multiple of 2 MB) for the pool at a 2 MB
// boundary, so the kernel can back it with huge pages (one fault and one
// clear per 2 MB; a range that is not aligned and whole gets 4 KB pages),
// prefaulted in one call (SQLite writes a free list through every slot
// when it starts, which would otherwise fault each 4 KB page on its own).
static void *ll_map(size_t len) {
	const size_t huge = (size_t)2 << 20;
	size_t maplen = len + huge;
	char *m = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) return NULL;
	char *p = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	if (p > m) munmap(m, p - m);
	if (m + maplen > p + len) munmap(p + len, (m + maplen) - (p + len));
#ifdef MADV_HUGEPAGE
	madvise(p, len, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, len, MADV_POPULATE_WRITE) == 0) return p;
#endif
	// Older kernels: fault it in here, still cheaper than page by page
	// under SQLite (no allocator work in between).
	for (size_t i = 0; i < len; i += 4096) ((volatile char *)p)[i] = 0;
	return p;
}

// ll_pool_used returns the pool slots in use now (SQLITE_STATUS_PAGECACHE_USED).
extern int sqlite3_status(int, int *, int *, int);
static int ll_pool_used(void) {
	int cur = 0, hi = 0;
	if (sqlite3_status(1, &cur, &hi, 0) != 0) return -1;
	return cur;
}
*/
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
