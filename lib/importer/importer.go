// Package importer reads the export files of other link tools (bookmark
// HTML, browser profiles, Pocket, Instapaper, ...) into ll-save records: one
// record per saved link with its url, title, tags, note, highlights, the
// time it was first saved (saved_at) and the importer (via). It does no
// canonicalization and touches no database (Firefox's places.sqlite is read
// through lib/store); ll-save applies its rules to what it writes.
//
// Each format lives in its own file. A reader calls Sink.Link for every
// link and Sink.Bad for every row it cannot read (with its line), and goes
// on with the next row. The documented layouts each reader follows, and what
// it keeps, are in docs/import-export.md.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// Status tags: read/archived and favourite/starred state of the source
// tool is kept as these tags.
const (
	TagRead    = "read"
	TagStarred = "starred"
)

// Link is one saved link as a format carries it.
type Link struct {
	URL        string
	Title      string
	Note       string // notes and descriptions, joined by blank lines
	Tags       []string
	Saved      time.Time // when it was first saved; zero when unknown
	Highlights []Highlight
	Line       int // where it starts in its file (0 when the format has no lines)
}

// Highlight is a passage the user marked, with their note on it.
type Highlight struct {
	Text    string
	Note    string
	Created time.Time
}

// Sink receives what a reader finds.
type Sink struct {
	// Link is called for every link, in file order.
	Link func(*Link) error
	// Bad is called for every row that cannot be read; line is 0 when the
	// format has no lines.
	Bad func(line int, msg string) error
	// Record is called for a record passed on whole (a linkledger export,
	// which ll-save restores as it is).
	Record func(*record.Record) error
	// MaxBytes caps what a reader unpacks from one file (the sum of the
	// zip members it reads); 0 is DefaultMaxBytes. The caller caps the
	// file itself (ReadFile).
	MaxBytes int64
	// Notice, when set, is told what the user should know that is not
	// about a row of the file (a stale temporary copy removed).
	Notice func(msg string)

	unzipped int64 // bytes of zip members read so far
}

// Format is one export format.
type Format struct {
	Name string // as --format takes it
	Tool string // the importer recorded in the history: import:<Tool>
	// Read reads a whole file. It returns an error only when the file as
	// a whole is unusable (not this format, no URL column).
	Read func(data []byte, s *Sink) error
	// ReadPath, when set, is used instead of Read for a file named on the
	// command line (Firefox: its -wal file is read too).
	ReadPath func(path string, data []byte, s *Sink) error
	Doc      string // one line for --help
}

// Formats are the formats, by name.
var Formats = map[string]*Format{}

func register(f *Format) *Format {
	Formats[f.Name] = f
	return f
}

// Names lists the format names, sorted.
func Names() []string {
	var out []string
	for n := range Formats {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ErrUnknown is returned by Detect when no format fits.
var ErrUnknown = errors.New("format not recognised")

// Detect guesses a file's format from its content (and, for Markdown, its
// name).
func Detect(name string, data []byte) (*Format, error) {
	f, err := detect(name, data)
	if err == nil && f == nil {
		err = ErrUnknown
	}
	return f, err
}

func detect(name string, data []byte) (*Format, error) {
	head := data
	if len(head) > 4096 {
		head = head[:4096]
	}
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	trim := bytes.TrimSpace(head)
	lower := bytes.ToLower(trim)
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return detectZip(data)
	case bytes.HasPrefix(head, []byte("SQLite format 3\x00")):
		return Formats["firefox"], nil
	case bytes.Contains(lower, []byte("<!doctype netscape-bookmark-file")):
		return Formats["netscape"], nil
	case bytes.Contains(lower, []byte("<title>pocket export</title>")):
		return Formats["pocket-html"], nil
	case bytes.HasPrefix(trim, []byte("{")) && bytes.Contains(head, []byte(`"roots"`)):
		return Formats["chrome"], nil
	case bytes.HasPrefix(trim, []byte("{")) && bytes.Contains(head, []byte(`"id":"ll_`)):
		return Formats["linkledger"], nil
	case bytes.HasPrefix(trim, []byte("<")) && bytes.Contains(lower, []byte("<a ")) && bytes.Contains(lower, []byte("href=")):
		return Formats["netscape"], nil
	}
	if f := detectCSV(head); f != nil {
		return f, nil
	}
	if f := detectJSON(trim); f != nil {
		return f, nil
	}
	ln := strings.ToLower(name)
	if strings.HasSuffix(ln, ".md") || strings.HasSuffix(ln, ".markdown") || bytes.Contains(head, []byte("](")) {
		return Formats["markdown"], nil
	}
	if looksLikeURLList(head) {
		return Formats["urls"], nil
	}
	return nil, ErrUnknown
}

// detectJSON is set by formats read from JSON arrays or objects.
var jsonDetectors []func(trim []byte) *Format

func detectJSON(trim []byte) *Format {
	for _, d := range jsonDetectors {
		if f := d(trim); f != nil {
			return f
		}
	}
	return nil
}

// csvHeaders maps a format to the header columns that identify it.
var csvHeaders []struct {
	f    *Format
	cols []string
}

func detectCSV(head []byte) *Format {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	cols := map[string]bool{}
	for _, c := range strings.Split(strings.TrimSpace(string(line)), ",") {
		cols[normCol(c)] = true
	}
	for _, h := range csvHeaders {
		ok := true
		for _, c := range h.cols {
			if !cols[c] {
				ok = false
				break
			}
		}
		if ok {
			return h.f
		}
	}
	return nil
}

func normCol(c string) string {
	return strings.ToLower(strings.TrimSpace(strings.Trim(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")), `"`)))
}

// Record turns a link into the ll-save record of importer tool.
func (l *Link) Record(tool string) *record.Record {
	rec := &record.Record{
		URL:   strings.TrimSpace(l.URL),
		Title: cleanText(l.Title),
		Note:  strings.TrimSpace(l.Note),
		Via:   "import:" + tool,
	}
	seen := map[string]bool{}
	for _, t := range l.Tags {
		t = CleanTag(t)
		if t != "" && !seen[t] && len(rec.Tags) < maxTags {
			seen[t] = true
			rec.Tags = append(rec.Tags, t)
		}
	}
	if !l.Saved.IsZero() {
		rec.SavedAt = record.FormatTime(l.Saved)
	}
	for _, h := range l.Highlights {
		text := strings.TrimSpace(h.Text)
		if text == "" {
			continue
		}
		a := record.Annotation{Type: record.AnnHighlight, Text: text, Actor: "human"}
		if !h.Created.IsZero() {
			a.CreatedAt = record.FormatTime(h.Created)
		}
		rec.Annotations = append(rec.Annotations, a)
		if n := strings.TrimSpace(h.Note); n != "" {
			// the note on a highlight quotes it, so it reads on its own
			na := record.Annotation{Type: record.AnnNote, Text: n + "\n\n> " + firstLine(text, 200), Actor: "human", CreatedAt: a.CreatedAt}
			rec.Annotations = append(rec.Annotations, na)
		}
	}
	return rec
}

const (
	maxTags     = 256 // ll-save's limit per record
	maxTagBytes = 100 // ll-save's limit per tag
)

// CleanTag makes a folder or tag name of another tool a linkledger tag:
// trimmed, commas and control characters made spaces, runs of spaces
// made one, cut at 100 bytes.
func CleanTag(t string) string {
	t = strings.Map(func(r rune) rune {
		if r == ',' || unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, t)
	t = strings.Join(strings.Fields(t), " ")
	if len(t) > maxTagBytes {
		t = t[:maxTagBytes]
		for !utf8.ValidString(t) {
			t = t[:len(t)-1]
		}
		t = strings.TrimSpace(t)
	}
	return strings.ToLower(t)
}

func cleanText(s string) string { return strings.Join(strings.Fields(s), " ") }

func firstLine(s string, max int) string {
	s, _, _ = strings.Cut(s, "\n")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}

// checkURL says why a link's URL cannot be saved ("" when it can): empty,
// or a scheme other than http, https or file (javascript:, chrome:, ...).
func checkURL(u string) string {
	u = strings.TrimSpace(u)
	if u == "" {
		return "no url"
	}
	if strings.ContainsFunc(u, unicode.IsSpace) {
		return fmt.Sprintf("url %s has spaces", record.Quote(u))
	}
	p, err := url.Parse(u)
	if err != nil {
		return fmt.Sprintf("url %s: %v", record.Quote(u), errors.Unwrap(err))
	}
	switch strings.ToLower(p.Scheme) {
	case "http", "https", "file", "":
		return ""
	}
	return fmt.Sprintf("url %s: scheme %s is not a web link", record.Quote(u), p.Scheme)
}

// emit checks a link's URL and hands it to the sink, or reports it bad.
func emit(s *Sink, l *Link) error {
	if why := checkURL(l.URL); why != "" {
		return s.Bad(l.Line, why)
	}
	if err := dropLongHighlights(s, l, ""); err != nil {
		return err
	}
	return s.Link(l)
}

// unixTime reads a Unix time in seconds, milliseconds or microseconds
// (tools differ; the size tells). Zero, negative and unreadable values give
// the zero time.
func unixTime(v string) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 {
		return time.Time{}
	}
	switch {
	case f > 1e17: // nanoseconds
		return time.Unix(0, int64(f)).UTC()
	case f > 1e14: // microseconds
		return time.UnixMicro(int64(f)).UTC()
	case f > 1e11: // milliseconds
		return time.UnixMilli(int64(f)).UTC()
	}
	return time.Unix(int64(f), 0).UTC()
}

// parseTime reads the date forms export files use: RFC 3339 (with or
// without fractional seconds or zone), "2006-01-02 15:04:05" (UTC), or a
// Unix time.
func parseTime(v string) time.Time {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05-07:00", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC()
		}
	}
	return unixTime(v)
}
