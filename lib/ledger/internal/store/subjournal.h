// subjournal.h: sub-journals kept in memory (subjournal.c, subjournal.go).
#ifndef LL_SUBJOURNAL_H
#define LL_SUBJOURNAL_H

// ll_subjournal_in_memory tells SQLite never to spill a statement journal
// to a file (SQLITE_CONFIG_STMTJRNL_SPILL -1); SQLITE_OK or SQLite's
// error code.
int ll_subjournal_in_memory(void);

#endif
