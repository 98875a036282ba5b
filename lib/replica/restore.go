package replica

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// RestoreOptions are the settings of Restore.
type RestoreOptions struct {
	// Binary is the litestream executable (FindBinary).
	Binary string
	// Force replaces an existing file (never one in use: stop every
	// linkledger using it first).
	Force bool
	// SFTP signs in to an sftp:// replica.
	SFTP SFTP
}

// ExistsError says the restore target exists (and RestoreOptions.Force
// was not given).
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s exists: restore never overwrites a ledger unless told (--force), and never one in use", e.Path)
}

// RestoreError is Litestream failing to restore, with the last lines it
// wrote.
type RestoreError struct {
	URL string
	Log string
	Err error
}

func (e *RestoreError) Error() string {
	msg := fmt.Sprintf("restore from %s: litestream: %v", e.URL, e.Err)
	if e.Log != "" {
		msg += ": " + e.Log
	}
	return msg
}

func (e *RestoreError) Unwrap() error { return e.Err }

// Restore writes the ledger the replica at rawURL holds, as of its last
// replicated point, to dbPath: one consistent SQLite file (Litestream
// applies only whole transactions). It is written in a private folder beside
// dbPath, given mode 0600 and then moved, so dbPath is never half written
// nor readable by others; an
// existing dbPath is refused (ExistsError) unless opt.Force, which also
// removes dbPath's stale -wal and -shm files (they belong to the old file
// and would damage the new one).
func Restore(ctx context.Context, rawURL, dbPath string, opt RestoreOptions) error {
	t, err := ParseURL(rawURL)
	if err != nil {
		return err
	}
	if opt.Binary == "" {
		return &NoBinaryError{}
	}
	db, err := filepath.Abs(dbPath)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(filepath.Dir(db)); err != nil || !fi.IsDir() {
		return fmt.Errorf("restore to %s: no folder %s", dbPath, filepath.Dir(dbPath))
	}
	if !opt.Force {
		if _, err := os.Lstat(db); err == nil {
			return &ExistsError{Path: dbPath}
		}
	}
	if t.Scheme == "file" {
		if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
			return &BadURLError{URL: rawURL, Reason: "no such folder: nothing was ever replicated there"}
		}
	}
	dir, cfg, err := writeConfig(db, t, opt.SFTP, 0, "")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// Litestream creates its output with the umask's mode (0644 as a
	// rule): it writes into a private folder beside dbPath (same file
	// system: the rename is atomic), and the file gets the ledger's 0600
	// before it is moved into place
	work, err := os.MkdirTemp(filepath.Dir(db), "."+filepath.Base(db)+".restore-")
	if err != nil {
		return fmt.Errorf("restore to %s: %w", dbPath, err)
	}
	defer os.RemoveAll(work)
	tmp := filepath.Join(work, filepath.Base(db))
	cleanTmp := func() { os.RemoveAll(work) }
	var log tailBuffer
	cmd := exec.CommandContext(ctx, opt.Binary, "restore", "-config", cfg, "-no-expand-env", "-o", tmp, db)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Run(); err != nil {
		cleanTmp()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &RestoreError{URL: t.URL, Log: log.last(), Err: err}
	}
	if _, err := os.Stat(tmp); err != nil {
		cleanTmp()
		return &RestoreError{URL: t.URL, Log: log.last(), Err: errors.New("wrote no database: is the replica empty?")}
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		cleanTmp()
		return fmt.Errorf("restore to %s: %w", dbPath, err)
	}
	if opt.Force {
		for _, s := range []string{"-wal", "-shm"} {
			if err := os.Remove(db + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
				cleanTmp()
				return fmt.Errorf("restore to %s: %w", dbPath, err)
			}
		}
		if err := os.Rename(tmp, db); err != nil {
			cleanTmp()
			return fmt.Errorf("restore to %s: %w", dbPath, err)
		}
	} else {
		// a link fails when dbPath appeared meanwhile: never overwritten
		if err := os.Link(tmp, db); err != nil {
			cleanTmp()
			if errors.Is(err, fs.ErrExist) {
				return &ExistsError{Path: dbPath}
			}
			return fmt.Errorf("restore to %s: %w", dbPath, err)
		}
	}
	cleanTmp()
	return nil
}

// tailBuffer keeps the last bytes Litestream wrote, for an error.
type tailBuffer struct{ b []byte }

const tailMax = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append([]byte(nil), t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// last is the last non-empty line.
func (t *tailBuffer) last() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
