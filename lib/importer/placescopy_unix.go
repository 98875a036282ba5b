//go:build unix

package importer

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// processAlive reports whether a process pid runs (signal 0 checks
// without sending one). A process of another user is alive too (EPERM).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ownedByMe reports whether fi is owned by the user this process runs as.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
