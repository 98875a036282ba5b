package remote

// The outbox: the writes (save, annotate, tag) a remote front command
// made while the server was unreachable, kept in a local NDJSON file and
// replayed in order when the server answers again (docs/several-machines.md,
// "Offline: the outbox").
//
// The file holds one entry a line: {"id","verb","args","queued_at"} and,
// for an entry the server refused when it was replayed, "failed". It
// never holds the token. Every change is made under an exclusive flock of
// PATH.lock: an append is one write of one line, fsync'd; a removal
// rewrites the file into PATH.tmp, fsyncs it and renames it over the old
// one, so a reader sees the old file or the new, never half of one. A
// line that does not read as an entry (a command killed mid-write left it
// torn) is reported by line number, never replayed, and set aside into
// PATH.bad at the next rewrite: it never blocks the good entries.

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Bounds of an outbox (Outbox's zero values).
const (
	DefaultOutboxEntries = 10000
	DefaultOutboxBytes   = 16 << 20
)

// Entry is one queued write: the verb and its arguments exactly as they
// would have been sent (Normalize's form), when it was queued, and an id.
type Entry struct {
	ID       string   `json:"id"`
	Verb     string   `json:"verb"`
	Args     []string `json:"args"`
	QueuedAt string   `json:"queued_at"`
	// Failed: the server answered the replay with an error; the entry is
	// kept (listed, never replayed again) until dropped.
	Failed *Failure `json:"failed,omitempty"`
}

// Failure is the server's answer to a replay that did not succeed.
type Failure struct {
	At       string `json:"at"`
	ExitCode int    `json:"exit_code,omitempty"`
	Status   int    `json:"status,omitempty"`
	Message  string `json:"message"`
}

// BadLine is a line of the file that is not an entry.
type BadLine struct {
	Line int
	// Torn: the last line, without its newline (a write cut short).
	Torn bool
	Err  error
}

func (b BadLine) String() string {
	if b.Torn {
		return fmt.Sprintf("line %d is torn (a command was stopped while writing it): never replayed", b.Line)
	}
	return fmt.Sprintf("line %d is not an outbox entry (%v): never replayed", b.Line, b.Err)
}

// Outbox is one outbox file.
type Outbox struct {
	Path string
	// Bounds (0: the Default above).
	MaxEntries int
	MaxBytes   int64
}

// FullError is an entry refused because the outbox is at its bound.
type FullError struct {
	Path           string
	Entries, Limit int
	Bytes, Max     int64
}

func (e *FullError) Error() string {
	return fmt.Sprintf("the outbox %s is full (%d entries, %d bytes; at most %d entries and %d bytes): nothing more is queued", e.Path, e.Entries, e.Bytes, e.Limit, e.Max)
}

// ErrNoEntry is an id the outbox does not hold.
var ErrNoEntry = errors.New("no such outbox entry")

func (o *Outbox) maxEntries() int {
	if o.MaxEntries > 0 {
		return o.MaxEntries
	}
	return DefaultOutboxEntries
}

func (o *Outbox) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultOutboxBytes
}

// Waiting counts the entries not failed.
func Waiting(es []Entry) int {
	n := 0
	for _, e := range es {
		if e.Failed == nil {
			n++
		}
	}
	return n
}

// newID is an entry id: ob_ and 16 random hex digits.
func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "ob_" + hex.EncodeToString(b[:]), nil
}

// mkdir makes the outbox's directory, mode 0700, when it is missing.
func (o *Outbox) mkdir() error {
	return os.MkdirAll(filepath.Dir(o.Path), 0o700)
}

// Append queues verb with args and returns the entry and the entries
// then waiting. Over the bounds it returns a *FullError and writes
// nothing.
func (o *Outbox) Append(verb string, args []string, now time.Time) (Entry, int, error) {
	id, err := newID()
	if err != nil {
		return Entry{}, 0, err
	}
	e := Entry{ID: id, Verb: verb, Args: args, QueuedAt: now.UTC().Format(time.RFC3339)}
	if e.Args == nil {
		e.Args = []string{}
	}
	line, err := json.Marshal(e)
	if err != nil {
		return Entry{}, 0, err
	}
	line = append(line, '\n')
	if err := o.mkdir(); err != nil {
		return Entry{}, 0, err
	}
	unlock, err := lockFile(o.Path+".lock", true)
	if err != nil {
		return Entry{}, 0, err
	}
	defer unlock()
	f, err := os.OpenFile(o.Path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return Entry{}, 0, err
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return Entry{}, 0, err
	}
	data, err := io.ReadAll(io.LimitReader(f, o.maxBytes()+1))
	if err != nil {
		return Entry{}, 0, err
	}
	entries, _ := parse(data)
	if len(entries) >= o.maxEntries() || int64(len(data)+len(line)) > o.maxBytes() {
		return Entry{}, 0, &FullError{Path: o.Path, Entries: len(entries), Limit: o.maxEntries(), Bytes: int64(len(data)), Max: o.maxBytes()}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// a torn last line stays a line of its own: the new entry is
		// never glued to it
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		return Entry{}, 0, err
	}
	if err := f.Sync(); err != nil {
		return Entry{}, 0, err
	}
	return e, Waiting(entries) + 1, nil
}

// Read returns the entries in order and the lines that are not entries.
// A missing file is an empty outbox.
func (o *Outbox) Read() ([]Entry, []BadLine, error) {
	if _, err := os.Stat(o.Path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil // nothing made, not even the lock file
	}
	unlock, err := lockFile(o.Path+".lock", false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil // no directory: no outbox
	}
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	data, err := o.readFile()
	if err != nil {
		return nil, nil, err
	}
	es, bad := parse(data)
	return es, bad, nil
}

func (o *Outbox) readFile() ([]byte, error) {
	f, err := os.Open(o.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// the bound is checked on append; a file grown past twice the bound
	// (by hand, by another program) is not read at all, rather than read
	// in part: a rewrite (Update) of a part would lose the rest
	limit := 2 * o.maxBytes()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, fmt.Errorf("outbox %s is over %d bytes, more than linkledger writes: not read and not changed; move it aside", o.Path, limit)
	}
	return data, err
}

// parse reads data's lines: the entries, and the lines that are not.
func parse(data []byte) ([]Entry, []BadLine) {
	var es []Entry
	var bad []BadLine
	n := 0
	for len(data) > 0 {
		n++
		line, rest, found := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !found {
			bad = append(bad, BadLine{Line: n, Torn: true})
			break
		}
		var e Entry
		err := json.Unmarshal(line, &e)
		if err == nil && (e.ID == "" || e.Verb == "" || !Writes(e.Verb)) {
			err = errors.New("no id or no verb that writes")
		}
		if err != nil {
			bad = append(bad, BadLine{Line: n, Err: err})
			continue
		}
		es = append(es, e)
	}
	return es, bad
}

// Update rewrites the outbox with what change makes of its entries, under
// the lock; lines that are not entries are appended to PATH.bad (never
// lost) and left out of the new file. It returns the lines set aside.
func (o *Outbox) Update(change func([]Entry) ([]Entry, error)) ([]BadLine, error) {
	if err := o.mkdir(); err != nil {
		return nil, err
	}
	unlock, err := lockFile(o.Path+".lock", true)
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := o.readFile()
	if err != nil {
		return nil, err
	}
	es, bad := parse(data)
	es, err = change(es)
	if err != nil {
		return nil, err
	}
	if len(bad) > 0 {
		if err := o.setAside(data); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	for _, e := range es {
		b, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return bad, writeAtomic(o.Path, buf.Bytes())
}

// setAside appends the lines of data that are not entries to PATH.bad.
func (o *Outbox) setAside(data []byte) error {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if es, _ := parse(append(append([]byte{}, line...), '\n')); len(es) == 1 {
			continue
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	f, err := os.OpenFile(o.Path+".bad", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(out.Bytes()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeAtomic replaces path with data: a temporary file, fsync'd, renamed
// over it, and the directory fsync'd.
func writeAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove deletes the entry id (waiting or failed).
func (o *Outbox) Remove(id string) error {
	_, err := o.Update(func(es []Entry) ([]Entry, error) {
		for i, e := range es {
			if e.ID == id {
				return append(es[:i:i], es[i+1:]...), nil
			}
		}
		return nil, ErrNoEntry
	})
	return err
}

// Fail marks the entry id failed.
func (o *Outbox) Fail(id string, f Failure) error {
	_, err := o.Update(func(es []Entry) ([]Entry, error) {
		for i := range es {
			if es[i].ID == id {
				es[i].Failed = &f
				return es, nil
			}
		}
		return nil, ErrNoEntry
	})
	return err
}
