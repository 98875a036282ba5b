//go:build !unix

package store

import (
	"io"
	"os"
)

// readHead reads up to len(buf) bytes from the start of the file at path
// (see rawfile_unix.go).
func readHead(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		err = nil
	}
	return n, err
}

// createRaw creates the file at path with mode perm when it is missing.
func createRaw(path string, perm uint32) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, os.FileMode(perm))
	if err != nil {
		return err
	}
	return f.Close()
}
