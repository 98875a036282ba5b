package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// How a database location was chosen (DBLocation.Source).
const (
	DBFromFlag    = "--db"
	DBFromEnv     = "LINKLEDGER_DB"
	DBFromProject = ".linkledger/ found upward"
	DBFromDefault = "the default location"
)

// DBLocation is where the database is and how that was decided, so an
// error can say both.
type DBLocation struct {
	Path   string
	Source string // DBFromFlag, DBFromEnv, DBFromProject or DBFromDefault
}

// how says in words how the location was chosen.
func (l DBLocation) how() string {
	switch l.Source {
	case DBFromFlag:
		return "given with --db"
	case DBFromEnv:
		return "given by LINKLEDGER_DB"
	case DBFromProject:
		return "the .linkledger/ folder found upward from the working directory"
	default:
		return "the default location; --db or LINKLEDGER_DB choose another"
	}
}

// LocateDB returns the database location: the --db flag (whose value comes
// from LINKLEDGER_DB when the flag is not given: a value equal to
// LINKLEDGER_DB counts as coming from it), else a .linkledger/linkledger.db
// found upward from the working directory (like git), else
// $XDG_DATA_HOME/linkledger/linkledger.db (XDG_DATA_HOME defaults to
// ~/.local/share).
func LocateDB(flag string, env Env) (DBLocation, error) {
	envDB := env.Getenv("LINKLEDGER_DB")
	if err := notURL(flag, envDB, env.Getenv("LINKLEDGER_URL")); err != nil {
		return DBLocation{}, err
	}
	switch {
	case flag != "" && flag == envDB:
		return DBLocation{Path: flag, Source: DBFromEnv}, nil
	case flag != "":
		return DBLocation{Path: flag, Source: DBFromFlag}, nil
	case envDB != "":
		return DBLocation{Path: envDB, Source: DBFromEnv}, nil
	}
	if wd, err := env.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			p := filepath.Join(dir, ".linkledger")
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return DBLocation{Path: filepath.Join(p, "linkledger.db"), Source: DBFromProject}, nil
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	data := env.Getenv("XDG_DATA_HOME")
	if data == "" {
		home := env.Getenv("HOME")
		if home == "" {
			return DBLocation{}, errors.New("cannot find a database: set --db or LINKLEDGER_DB (no HOME)")
		}
		data = filepath.Join(home, ".local", "share")
	}
	return DBLocation{Path: filepath.Join(data, "linkledger", "linkledger.db"), Source: DBFromDefault}, nil
}

// OpenReader opens an existing database for a command that reads it
// (ll-find, ll-brief) or changes existing items only (linkledger retry). A
// missing database is never created: it is a fatal error (exit 1) that
// says where the command looked, how that place was chosen, and how to
// start one.
func OpenReader(ctx context.Context, loc DBLocation, opts ledger.OpenOptions) (*ledger.Ledger, error) {
	opts.MustExist = true
	st, err := ledger.Open(ctx, loc.Path, opts)
	if errors.Is(err, spec.ErrNoDatabase) {
		return nil, &ExitError{Code: ExitFatal, Err: &hintError{
			err:  fmt.Errorf("no database at %s (%s)", loc.Path, loc.how()),
			hint: "save a first link with: linkledger save URL"}}
	}
	if err != nil {
		return nil, openError(loc, err)
	}
	return st, nil
}

// OpenWriter opens the database for a command that adds items (ll-save,
// ll-index), creating the file when it is missing, and its missing
// folders, wherever the location came from (--db, LINKLEDGER_DB, the
// default), as mkdir -p would: `LINKLEDGER_DB=~/notes/links.db` works on
// a first run. The folders it creates are the owner's only (0700); a
// folder that cannot be made (a file in the way, no permission) is a
// fatal error naming it.
func OpenWriter(ctx context.Context, loc DBLocation, opts ledger.OpenOptions) (*ledger.Ledger, error) {
	dir := filepath.Dir(loc.Path)
	if _, err := os.Stat(dir); err != nil {
		// only the owner may read a store: 0700 on the folders
		// linkledger creates (a folder the user made keeps its mode)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, &ExitError{Code: ExitFatal, Err: &hintError{
				err:  fmt.Errorf("cannot create the database %s: cannot create its folder %s (%s): %v", loc.Path, dir, loc.how(), pathErr(err)),
				hint: "choose another place with --db or LINKLEDGER_DB"}}
		}
	}
	st, err := ledger.Open(ctx, loc.Path, opts)
	if err != nil {
		return nil, openError(loc, err)
	}
	return st, nil
}

// pathErr is a folder-creation error without Go's "mkdir PATH:" prefix.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %v", pe.Path, pe.Err)
	}
	return err
}

// openError adds the database path to a store.Open error, unless the
// error names the file itself (store.NotLedgerError, which has its own
// hint).
func openError(loc DBLocation, err error) error { return DBError(loc.Path, err) }

// DBError prefixes an error from opening the database at path with the
// path, unless the error already names it (a file that is not a
// linkledger database).
func DBError(path string, err error) error {
	var nl *spec.NotLedgerError
	if errors.As(err, &nl) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// hintError is an error with the next thing to try (a Hinter).
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }
func (e *hintError) Hint() string  { return e.hint }

// remoteHint names the command that talks to a server.
const remoteHint = "the filters work on a local ledger file only; the front command talks to a server: LINKLEDGER_URL and LINKLEDGER_TOKEN with linkledger save, find, brief, show, annotate, status, tag or related (docs/cli.md)"

// notURL refuses a ledger named by a URL (--db or LINKLEDGER_DB), and
// LINKLEDGER_URL with no local file named: a local command would
// otherwise work on (or create) another ledger than the one meant.
func notURL(flag, envDB, serverURL string) error {
	named := []struct{ name, val string }{{"LINKLEDGER_DB", envDB}}
	if flag != envDB {
		named = append(named, struct{ name, val string }{"--db", flag})
	}
	for _, v := range named {
		if i := strings.Index(v.val, "://"); i > 0 && !strings.ContainsAny(v.val[:i], "/\\.") {
			return UsageHint(remoteHint, "%s %s: a URL, not a ledger file", v.name, v.val)
		}
	}
	if serverURL != "" && flag == "" && envDB == "" {
		return UsageHint(remoteHint+"; give --db FILE (or LINKLEDGER_DB) for a local ledger",
			"LINKLEDGER_URL is set, and this command works on a local ledger file only")
	}
	return nil
}
