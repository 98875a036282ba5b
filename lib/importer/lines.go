package importer

import (
	"bytes"
	"fmt"

	"github.com/linkledger/linkledger/lib/localfile"
)

// eachLine calls fn for every line of data (without its "\n" or "\r\n"),
// numbered from 1. A line longer than maxLineBytes is not handed to fn: it
// is a bad row of its own, and the lines after it are read (a reader with
// a line cap used to stop there, losing every later row).
func eachLine(data []byte, s *Sink, fn func(n int, line []byte) error) error {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > maxLineBytes {
			if err := s.Bad(n, fmt.Sprintf("line of %s is over the %s a line may have; skipped (the lines after it are read)", localfile.Size(int64(len(line))), localfile.Size(maxLineBytes))); err != nil {
				return err
			}
			continue
		}
		if err := fn(n, line); err != nil {
			return err
		}
	}
	return nil
}
