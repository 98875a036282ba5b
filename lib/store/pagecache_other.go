//go:build !linux

package store

// PreparePagePool and usePagePool are Linux-only (see
// pagecache_linux.go); elsewhere SQLite keeps its own page-cache
// allocator.
func PreparePagePool(int) {}

func usePagePool(int) {}
