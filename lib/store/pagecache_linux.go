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

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// A short-lived reader (ll-find, ll-brief) reads a few hundred to a few
// thousand database pages into a fresh SQLite page cache. Each cache page
// is malloc'ed, and every new 4 KB of process memory is a page fault,
// which costs about 20 µs on the VMs linkledger is benchmarked on (against
// ~1.4 µs a page when the kernel fills a whole range in one call): half of
// a query's page faults and a good part of its time. Handing SQLite one
// preallocated, prefaulted pool for its page cache
// (SQLITE_CONFIG_PAGECACHE) before the first connection removes those
// faults; pages beyond the pool are malloc'ed as before.
//
// Prefaulting is still ~1.3 µs a page (the kernel clears each one), so a
// command can start it early (PreparePagePool), on another thread, while
// it parses its flags and finds the database; Open then only waits for
// what is left of it.

var (
	// poolStart starts the pool's preparation once per process: the first
	// PreparePagePool or Open with a pool decides its size.
	poolStart   sync.Once
	poolStarted atomic.Bool
	// poolReady is closed when the pool is mapped and prefaulted (or
	// will not be: poolBuf nil).
	poolReady = make(chan struct{})
	poolBuf   unsafe.Pointer
	poolSlot  int // bytes per slot
	poolSlots int
	// poolConfig hands the pool to SQLite once.
	poolConfig sync.Once
)

// PreparePagePool starts mapping and prefaulting a page-cache pool of
// slots pages (see Options.PagePool) in the background and returns at
// once. The first Open with a PagePool waits for it and hands it to
// SQLite; a process that never opens a store loses only the work. Only
// the first call in a process (or the first Open with a PagePool, if
// that comes first) counts; slots <= 0 prepares nothing.
func PreparePagePool(slots int) {
	poolStart.Do(func() {
		poolStarted.Store(true)
		if slots <= 0 {
			close(poolReady)
			return
		}
		go preparePool(slots)
	})
}

// preparePool maps and prefaults the pool, then closes poolReady.
func preparePool(slots int) {
	defer close(poolReady)
	hdr := int(C.ll_pcache_hdrsz())
	if hdr < 0 {
		return
	}
	sz := (4096 + hdr + 7) &^ 7
	buf := C.ll_map(C.size_t(sz * slots))
	if buf == nil {
		return
	}
	poolBuf, poolSlot, poolSlots = buf, sz, slots
}

// usePagePool gives SQLite the page-cache pool (of slots pages, unless
// PreparePagePool already chose) before its first connection, waiting for
// its preparation. Only the first call in a process that has a pool
// counts; it does nothing when slots <= 0 and none was prepared, or when
// SQLite is already in use (sqlite3_config then refuses, and SQLite keeps
// its own allocator).
func usePagePool(slots int) {
	if slots > 0 {
		PreparePagePool(slots)
	} else if !poolStarted.Load() {
		return
	}
	<-poolReady
	poolConfig.Do(func() {
		if poolBuf != nil {
			C.ll_pcache_pool(poolBuf, C.int(poolSlot), C.int(poolSlots))
		}
	})
}

// pagePoolUsed returns how many pool slots SQLite uses now (for tests).
func pagePoolUsed() int { return int(C.ll_pool_used()) }
