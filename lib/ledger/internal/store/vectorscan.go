package store

// #include "vectorscan.h"
import "C"

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// The first pass of a semantic search runs inside SQLite: ll_nearest, an
// aggregate function in C, reads every code where SQLite keeps it and
// returns only the chunks it keeps. Each block read into Go instead was a
// new Go allocation, and in a short-lived process every new 4 KB of
// memory is a page fault (see pagecache_linux.go): 10 MB of codes at
// 100k chunks cost more in faults than in reading.

var vectorFuncOnce sync.Once
var vectorFuncErr error

// registerVectorFuncs makes ll_nearest part of every SQLite connection
// opened after it (sqlite3_auto_extension).
func registerVectorFuncs() error {
	vectorFuncOnce.Do(func() {
		if rc := C.ll_register_vector_funcs(); rc != C.SQLITE_OK {
			vectorFuncErr = fmt.Errorf("store: registering ll_nearest: sqlite code %d", int(rc))
		}
	})
	return vectorFuncErr
}

// The filter modes of ll_nearest: every item, only the items of the set
// it is given, every item but those.
const (
	nearestEvery   = C.LL_EVERY
	nearestOnlySet = C.LL_ONLY_SET
	nearestButSet  = C.LL_BUT_SET
)

// nearest is a chunk the first pass kept.
type nearest struct {
	dist, chunk, seq int64
}

// appendSeqs appends item seqs as ll_nearest's filter set reads them:
// little-endian int64s.
func appendSeqs(b []byte, seqs []int64) []byte {
	for _, seq := range seqs {
		b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	}
	return b
}

// decodeNearest reads ll_nearest's value.
func decodeNearest(b []byte) ([]nearest, error) {
	if len(b)%24 != 0 {
		return nil, fmt.Errorf("store: ll_nearest returned %d bytes", len(b))
	}
	out := make([]nearest, len(b)/24)
	for i := range out {
		out[i] = nearest{
			dist:  int64(binary.LittleEndian.Uint64(b[24*i:])),
			chunk: int64(binary.LittleEndian.Uint64(b[24*i+8:])),
			seq:   int64(binary.LittleEndian.Uint64(b[24*i+16:])),
		}
	}
	return out, nil
}
