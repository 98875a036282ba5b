package store

// #include "subjournal.h"
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
