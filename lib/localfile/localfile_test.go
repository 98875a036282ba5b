package localfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadCapped(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 300_000) // 3 MB: several chunks
	for _, tt := range []struct {
		name      string
		size      int
		max, hint int64
		tooLarge  bool
	}{
		{"no hint, under the cap", len(data), 4 << 20, 0, false},
		{"no hint, exactly the cap", len(data), int64(len(data)), 0, false},
		{"no hint, one byte over", len(data), int64(len(data)) - 1, 0, true},
		{"right hint", len(data), 4 << 20, int64(len(data)), false},
		{"hint too small", len(data), 4 << 20, 10, false},
		{"hint too big", len(data), 4 << 20, 1 << 22, false},
		{"hint over the cap", len(data), 1 << 20, 1 << 22, true},
		{"empty", 0, 10, 0, false},
	} {
		got, err := ReadCapped(bytes.NewReader(data[:tt.size]), tt.max, tt.hint)
		if tt.tooLarge {
			if !errors.Is(err, ErrTooLarge) {
				t.Errorf("%s: err = %v, want ErrTooLarge", tt.name, err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, data[:tt.size]) {
			t.Errorf("%s: got %d bytes, %v; want %d bytes", tt.name, len(got), err, tt.size)
		}
	}
	// an endless stream stops at the cap
	if _, err := ReadCapped(zeros{}, 5<<20, 0); !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless stream: err = %v, want ErrTooLarge", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.txt")
	os.WriteFile(reg, []byte("hello"), 0o600)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(reg, 5); err != nil || string(b) != "hello" {
		t.Errorf("ReadFile(regular) = %q, %v", b, err)
	}
	if _, err := ReadFile(reg, 4); !errors.Is(err, ErrTooLarge) || err.Error() != "is 5 bytes, over the size cap of 4 bytes" {
		t.Errorf("ReadFile(over the cap) err = %v", err)
	}
	for path, want := range map[string]string{fifo: "is a named pipe (FIFO), not a regular file", dir: "is a directory, not a regular file", "/dev/zero": "is a character device, not a regular file"} {
		if _, err := ReadFile(path, 1<<20); !errors.Is(err, ErrNotRegular) || err.Error() != want {
			t.Errorf("ReadFile(%s) err = %v, want %q", path, err, want)
		}
	}
}
