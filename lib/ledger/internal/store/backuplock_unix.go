//go:build unix

package store

import (
	"os"
	"syscall"
)

// lockBackup takes the lock a running backup holds on its temporary file
// (flock(2), apart from SQLite's own fcntl locks), so another backup's
// cleanup leaves the file alone; it is released when f is closed or the
// process dies. It returns errBackupLocked when another process holds
// it, and nil also where the file system has no such locks (the backup
// goes on, unlocked).
func lockBackup(f *os.File) error {
	if flock(f) == syscall.EWOULDBLOCK {
		return errBackupLocked
	}
	return nil
}

// staleBackup reports whether f was locked by this call: no running
// backup holds it, so the one that wrote it is gone (f stays locked until
// it is closed). Where locks are missing nothing is stale.
func staleBackup(f *os.File) bool { return flock(f) == nil }

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			return err
		}
	}
}
