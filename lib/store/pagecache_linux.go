package store

/*
#include <stddef.h>
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

// ll_map maps len bytes for the pool: huge pages where the kernel gives
// them (one fault per 2 MB), prefaulted in one call (SQLite writes a free
// list through every slot when it starts, which would otherwise fault each
// 4 KB page on its own).
static void *ll_map(size_t len) {
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) return NULL;
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

// usePagePool gives SQLite a page-cache pool of slots pages before its
// first connection. Only the first call in a process counts; it does
// nothing when slots <= 0, or when SQLite is already in use (sqlite3_config
// then refuses, and SQLite keeps its own allocator).
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
		buf := C.ll_map(C.size_t(sz * slots))
		if buf == nil {
			return
		}
		C.ll_pcache_pool(buf, C.int(sz), C.int(slots))
	})
}

// pagePoolUsed returns how many pool slots SQLite uses now (for tests).
func pagePoolUsed() int { return int(C.ll_pool_used()) }
