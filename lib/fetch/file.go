package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/linkledger/linkledger/lib/localfile"
	"github.com/linkledger/linkledger/lib/record"
)

// Local files are read only under the roots the user allowed
// (Options.AllowFiles): a record alone can never make ll-fetch read a file.
// The command layer adds the paths named as arguments, --allow-files and
// LINKLEDGER_ALLOW_FILES; `linkledger worker` adds the files the user saved
// by argument. docs/security.md has the whole trust model.

// fileRoots is the resolved allow list: each root is an absolute, cleaned
// path with its symlinks resolved (or cleaned only, when it does not
// exist). A root is a folder (every file under it) or a file (itself).
type fileRoots []string

func newFileRoots(paths []string) fileRoots {
	var roots fileRoots
	for _, p := range paths {
		if p == "" || !filepath.IsAbs(p) {
			continue // the command layer makes them absolute
		}
		roots = append(roots, resolvePath(p))
	}
	return roots
}

// resolvePath cleans p and resolves its symlinks; a path that cannot be
// resolved (missing, or a /proc/self/fd link to a pipe) stays as cleaned.
func resolvePath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// allows reports whether the resolved path p is a root or under one.
func (r fileRoots) allows(p string) bool {
	for _, root := range r {
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// notAllowedHint ends the message of a refused local read.
const notAllowedHint = "local files are read only when named as an argument or under --allow-files (LINKLEDGER_ALLOW_FILES); see docs/security.md"

// readFile reads a file:// URL from disk under the size cap, if the path is
// allowed, is a regular file and stays so once opened.
func (f *Fetcher) readFile(ctx context.Context, fileURL string) *result {
	res := &result{finalURL: fileURL, source: "file", attempts: 1}
	u, err := url.Parse(fileURL)
	if err != nil || u.Path == "" {
		res.err = fail(record.CodeBadURL, false, "bad file URL %q", fileURL)
		return res
	}
	path := filepath.FromSlash(u.Path)
	// Check the path with its symlinks resolved: a link under an allowed
	// folder that points outside it is refused.
	if !f.files.allows(resolvePath(path)) {
		res.err = fail(record.CodeFileNotAllowed, false, "%s: not an allowed local file (%s)", path, notAllowedHint)
		return res
	}
	// O_NONBLOCK: opening a FIFO with no writer must not block; O_NOCTTY:
	// opening a terminal must not make it ours. Anything but a regular
	// file is refused before a byte is read.
	// The ledger itself (or its -wal, -shm) is never read as a page: in
	// a process that holds it (the worker), closing the descriptor would
	// drop the process's SQLite locks (localfile.Held).
	if localfile.Held(path) {
		res.err = fail(record.CodeFileNotAllowed, false, "%s %v", path, localfile.ErrHeld)
		return res
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		res.err = fail(record.CodeFileRead, false, "%v", err)
		return res
	}
	defer func() {
		if localfile.CloseUnlessHeld(fh) && res.err == nil {
			res.err = fail(record.CodeFileNotAllowed, false, "%s %v", path, localfile.ErrHeld)
		}
	}()
	st, err := fh.Stat()
	if err != nil {
		res.err = fail(record.CodeFileRead, false, "%v", err)
		return res
	}
	if !st.Mode().IsRegular() {
		res.err = fail(record.CodeFileRead, false, "%s is %s, not a regular file", path, localfile.Kind(st.Mode()))
		return res
	}
	// The path may have changed between the check and the open (a symlink
	// swapped): check what was really opened, where the system tells.
	if real, ok := openedPath(fh); ok && !f.files.allows(real) {
		res.err = fail(record.CodeFileNotAllowed, false, "%s: opened %s, which is not an allowed local file (%s)", path, real, notAllowedHint)
		return res
	}
	if st.Size() > f.opts.MaxBytes {
		res.err = fail(record.CodeTooLarge, false, "file of %d bytes is over the %d byte cap", st.Size(), f.opts.MaxBytes)
		return res
	}
	data, err := readCapped(ctxReader{ctx, fh}, f.opts.MaxBytes, st.Size())
	if err != nil {
		switch {
		case errors.Is(err, ErrTooLarge):
			res.err = fail(record.CodeTooLarge, false, "%v", err)
		case ctx.Err() != nil:
			res.err = fail(record.CodeTimeout, true, "timeout after %s reading %s", f.opts.Timeout, path)
		default:
			res.err = fail(record.CodeFileRead, false, "%v", err)
		}
		return res
	}
	res.body = data
	res.status = http.StatusOK
	res.contentType = typeByExt(path)
	res.lastModified = st.ModTime().UTC().Format(http.TimeFormat)
	return res
}

// openedPath is the path of the file fh really is, from /proc on Linux;
// ok is false where the system does not say.
func openedPath(fh *os.File) (string, bool) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fh.Fd())))
	if err != nil || !filepath.IsAbs(p) {
		return "", false
	}
	return p, true
}

// ctxReader stops reading once ctx ends.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("read: %w", err)
	}
	return c.r.Read(p)
}
