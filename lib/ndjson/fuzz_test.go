package ndjson

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader checks that the reader never panics and accounts for every
// line: each non-blank line comes back once, in order, with its line
// number, as a record or as a *LineError.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"", "\n", "https://example.com/\n", `{"url":"https://example.com/"}`, "{\"url\":1}\n\n  \n[1]\n\"x\"\n",
		"{\n}\n", "{\"url\":\"a\"}\r\n{\"url\":\"b\"}", "[t](https://x)\n\"Title\",https://x\n", "{\"tags\":[\"a\",\"b\"]}\n{",
		"\xff\xfe\n\x00\n", "\u2028{}\u2029\n", "\v\f\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var want []int
		for i, l := range bytes.Split(in, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				want = append(want, i+1)
			}
		}
		r := NewReader(bytes.NewReader(in))
		var got []int
		for {
			rec, n, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			var le *LineError
			switch {
			case err == nil && rec != nil:
			case errors.As(err, &le) && rec == nil && le.Line == n:
			default:
				t.Fatalf("line %d: record %v, error %v", n, rec, err)
			}
			got = append(got, n)
			if len(got) > len(want) {
				t.Fatalf("more lines read (%v) than the input has (%v)", got, want)
			}
		}
		if !equal(got, want) {
			t.Fatalf("lines read %v, want %v", got, want)
		}
	})
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
