//go:build !linux

package store

// usePagePool is Linux-only (see pagecache_linux.go); elsewhere SQLite
// keeps its own page-cache allocator.
func usePagePool(int) {}
