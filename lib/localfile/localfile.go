// Package localfile reads a local file that may be hostile: only a
// regular file (a FIFO, a device such as /dev/zero, a socket or a folder is
// refused before a byte is read, and opening a FIFO never blocks), and
// never more than a cap. Standard library only.
package localfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by the errors of reads over their cap.
var ErrTooLarge = errors.New("over the size cap")

// ErrNotRegular is wrapped by the error of Open for anything but a
// regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens path for reading when it is a regular file (a symlink is
// followed, and what it points to must be one). Its errors, and
// ReadFile's, other than the system's own, do not name the path: the
// caller says it as the user gave it ("is a named pipe (FIFO), not a
// regular file"). O_NONBLOCK: opening a FIFO
// with no writer must not block; O_NOCTTY: opening a terminal must not
// make it ours.
//
// A database this process holds open (Held) is refused (ErrHeld) before
// it is opened. The caller closes the file with CloseUnlessHeld.
func Open(path string) (*os.File, fs.FileInfo, error) {
	if Held(path) {
		return nil, nil, ErrHeld
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		CloseUnlessHeld(fh)
		return nil, nil, err
	}
	if isHeldFile(st) {
		CloseUnlessHeld(fh)
		return nil, nil, ErrHeld
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("is %s, %w", Kind(st.Mode()), ErrNotRegular)
	}
	return fh, st, nil
}

// ReadFile reads the regular file at path, at most max bytes: a larger
// file is refused from its size, before it is read, and one that grows
// while it is read stops at the cap.
func ReadFile(path string, max int64) ([]byte, error) {
	fh, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer CloseUnlessHeld(fh)
	if st.Size() > max {
		return nil, fmt.Errorf("is %s, %w of %s", Size(st.Size()), ErrTooLarge, Size(max))
	}
	b, err := ReadCapped(fh, max, st.Size())
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("grew while read: %w", err)
	}
	return b, err
}

// ReadCapped reads r to its end, at most max bytes; past max it stops
// with an error wrapping ErrTooLarge. hint is the expected size (0 when
// unknown): a correct hint reads into one buffer of that size. Otherwise r
// is read in chunks of 1 MiB joined at its end, so an endless stream
// (stdin from /dev/zero) holds at most max bytes before it is refused,
// not the buffers of growing by doubling and their garbage.
func ReadCapped(r io.Reader, max, hint int64) ([]byte, error) {
	const chunk = 1 << 20
	size := int64(chunk)
	if hint > 0 {
		size = hint + 1 // +1 so a correct size reads EOF without a second chunk
	}
	var chunks [][]byte
	var total int64
	for {
		c := make([]byte, min(size, max+1-total))
		n, err := io.ReadFull(r, c)
		total += int64(n)
		if total > max {
			return nil, fmt.Errorf("more than %s: %w", Size(max), ErrTooLarge)
		}
		if n > 0 {
			chunks = append(chunks, c[:n])
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = chunk
	}
	switch len(chunks) {
	case 0:
		return []byte{}, nil
	case 1:
		return chunks[0], nil
	}
	out := make([]byte, 0, total)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return out, nil
}

// Kind names a file mode that is not a regular file's, for messages.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// Size writes a byte count for a person: 512 MiB, 2.0 GiB, 300 KiB, 12 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
