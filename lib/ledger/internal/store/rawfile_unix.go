//go:build unix

package store

import (
	"io/fs"
	"syscall"
)

// The database file's header check and creation use plain system calls:
// os.Open registers a file with the runtime's poller, whose set-up (on a
// process's first open) cost a short ll-save or ll-find ~50 µs for two
// tiny reads. Errors read as os.Open's.

// readHead reads up to len(buf) bytes from the start of the file at path.
func readHead(path string, buf []byte) (int, error) {
	fd, err := openRaw(path, syscall.O_RDONLY, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := syscall.Pread(fd, buf[n:], int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	return n, nil
}

// createRaw creates the file at path with mode perm when it is missing.
func createRaw(path string, perm uint32) error {
	fd, err := openRaw(path, syscall.O_RDWR|syscall.O_CREAT, perm)
	if err != nil {
		return err
	}
	return syscall.Close(fd)
}

func openRaw(path string, flags int, perm uint32) (int, error) {
	for {
		fd, err := syscall.Open(path, flags|syscall.O_CLOEXEC, perm)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return fd, nil
	}
}
