package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// MaxLineBytes is the longest line (one JSON-RPC message, without its
// newline) the stdio server reads. A longer line is skipped without being
// held in memory and answered with an error; the session goes on. Tool
// arguments are a URL, a query, a note: a few kilobytes at most.
const MaxLineBytes = 4 << 20

// MaxDepth is how deeply a message's objects and arrays may nest. MCP
// messages nest a handful of levels; the SDK ends the session past 1,000.
const MaxDepth = 64

// JSON-RPC 2.0 error codes of the lines the server refuses.
const (
	codeParseError     = -32700 // not JSON
	codeInvalidRequest = -32600 // JSON, but not a JSON-RPC 2.0 message
)

// Framing stands between a client's byte stream and the SDK's stdio
// transport, whose session ends at the first line it cannot decode as a
// JSON-RPC message. Every line is read through a cap (MaxLineBytes) and
// checked; a good one is passed to the SDK, a bad one is answered on the
// output with a JSON-RPC error (the id the line gave when it could be
// read, else null) and reported to Bad, and the session goes on.
// Responses written by the SDK and by Framing share one lock, so each
// output line is whole.
type Framing struct {
	r    *bufio.Reader
	bad  func(line int, why string)
	n    int    // lines read
	line []byte // the current line while it is read
	buf  []byte // the rest of the current good line, for the SDK
	err  error

	mu sync.Mutex
	w  io.Writer
}

// NewFraming returns the framing of the messages read from r, with the
// answers to refused lines (and, through Out, the SDK's messages) written
// to w. bad, when set, is called with the number of each refused line and
// why it was refused.
func NewFraming(r io.Reader, w io.Writer, bad func(line int, why string)) *Framing {
	return &Framing{r: bufio.NewReaderSize(r, 64<<10), w: w, bad: bad}
}

// In is the checked message stream, for the SDK's IOTransport.Reader.
func (f *Framing) In() io.ReadCloser { return framingIn{f} }

// Out is the output, for the SDK's IOTransport.Writer: writes are
// serialized with Framing's own answers; Close leaves w open.
func (f *Framing) Out() io.WriteCloser { return framingOut{f} }

type framingIn struct{ f *Framing }

func (in framingIn) Read(p []byte) (int, error) { return in.f.read(p) }
func (framingIn) Close() error                  { return nil }

type framingOut struct{ f *Framing }

func (out framingOut) Write(p []byte) (int, error) {
	out.f.mu.Lock()
	defer out.f.mu.Unlock()
	return out.f.w.Write(p)
}
func (framingOut) Close() error { return nil }

func (f *Framing) read(p []byte) (int, error) {
	for len(f.buf) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, long, err := f.readLine()
		f.err = err
		if line == nil && !long {
			continue // nothing before the end of input
		}
		f.n++
		if long {
			f.refuse(nil, codeInvalidRequest, fmt.Sprintf("line %d: longer than %d bytes (MCP messages are one line each; this server reads at most %d MiB per line)", f.n, MaxLineBytes, MaxLineBytes>>20))
			continue
		}
		msg := bytes.TrimSpace(line)
		if len(msg) == 0 {
			continue
		}
		if id, code, why := checkMessage(msg); why != "" {
			f.refuse(id, code, fmt.Sprintf("line %d: %s", f.n, why))
			continue
		}
		f.buf = append(msg, '\n')
	}
	n := copy(p, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

// readLine reads the next line without its newline. A line longer than
// MaxLineBytes is read to its end and dropped (long true), so a huge line
// costs no memory; a line's buffer is kept for the next one unless it is
// big. line is nil at the end of input.
func (f *Framing) readLine() (line []byte, long bool, err error) {
	if cap(f.line) > 1<<20 {
		f.line = nil // do not keep a big line's buffer for the session
	}
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if !long && len(f.line)+len(chunk) > MaxLineBytes+1 {
			long = true
			f.line = f.line[:0]
		}
		if !long {
			f.line = append(f.line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			return nil, true, err
		}
		if len(f.line) == 0 {
			return nil, false, err
		}
		return f.line, false, err
	}
}

// refuse writes a JSON-RPC error for a refused line and reports it.
func (f *Framing) refuse(id json.RawMessage, code int, why string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	resp, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, why}})
	f.mu.Lock()
	_, _ = f.w.Write(append(resp, '\n')) // a closed output ends the session at the SDK's next write
	f.mu.Unlock()
	if f.bad != nil {
		f.bad(f.n, why)
	}
}

// checkMessage says whether msg (one line, trimmed) is a JSON-RPC 2.0
// message the SDK can take: an object (not a batch) nested at most MaxDepth deep, with
// "jsonrpc": "2.0", an id that is absent, null, a string or an integer,
// and either a string method (a request or notification) or, with an id,
// a result or an error object (a response). Otherwise why says what is
// wrong, code is the JSON-RPC error code, and id is the message's id when
// it could be read (nil: unknown).
func checkMessage(msg []byte) (id json.RawMessage, code int, why string) {
	if depth(msg) > MaxDepth {
		var m struct{ ID json.RawMessage }
		if msg[0] == '{' && json.Unmarshal(msg, &m) == nil && m.ID != nil && validID(m.ID) && string(m.ID) != "null" {
			id = m.ID
		}
		return id, codeInvalidRequest, fmt.Sprintf("nested more than %d levels deep", MaxDepth)
	}
	if !json.Valid(msg) {
		return nil, codeParseError, "not JSON (MCP over stdio is one JSON-RPC message per line)"
	}
	switch msg[0] {
	case '[':
		return nil, codeInvalidRequest, "a JSON-RPC batch: this server takes one message per line"
	case '{':
	default:
		return nil, codeInvalidRequest, "not a JSON-RPC message: want an object with \"jsonrpc\": \"2.0\""
	}
	// keys are matched exactly, as the SDK matches them
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return nil, codeInvalidRequest, "not a JSON-RPC message"
	}
	rawID, hasID := m["id"]
	if hasID && !validID(rawID) {
		return nil, codeInvalidRequest, "id: want a string or an integer"
	}
	if !hasID || string(rawID) == "null" {
		rawID = nil
	}
	var version string
	if json.Unmarshal(m["jsonrpc"], &version) != nil || version != "2.0" {
		return rawID, codeInvalidRequest, "not JSON-RPC 2.0: want \"jsonrpc\": \"2.0\""
	}
	if method, ok := m["method"]; ok {
		var s string
		if method[0] != '"' || json.Unmarshal(method, &s) != nil {
			return rawID, codeInvalidRequest, "method: want a string"
		}
		return nil, 0, ""
	}
	// a response (to a request the server sent)
	if rawID == nil {
		return nil, codeInvalidRequest, "neither a request (no method) nor a response (no id)"
	}
	_, hasRes := m["result"]
	e, hasErr := m["error"]
	if !hasRes && !hasErr {
		return rawID, codeInvalidRequest, "a response without a result or an error"
	}
	if hasErr && string(e) != "null" {
		var we struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		}
		if e[0] != '{' || json.Unmarshal(e, &we) != nil {
			return rawID, codeInvalidRequest, "error: want an object with a numeric code and a message"
		}
	}
	return nil, 0, ""
}

// validID reports whether raw is an id the SDK keeps as given: null, a
// string, or an integer of at most 2^53 in magnitude (the SDK reads a
// number as a float64: it truncates a fraction, so 1.5 would be answered
// as 1, and rounds a bigger integer, so 2^63-1 came back negative).
func validID(raw json.RawMessage) bool {
	switch {
	case string(raw) == "null":
		return true
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	default:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		return err == nil && n >= -1<<53 && n <= 1<<53
	}
}

// depth is how deeply msg's objects and arrays nest (msg is valid JSON).
func depth(msg []byte) int {
	d, most := 0, 0
	in, esc := false, false
	for _, c := range msg {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == '{' || c == '[':
			if d++; d > most {
				most = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}
