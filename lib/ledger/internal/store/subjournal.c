// subjournal.c: see subjournal.go. sqlite3_config is variadic, which cgo
// cannot call directly.
#include <sqlite3.h>

#include "subjournal.h"

int ll_subjournal_in_memory(void) {
	return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1); // never spill
}
