// vectorscan.h: the SQL functions of a semantic search's first pass
// (vectorscan.c), registered on every SQLite connection.
#ifndef LL_VECTORSCAN_H
#define LL_VECTORSCAN_H

#include <sqlite3.h>

// The filter modes of ll_nearest (its seventh argument): every item, only
// the items of the set, every item but those of the set.
enum { LL_EVERY = 0, LL_ONLY_SET = 1, LL_BUT_SET = 2 };

// ll_register_vector_funcs makes ll_nearest and ll_dot part of every
// connection opened after it (sqlite3_auto_extension); SQLITE_OK or
// SQLite's error code.
int ll_register_vector_funcs(void);

#endif
