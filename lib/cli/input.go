package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

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
