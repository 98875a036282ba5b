package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
)

// validLines passes on the lines of r that are JSON (MCP's stdio framing is
// one JSON-RPC message per line) and reports every other line to bad by
// its number, instead of handing it to the SDK, whose connection ends at
// the first line it cannot parse. Blank lines are dropped.
type validLines struct {
	r    *bufio.Reader
	bad  func(line int)
	line int
	buf  []byte // the rest of the current line
	err  error
}

// ValidLines returns a reader of r's JSON lines (see validLines); bad is
// called with the number of each line skipped.
func ValidLines(r io.Reader, bad func(line int)) io.ReadCloser {
	return &validLines{r: bufio.NewReaderSize(r, 64<<10), bad: bad}
}

func (v *validLines) Read(p []byte) (int, error) {
	for len(v.buf) == 0 {
		if v.err != nil {
			return 0, v.err
		}
		line, err := v.r.ReadBytes('\n')
		v.err = err
		if len(line) == 0 {
			continue
		}
		v.line++
		msg := bytes.TrimSpace(line)
		switch {
		case len(msg) == 0:
		case json.Valid(msg):
			v.buf = append(msg, '\n')
		default:
			v.bad(v.line)
		}
	}
	n := copy(p, v.buf)
	v.buf = v.buf[n:]
	return n, nil
}

func (v *validLines) Close() error { return nil }
