//go:build !sqlite_fts5

package store

// fts5Built is false: without the sqlite_fts5 build tag the driver has no
// FTS5, and Open says so at start-up instead of failing on the first query.
const fts5Built = false
