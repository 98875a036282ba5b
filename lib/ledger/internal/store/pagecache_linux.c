// pagecache_linux.c: the page-cache pool (see pagecache_linux.go). It calls
// the SQLite that github.com/mattn/go-sqlite3 links into the binary.
// sqlite3_config is variadic, which cgo cannot call directly: hence these
// small C functions.
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sqlite3.h>

#include "pagecache_linux.h"

int ll_pcache_hdrsz(void) {
	int sz = 0;
	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &sz) != SQLITE_OK) return -1;
	return sz;
}

int ll_pcache_pool(void *buf, int sz, int n) {
	return sqlite3_config(SQLITE_CONFIG_PAGECACHE, buf, sz, n);
}

// ll_map maps len bytes (a multiple of 2 MB) for the pool at a 2 MB
// boundary, so the kernel can back it with huge pages (one fault and one
// clear per 2 MB; a range that is not aligned and whole gets 4 KB pages),
// prefaulted in one call (SQLite writes a free list through every slot
// when it starts, which would otherwise fault each 4 KB page on its own).
void *ll_map(size_t len) {
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

int ll_pool_used(void) {
	int cur = 0, hi = 0;
	if (sqlite3_status(SQLITE_STATUS_PAGECACHE_USED, &cur, &hi, 0) != SQLITE_OK) return -1;
	return cur;
}
