package localfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The database files this process holds open through SQLite. POSIX drops
// all of a process's fcntl locks on a file as soon as any descriptor of
// the process to that file is closed, whoever opened it: a header read,
// a file:// fetch, a cleanup that opens the file to look at it. SQLite
// itself keeps such closes for later while it holds locks, but cannot know
// of descriptors others open. With its locks gone, any other SQLite client
// that closes its last connection takes the exclusive lock, checkpoints
// and unlinks the -wal and -shm files the process still writes into (data
// lost: issue 27). So the store registers every database file it opens
// (Hold), and code that would open a file outside SQLite asks first
// (Held, Unheld).

var (
	heldMu sync.Mutex
	held   []heldFile
)

type heldFile struct {
	path string
	fi   fs.FileInfo
	n    int
}

// Hold registers the file at path as a database this process holds
// through SQLite, until release is called (a count: a file opened twice
// is held until both release). It returns a no-op when path cannot be
// stat'ed (there is nothing to protect).
func Hold(path string) (release func()) {
	fi, err := os.Stat(path)
	if err != nil {
		return func() {}
	}
	heldMu.Lock()
	defer heldMu.Unlock()
	var h *heldFile
	for i := range held {
		if os.SameFile(held[i].fi, fi) {
			h = &held[i]
			break
		}
	}
	if h == nil {
		held = append(held, heldFile{path: path, fi: fi})
		h = &held[len(held)-1]
	}
	h.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			heldMu.Lock()
			defer heldMu.Unlock()
			for i := range held {
				if os.SameFile(held[i].fi, fi) {
					if held[i].n--; held[i].n == 0 {
						held = append(held[:i], held[i+1:]...)
					}
					return
				}
			}
		})
	}
}

// heldLocked reports whether fi is a held database (heldMu held).
func heldLocked(fi fs.FileInfo) bool {
	for _, h := range held {
		if os.SameFile(h.fi, fi) {
			return true
		}
	}
	return false
}

// besideHeldLocked reports whether fi is the -wal, -shm or -journal file
// of a held database now (heldMu held).
func besideHeldLocked(fi fs.FileInfo) bool {
	for _, h := range held {
		for _, suf := range sqliteSuffixes {
			if bi, err := os.Stat(h.path + suf); err == nil && os.SameFile(bi, fi) {
				return true
			}
		}
	}
	return false
}

// sqliteSuffixes are the files SQLite keeps beside a database.
var sqliteSuffixes = []string{"-wal", "-shm", "-journal"}

// Held reports whether path (symlinks followed) is a database this
// process holds, or the -wal, -shm or -journal file beside one. A path
// that cannot be stat'ed is not held. It opens nothing.
func Held(path string) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	return heldPathLocked(path)
}

func heldPathLocked(path string) bool {
	if len(held) == 0 {
		return false
	}
	if fi, err := os.Stat(path); err == nil && heldLocked(fi) {
		return true
	}
	// a -wal or -shm is made and unlinked by SQLite (a new file each
	// time): it is known by the database beside it. The name may be a
	// link to it: both the name given and the one it resolves to count.
	names := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		names = append(names, real)
	}
	for _, name := range names {
		for _, suf := range sqliteSuffixes {
			if db, ok := strings.CutSuffix(name, suf); ok && db != "" {
				if fi, err := os.Stat(db); err == nil && heldLocked(fi) {
					return true
				}
			}
		}
	}
	return false
}

// Unheld runs fn, which opens and closes path outside SQLite, unless path
// is held (Held): then it returns true without running fn. No Hold
// completes while fn runs, so a database opened at the same time by
// another goroutine takes no lock that fn's close could drop.
func Unheld(path string, fn func() error) (wasHeld bool, err error) {
	heldMu.Lock()
	defer heldMu.Unlock()
	if heldPathLocked(path) {
		return true, nil
	}
	return false, fn()
}

// ErrHeld is wrapped by the error of reading a database this process
// holds (Held), or a file beside it.
var ErrHeld = errors.New("is the linkledger database this process has open (or a file of it), which is never read as a page")

// kept are descriptors never closed: see CloseUnlessHeld.
var (
	keptMu sync.Mutex
	kept   []*os.File
)

// CloseUnlessHeld closes f unless it turns out to be a held database (a
// name swapped for a link to it between Held and the open): then f is
// kept open for the life of the process, as SQLite keeps its own, since
// closing it would drop the process's locks. It reports whether f was
// held.
func CloseUnlessHeld(f *os.File) (wasHeld bool) {
	if fi, err := f.Stat(); err == nil {
		if isHeldFile(fi) {
			keptMu.Lock()
			kept = append(kept, f)
			keptMu.Unlock()
			return true
		}
	}
	f.Close()
	return false
}

// isHeldFile reports whether fi is a held database or a file beside one.
func isHeldFile(fi fs.FileInfo) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	return len(held) > 0 && (heldLocked(fi) || besideHeldLocked(fi))
}
