//go:build sqlite_fts5

package store

// fts5Built is true: the driver was compiled with FTS5.
const fts5Built = true
