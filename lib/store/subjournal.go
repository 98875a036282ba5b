package store

/*
// Provided by the SQLite amalgamation of github.com/mattn/go-sqlite3;
// sqlite3_config is variadic, which cgo cannot call directly.
extern int sqlite3_config(int, ...);

static int ll_subjournal_in_memory(void) {
	return sqlite3_config(26, -1); // SQLITE_CONFIG_STMTJRNL_SPILL: never spill
}
*/
import "C"

import "sync"

var subjournalOnce sync.Once

// useMemorySubjournal keeps SQLite's sub-journals in memory for the whole
// process; call it before the first connection (only the first call
// counts, and none after SQLite is in use). A sub-journal holds the old
// content of each page a savepoint or a multi-row statement changes, so
// either can be undone alone; past 64 KiB SQLite moves it to a temporary
// file, and a bulk save wrote it there page by page: two system calls per
// page, a fifth of an import's time. It never grows past the pages one
// statement or savepoint changes.
func useMemorySubjournal() {
	subjournalOnce.Do(func() { C.ll_subjournal_in_memory() })
}
