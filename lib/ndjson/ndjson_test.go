package ndjson

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReader(t *testing.T) {
	long := strings.Repeat("x", 1<<20) // far beyond bufio.Scanner's default cap
	in := "https://a.example/\n\n  \n{\"url\":\"https://b.example/\",\"text\":\"" + long + "\"}\n{bad\n[1]\n{\"url\":\"https://c.example/\"}\n\"Title\",https://x.example/,tag\n\"a string\"\n[t](https://y.example/)"
	r := NewReader(strings.NewReader(in))
	type got struct {
		URL  string
		Line int
		Err  bool
	}
	var all []got
	for {
		rec, line, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			all = append(all, got{Line: le.Line, Err: true})
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got{URL: rec.URL, Line: line})
		if rec.URL == "https://b.example/" && len(rec.TextValue()) != len(long) {
			t.Errorf("long line cut to %d", len(rec.TextValue()))
		}
	}
	want := []got{{"https://a.example/", 1, false}, {"https://b.example/", 4, false}, {"", 5, true}, {"", 6, true}, {"https://c.example/", 7, false},
		{`"Title",https://x.example/,tag`, 8, false}, {"", 9, true}, {"[t](https://y.example/)", 10, false}}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestWriterNoHTMLEscape(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	if err := w.Write(map[string]string{"a": "<x> & y"}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "{\"a\":\"<x> & y\"}\n" {
		t.Errorf("got %q", b.String())
	}
}
