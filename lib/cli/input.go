package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"golang.org/x/term"

	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

// EachRecord reads records from r and calls fn with each and its line
// number. A malformed line is reported on stderr ("prog: line N: ...") and
// written to out as an error record of the given stage, and reading goes
// on. It stops when ctx is done, when fn returns an error, or when input
// fails.
func EachRecord(ctx context.Context, r io.Reader, out *Output, diag Diag, stage string, fn func(rec *record.Record, line int) error) error {
	rd := ndjson.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, line, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var le *ndjson.LineError
		if errors.As(err, &le) {
			diag.Printf("line %d: %v", le.Line, le.Err)
			bad := le.Record(stage)
			if err := out.Emit(bad); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if err := fn(rec, line); err != nil {
			return err
		}
	}
}

// Stdin is what a filter reads its records from: env.Stdin as it is,
// unless it is a terminal. A person at a terminal is then told once on
// stderr, at the first read, that the filter reads records from the
// terminal (Ctrl-D ends them), and a read ends as soon as ctx does (Ctrl-C):
// a blocked read of a terminal line would otherwise hold the filter until
// the next line is typed, and take that line as a record.
func Stdin(ctx context.Context, env Env, diag Diag) io.Reader {
	f, ok := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return env.Stdin
	}
	return &termReader{ctx: ctx, r: f, notice: func() {
		if diag.W != nil {
			diag.Printf("reading records from the terminal, one JSON object a line (Ctrl-D ends, Ctrl-C stops)")
		}
	}, res: make(chan readResult, 1)}
}

// termReader reads a terminal in a goroutine so that a read can end with
// its context; the goroutine left blocked on a cancelled read ends with
// the process.
type termReader struct {
	ctx     context.Context
	r       io.Reader
	notice  func()
	once    sync.Once
	res     chan readResult
	buf     []byte
	waiting bool
	rest    []byte // read but not yet returned (a later Read asked for less)
	restErr error
}

type readResult struct {
	n   int
	err error
}

func (t *termReader) Read(p []byte) (int, error) {
	t.once.Do(t.notice)
	if len(t.rest) > 0 || t.restErr != nil {
		n := copy(p, t.rest)
		t.rest = t.rest[n:]
		if len(t.rest) > 0 {
			return n, nil
		}
		err := t.restErr
		t.restErr = nil
		return n, err
	}
	if err := t.ctx.Err(); err != nil {
		return 0, err
	}
	if !t.waiting {
		if cap(t.buf) < len(p) {
			t.buf = make([]byte, len(p))
		}
		buf := t.buf[:len(p)]
		t.waiting = true
		go func() {
			n, err := t.r.Read(buf)
			t.res <- readResult{n, err}
		}()
	}
	select {
	case <-t.ctx.Done():
		return 0, t.ctx.Err()
	case r := <-t.res:
		t.waiting = false
		n := copy(p, t.buf[:r.n])
		if n < r.n {
			t.rest, t.restErr = append([]byte(nil), t.buf[n:r.n]...), r.err
			return n, nil
		}
		return n, r.err
	}
}
