//go:build unix

package remote

import (
	"errors"
	"os"
	"syscall"
)

// errLocked is a lock another process holds (tryLock).
var errLocked = errors.New("locked by another command")

// lockFile takes flock(2) on path (made mode 0600 when missing), exclusive
// or shared, waiting for it; unlock releases it. The kernel releases it
// too when the process dies, so a killed command never leaves it held.
func lockFile(path string, exclusive bool) (unlock func(), err error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	return flockPath(path, how)
}

// tryLock is lockFile exclusive without waiting: errLocked when another
// holds it.
func tryLock(path string) (unlock func(), err error) {
	return flockPath(path, syscall.LOCK_EX|syscall.LOCK_NB)
}

func flockPath(path string, how int) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err == syscall.EWOULDBLOCK {
		f.Close()
		return nil, errLocked
	}
	if err != nil {
		f.Close()
		return nil, &os.PathError{Op: "flock", Path: path, Err: err}
	}
	return func() { f.Close() }, nil
}
