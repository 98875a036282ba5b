// Package ndjson reads and writes newline-delimited JSON records.
//
// The reader takes lines of any length up to MaxLine (far above any record
// a filter writes: a line over it is reported as a *LineError and skipped
// without being held in memory, so a hostile stream cannot make a filter
// buffer gigabytes), skips blank lines, reports malformed lines with their
// line number without stopping, and accepts a bare line
// (a URL or a path; anything that is not JSON) as a record with only its
// url set, for the filter to judge. The writer uses one
// encoder without HTML escaping and flushes after every record, so records
// stream through pipes.
package ndjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"

	"github.com/linkledger/linkledger/lib/record"
)

// MaxLine is the longest input line a Reader takes: 64 MiB. The largest
// records the filters write are ll-fetch's, a body of at most --max-bytes
// (25 MiB by default; 33 MiB as base64), so this leaves room for a larger
// --max-bytes while bounding what one line can cost.
const MaxLine = 64 << 20

// ErrLineTooLong is the error of a *LineError for a line over the cap.
var ErrLineTooLong = errors.New("line too long")

// Reader reads records one line at a time.
type Reader struct {
	br      *bufio.Reader
	line    int
	maxLine int
}

// NewReader returns a Reader on r that takes lines up to MaxLine bytes.
func NewReader(r io.Reader) *Reader { return NewReaderMax(r, MaxLine) }

// NewReaderMax returns a Reader on r that takes lines up to max bytes.
func NewReaderMax(r io.Reader, max int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), maxLine: max}
}

// readLine reads one line (with its newline, if any). A line longer than
// the cap is read to its end and dropped: it returns only its first bytes
// and tooLong.
func (r *Reader) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if !tooLong {
			n := len(buf) + len(chunk)
			if bytes.HasSuffix(chunk, []byte("\n")) {
				n-- // the newline is not part of the line
			}
			if n > r.maxLine {
				tooLong = true
				keep := min(len(chunk), 200)
				buf = append(buf[:min(len(buf), 200)], chunk[:keep]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return buf, tooLong, err
	}
}

// LineError is a malformed input line. The stream goes on after it.
type LineError struct {
	Line int
	Err  error
	Raw  string // the line, cut to 200 bytes
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Record is the error record a filter of the given stage passes on for the
// line: code bad_json, or too_large for a line over the cap.
func (e *LineError) Record(stage string) *record.Record {
	code := record.CodeBadJSON
	if errors.Is(e.Err, ErrLineTooLong) {
		code = record.CodeTooLarge
	}
	return &record.Record{Error: &record.Error{Stage: stage, Code: code, Message: e.Err.Error(), Line: e.Line}}
}

// IsLineError reports whether an error record is one Record made (the
// reader's, already reported on stderr when it was read).
func IsLineError(e *record.Error) bool {
	return e != nil && (e.Code == record.CodeBadJSON || e.Code == record.CodeTooLarge && e.Line > 0 && strings.HasPrefix(e.Message, ErrLineTooLong.Error()))
}

// Next returns the next record and its line number. At the end of input it
// returns io.EOF. A malformed line returns a *LineError; call Next again to
// go on.
func (r *Reader) Next() (*record.Record, int, error) {
	for {
		raw, tooLong, err := r.readLine()
		if len(raw) == 0 && err != nil {
			return nil, r.line, err
		}
		r.line++
		if tooLong {
			return nil, r.line, &LineError{Line: r.line, Err: fmt.Errorf("%w: over %d bytes", ErrLineTooLong, r.maxLine), Raw: cut(raw)}
		}
		line := bytes.TrimSpace(raw)
		if len(line) == 0 {
			if err != nil {
				return nil, r.line, err
			}
			continue
		}
		if line[0] != '{' {
			// A JSON value other than an object is a mistake; a line that
			// only starts like one (a CSV row "Title",https://…, a
			// Markdown link [t](u)) is a bare line for the filter to judge.
			if (line[0] == '[' || line[0] == '"') && json.Valid(line) {
				return nil, r.line, &LineError{Line: r.line, Err: errors.New("not a JSON object"), Raw: cut(line)}
			}
			return &record.Record{URL: string(line)}, r.line, nil
		}
		var rec record.Record
		if jerr := json.Unmarshal(line, &rec); jerr != nil {
			return nil, r.line, &LineError{Line: r.line, Err: jerr, Raw: cut(line)}
		}
		return &rec, r.line, nil
	}
}

func cut(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// Writer writes one JSON value per line and flushes after each.
type Writer struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
}

// Write encodes v as one line and flushes it.
func (w *Writer) Write(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	return w.bw.Flush()
}

// IsClosedPipe reports whether err means the reader of our output went away
// (for example `| head -1`), which is a normal end, not a failure.
func IsClosedPipe(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe)
}
