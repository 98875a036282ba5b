// Package store is linkledger's SQLite/FTS5 store: schema, migrations and
// every query. It is the only package that imports the SQLite driver.
//
// Connection settings live in the DSN so every pooled connection gets them:
// WAL journal, a busy timeout, foreign keys, synchronous=NORMAL and
// BEGIN IMMEDIATE for transactions (a writer takes the write lock up front
// instead of failing to upgrade a read lock). Writers keep each
// transaction short and never hold one while waiting on input or output, so
// several ll-* processes can write one file at once.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/linkledger/linkledger/lib/localfile"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Options are the store's settings.
type Options struct {
	// BusyTimeout is how long a connection waits for a lock (default 30s).
	BusyTimeout time.Duration
	// ReadOnly opens the database for reading only (no migration; the
	// schema must be current).
	ReadOnly bool
	// MustExist opens an existing database only: a missing file gives
	// ErrNoDatabase and is not created. Readers (ll-find, ll-brief) and
	// writers that change existing items only (linkledger retry) set it.
	MustExist bool
	// Now returns the current time (tests set it).
	Now func() time.Time
	// immutable adds immutable=1 to a ReadOnly DSN: SQLite then reads
	// the file without locks or a -shm file, the last resort of a reader
	// in a folder it cannot write (see readerFallback).
	immutable bool
	// PagePool is the number of page-cache slots (4 KB pages) to
	// preallocate for the whole process, prefaulted, before its first
	// connection: it spares a short-lived reader a page fault per page it
	// reads (see pagecache_linux.go). 0: none. Only the first Open of a
	// process can set it.
	PagePool int
	// Bulk sets the store up for a bulk writer (ll-save --batch, an
	// import), whose transactions change pages all over the item, tag,
	// event and search indexes: a page cache of BulkCacheKiB per
	// connection (cache_size in the DSN) instead of SQLite's 2 MiB,
	// preallocated as a PagePool unless one is given, and sub-journals in
	// memory (useMemorySubjournal). The last two are the process's and
	// only the first Open of a process sets them.
	Bulk bool
	// ReadPolicies reads the stored decay policy in open's one check
	// statement, for a process that resolves it right after opening
	// (ll-find, ll-brief): the first StoredDecay then runs no statement
	// of its own; later ones read the table again.
	ReadPolicies bool
	// MemorySubjournal keeps sub-journals in memory for the process
	// (useMemorySubjournal; Bulk does too): for a long-running process
	// that imports in bulk now and then through Store.Bulk (linkledger
	// ui). Only the first Open of a process sets it.
	MemorySubjournal bool
}

// BulkCacheKiB is a bulk writer's page cache (Options.Bulk): 64 MiB holds
// the indexes of a ledger of ~50,000 items.
const BulkCacheKiB = 64 << 10

// Store is an open database.
type Store struct {
	db *sqlx.DB
	// semDB is the semantic side's pool (startSemantic)
	semDB *sqlx.DB
	now   func() time.Time
	path  string
	// opened holds the decay setting read at open (Options.ReadPolicies)
	// until the first StoredDecay takes it.
	opened *openedSetting
	// openedEmbed holds the embeddings endpoint setting read at open
	// (Options.ReadPolicies), for the first StoredEmbed
	openedEmbed *openedSetting
	// release ends the process's hold on the file (localfile.Hold)
	release func()
}

// ErrNoFTS5 says the binary was built without the sqlite_fts5 build tag.
var ErrNoFTS5 = errors.New("this binary was built without SQLite FTS5: rebuild with `go build -tags sqlite_fts5` (make build does)")

// ErrNewerSchema says the database was written by a newer linkledger.
var ErrNewerSchema = errors.New("database schema is newer than this linkledger: upgrade linkledger")

// DSN returns the driver DSN for path with every connection setting.
func DSN(path string, opts Options) string { return dsn(path, opts) }

// busyTimeout is opts.BusyTimeout or its default.
func busyTimeout(opts Options) time.Duration {
	if opts.BusyTimeout == 0 {
		return 30 * time.Second
	}
	return opts.BusyTimeout
}

func dsn(path string, opts Options) string {
	q := url.Values{}
	if !opts.ReadOnly {
		// a read-only connection cannot switch the journal, and needs
		// not: it reads a WAL database as one
		q.Set("_journal_mode", "WAL")
	}
	q.Set("_busy_timeout", strconv.FormatInt(busyTimeout(opts).Milliseconds(), 10))
	q.Set("_foreign_keys", "on")
	q.Set("_synchronous", "NORMAL")
	q.Set("_txlock", "immediate")
	if opts.Bulk {
		q.Set("_cache_size", strconv.Itoa(-BulkCacheKiB))
	}
	switch {
	case opts.ReadOnly:
		q.Set("mode", "ro")
		if opts.immutable {
			q.Set("immutable", "1")
		}
	case opts.MustExist:
		q.Set("mode", "rw") // never create the file
	}
	return "file:" + escapePath(path) + "?" + q.Encode()
}

func escapePath(p string) string {
	// '?' and '#' would end the path part of a file: URI.
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// Open opens the database at path and brings its schema up to date.
// Opening a current database writes nothing. A missing file is created
// (unless opts.MustExist or opts.ReadOnly), readable by its owner only
// (0600; SQLite gives its -wal and -shm files the same mode), but never a
// missing folder: which folders may be created is the command layer's
// decision. A file that is not a linkledger database is refused
// (NotLedgerError) before anything writes to it.
//
// Several processes may open a new file at once: the first connection's
// switch to WAL can fail with SQLITE_BUSY without waiting (SQLite returns
// it at once where waiting could deadlock), so Open starts over on a busy
// error until the busy timeout has passed.
//
// A reader (MustExist or ReadOnly) that cannot open the file for writing
// (a read-only folder: no -shm file can be made) falls back to a
// read-only connection, and then to an immutable one (readerFallback).
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if !fts5Built {
		return nil, ErrNoFTS5
	}
	if path == "" {
		return nil, errors.New("no database path")
	}
	if opts.MustExist || opts.ReadOnly {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoDatabase
		}
	} else if dir := filepath.Dir(path); dir != "" {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("folder %s does not exist", dir)
		}
		if err := createFile(path); err != nil {
			return nil, err
		}
	}
	if opts.Bulk || opts.MemorySubjournal {
		useMemorySubjournal()
	}
	if opts.Bulk {
		if opts.PagePool == 0 {
			opts.PagePool = BulkCacheKiB / 4
		}
	}
	usePagePool(opts.PagePool)
	if err := registerVectorFuncs(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(busyTimeout(opts))
	wait := time.Millisecond
	for {
		s, err := open(ctx, path, opts)
		for err != nil && (opts.MustExist || opts.ReadOnly) {
			next, ok := readerFallback(opts, err)
			if !ok {
				break
			}
			opts = next
			s, err = open(ctx, path, opts)
		}
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return s, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(wait + time.Duration(rand.Int64N(int64(wait)))):
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// createFile creates a missing database file with mode 0600 (an existing
// one keeps its mode), so the umask never makes a store readable by
// others. SQLite would create it with 0644 less the umask.
// A file this process already holds open exists: it is not opened again
// (closing that descriptor would drop the process's SQLite locks).
func createFile(path string) error {
	if _, err := localfile.Unheld(path, func() error { return createRaw(path, 0o600) }); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	return nil
}

// readerFallback returns the next, more read-only way for a reader to
// open the database after err, and false when err is not about writing:
// first a read-only connection (mode=ro: SQLite reads the WAL through an
// existing -shm file, or a private one), then an immutable one (no locks,
// no -shm: a folder nobody can write holds no live WAL writer).
func readerFallback(opts Options, err error) (Options, bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return opts, false
	}
	switch se.Code {
	case sqlite3.ErrCantOpen, sqlite3.ErrReadonly, sqlite3.ErrPerm, sqlite3.ErrAuth:
	default:
		return opts, false
	}
	switch {
	case !opts.ReadOnly:
		opts.ReadOnly = true
	case !opts.immutable:
		opts.immutable = true
	default:
		return opts, false
	}
	return opts, true
}

// open makes one attempt at Open.
func open(ctx context.Context, path string, opts Options) (*Store, error) {
	if err := identify(ctx, path, opts); err != nil {
		return nil, err
	}
	// from its first connection on, no code of this process opens the
	// file outside SQLite (see localfile.Hold)
	release := localfile.Hold(path)
	db, err := sqlx.Open("sqlite3", dsn(path, opts))
	if err != nil {
		release()
		return nil, err
	}
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	// the semantic side of a hybrid search reads on connections of its own
	// pool while the search holds one of db's: drawing both from one pool,
	// four searches at once could each hold one and wait for a second
	sem, err := sqlx.Open("sqlite3", dsn(path, opts))
	if err != nil {
		db.Close()
		release()
		return nil, err
	}
	sem.SetMaxOpenConns(4)
	sem.SetConnMaxIdleTime(time.Minute)
	s := &Store{db: db, semDB: sem, now: opts.Now, path: path, release: release}
	if s.now == nil {
		s.now = time.Now
	}
	// one statement: not worth a goroutine watching ctx (see bounded)
	cur, err := s.checkSettings(context.WithoutCancel(ctx), opts.ReadOnly, opts.ReadPolicies)
	if err != nil {
		s.Close()
		return nil, err
	}
	if err := s.migrate(ctx, opts.ReadOnly, cur); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// checkSettings verifies the DSN settings took effect on a connection and
// returns the schema version (PRAGMA user_version), all in one statement:
// a process that opens a current database runs no other before its own
// queries. A read-only connection keeps the file's journal mode. With
// policies it also reads the stored decay setting (kept in s.opened), or
// notes there is none; a database older than the settings table (it is
// about to be migrated) gets the check alone.
func (s *Store) checkSettings(ctx context.Context, readOnly, policies bool) (int, error) {
	var st struct {
		FK, Version      int
		Journal          string
		Value, At, By    sql.NullString
		EValue, EAt, EBy sql.NullString
	}
	// scanned by hand: sqlx's mapping of a struct costs its reflection
	get := func(q string) error {
		return s.db.QueryRowContext(ctx, q).Scan(&st.FK, &st.Version, &st.Journal, &st.Value, &st.At, &st.By, &st.EValue, &st.EAt, &st.EBy)
	}
	from := `pragma_foreign_keys, pragma_user_version`
	journal := `'' AS journal_mode`
	if !readOnly {
		from += `, pragma_journal_mode`
		journal = `journal_mode`
	}
	q := `SELECT foreign_keys, user_version, ` + journal + `, NULL, NULL, NULL, NULL, NULL, NULL FROM ` + from
	if policies {
		// the decay policy and the embeddings endpoint: both read by
		// every ll-find and ll-brief, so neither costs a statement of
		// its own on the search path
		pq := `SELECT foreign_keys, user_version, ` + journal + `, s.value, s.updated_at, s.updated_by, e.value, e.updated_at, e.updated_by FROM ` + from +
			` LEFT JOIN settings s ON s.key = '` + SettingDecay + `' LEFT JOIN settings e ON e.key = '` + SettingEmbed + `'`
		if err := get(pq); err == nil {
			s.opened, s.openedEmbed = &openedSetting{}, &openedSetting{}
			if st.Value.Valid {
				s.opened.row = &StoredSetting{Key: SettingDecay, Value: st.Value.String, UpdatedAt: st.At.String, UpdatedBy: st.By.String}
			}
			if st.EValue.Valid {
				s.openedEmbed.row = &StoredSetting{Key: SettingEmbed, Value: st.EValue.String, UpdatedAt: st.EAt.String, UpdatedBy: st.EBy.String}
			}
			q = ""
		} else if !strings.Contains(err.Error(), "no such table") {
			return 0, fmt.Errorf("open database: %w", err)
		}
	}
	if q != "" {
		if err := get(q); err != nil {
			return 0, fmt.Errorf("open database: %w", err)
		}
	}
	if st.FK != 1 {
		return 0, errors.New("open database: foreign keys are off")
	}
	if !readOnly && !strings.EqualFold(st.Journal, "wal") {
		return 0, fmt.Errorf("open database: journal mode is %q, want wal", st.Journal)
	}
	return st.Version, nil
}

type migration struct {
	version int
	name    string
	sql     string
}

func migrations() ([]migration, error) {
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", e.Name())
		}
		b, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected number %d", m.name, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion is the schema version this binary writes.
func SchemaVersion() int {
	ms, _ := migrations()
	return len(ms)
}

// migrationCount is the number of embedded migrations (migrations
// checks their names and numbers; a current database needs only the
// count, not their text).
func migrationCount() int {
	entries, _ := migrationFS.ReadDir("migrations")
	return len(entries)
}

// migrationSteps are the Go halves of migrations whose data SQL cannot
// compute, run after the script in its transaction.
var migrationSteps = map[int]func(context.Context, *sqlx.Tx) error{
	14: rebuildAllCodes, // 0014_vector_codes.sql
}

// migrate applies the missing migrations to a database at schema version
// cur, each in its own IMMEDIATE transaction that re-reads user_version,
// so processes opening a new database at once apply each migration
// exactly once.
func (s *Store) migrate(ctx context.Context, readOnly bool, cur int) error {
	if cur == migrationCount() {
		return nil
	}
	ms, err := migrations()
	if err != nil {
		return err
	}
	if cur > len(ms) {
		return ErrNewerSchema
	}
	if cur == len(ms) {
		return nil
	}
	if readOnly {
		return fmt.Errorf("database schema is version %d, want %d: open it once for writing (ll-save or ll-index) to migrate", cur, len(ms))
	}
	for _, m := range ms[cur:] {
		err := s.tx(ctx, func(tx *sqlx.Tx) error {
			var v int
			if err := tx.GetContext(ctx, &v, "PRAGMA user_version"); err != nil {
				return err
			}
			if v >= m.version {
				return nil // another process got there first
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			if step := migrationSteps[m.version]; step != nil {
				if err := step(ctx, tx); err != nil {
					return fmt.Errorf("migration %s: %w", m.name, err)
				}
			}
			if m.version == 1 {
				// a new database is marked linkledger's with its first
				// tables (0007 marks older ones)
				if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// tx runs fn in one transaction (BEGIN IMMEDIATE through the DSN).
func (s *Store) tx(ctx context.Context, fn func(*sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	return runTx(tx, err, fn)
}

// runTx runs fn in tx, just begun (err: it could not begin), and commits
// it, or rolls it back when fn fails.
func runTx(tx *sqlx.Tx, err error, fn func(*sqlx.Tx) error) error {
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// DB returns the connection pool for read queries.
func (s *Store) DB() *sqlx.DB { return s.db }

// Now returns the store's current time in UTC, truncated to seconds.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Second) }

// Path returns the database file the store was opened on (for messages).
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.semDB != nil {
		s.semDB.Close()
	}
	if s.release != nil {
		s.release()
	}
	return err
}

// IsBusy reports whether err is SQLite's "database is locked/busy".
func IsBusy(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked
	}
	return false
}

// IsRetryable reports whether a failed write may succeed when tried again
// later: another process held the lock, or the disk (or the database's
// size limit) was full, which frees up. Driver errors are matched by code.
func IsRetryable(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		switch se.Code {
		case sqlite3.ErrBusy, sqlite3.ErrLocked, sqlite3.ErrFull:
			return true
		case sqlite3.ErrIoErr:
			return se.ExtendedCode == sqlite3.ErrIoErrWrite || se.ExtendedCode == sqlite3.ErrIoErrFsync
		}
	}
	return false
}

// IsConstraint reports whether err is a constraint violation.
func IsConstraint(err error) bool {
	var se sqlite3.Error
	if errors.As(err, &se) {
		return se.Code == sqlite3.ErrConstraint
	}
	return false
}

// IntegrityCheck runs PRAGMA integrity_check and returns its first line
// ("ok" when sound); when that is ok it also runs FTS5's own
// 'integrity-check' on both full-text indexes (the index agrees with its
// content), reporting a failure as the result, not as an error. The FTS5
// check takes the write lock briefly.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	if err := s.db.GetContext(ctx, &res, "PRAGMA integrity_check"); err != nil || res != "ok" {
		return res, err
	}
	for _, t := range []string{"search", "search_cjk"} {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO `+t+`(`+t+`, rank) VALUES ('integrity-check', 1)`); err != nil {
			if IsBusy(err) {
				return "", err
			}
			return "full-text index " + t + ": " + err.Error(), nil
		}
	}
	return res, nil
}
