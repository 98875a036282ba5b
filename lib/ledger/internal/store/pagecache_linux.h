// pagecache_linux.h: the page-cache pool SQLite is handed before its first
// connection (pagecache_linux.c, pagecache_linux.go).
#ifndef LL_PAGECACHE_LINUX_H
#define LL_PAGECACHE_LINUX_H

#include <stddef.h>

// ll_pcache_hdrsz returns the bytes SQLite adds to each cache page
// (SQLITE_CONFIG_PCACHE_HDRSZ), or -1.
int ll_pcache_hdrsz(void);

// ll_pcache_pool hands SQLite n slots of sz bytes at buf for its page
// cache (SQLITE_CONFIG_PAGECACHE); SQLITE_OK or SQLite's error code.
int ll_pcache_pool(void *buf, int sz, int n);

// ll_map maps len bytes (a multiple of 2 MB) at a 2 MB boundary,
// prefaulted; NULL when the mapping fails.
void *ll_map(size_t len);

// ll_pool_used returns the pool slots in use now, or -1.
int ll_pool_used(void);

#endif
