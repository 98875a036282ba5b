// Package ndjson reads and writes newline-delimited JSON records.
//
// The reader has no line-length cap, skips blank lines, reports malformed
// lines with their line number without stopping, and accepts a bare line
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
	"syscall"

	"github.com/linkledger/linkledger/lib/record"
)

// Reader reads records one line at a time.
type Reader struct {
	br   *bufio.Reader
	line int
}

// NewReader returns a Reader on r.
func NewReader(r io.Reader) *Reader { return &Reader{br: bufio.NewReaderSize(r, 64<<10)} }

// LineError is a malformed input line. The stream goes on after it.
type LineError struct {
	Line int
	Err  error
	Raw  string // the line, cut to 200 bytes
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Next returns the next record and its line number. At the end of input it
// returns io.EOF. A malformed line returns a *LineError; call Next again to
// go on.
func (r *Reader) Next() (*record.Record, int, error) {
	for {
		raw, err := r.br.ReadBytes('\n')
		if len(raw) == 0 && err != nil {
			return nil, r.line, err
		}
		r.line++
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
