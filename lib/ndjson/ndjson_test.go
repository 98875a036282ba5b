package ndjson

import (
	"bytes"
	"errors"
	"io"
	"runtime"
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

// TestReaderLineCap: a line over the cap is one error with its line
// number, is not kept in memory, and the lines after it still come through
// (including one exactly at the cap).
func TestReaderLineCap(t *testing.T) {
	const max = 1000
	atCap := `{"url":"https://a.example/","title":"` + strings.Repeat("t", max-len(`{"url":"https://a.example/","title":""}`)) + `"}`
	if len(atCap) != max {
		t.Fatalf("test line is %d bytes", len(atCap))
	}
	in := atCap + "\n" + `{"url":"https://b.example/","title":"` + strings.Repeat("x", 200_000) + "\"}\n" + "https://c.example/\n"
	r := NewReaderMax(strings.NewReader(in), max)
	var lines []int
	var errs []int
	for {
		rec, line, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		var le *LineError
		if errors.As(err, &le) {
			if !errors.Is(le.Err, ErrLineTooLong) {
				t.Errorf("line %d: %v, want ErrLineTooLong", le.Line, le.Err)
			}
			if len(le.Raw) > 210 {
				t.Errorf("line %d: error keeps %d bytes of the line", le.Line, len(le.Raw))
			}
			errs = append(errs, le.Line)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
		if line == 3 && rec.URL != "https://c.example/" {
			t.Errorf("line 3: url %q", rec.URL)
		}
	}
	if d := cmp.Diff([]int{1, 3}, lines); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2}, errs); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// TestReaderLineCapMemory: skipping an over-long line allocates about the
// reader's buffer, not the line.
func TestReaderLineCapMemory(t *testing.T) {
	in := append(bytes.Repeat([]byte("y"), 8<<20), '\n')
	var ms1, ms2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	r := NewReaderMax(bytes.NewReader(in), 1<<20)
	if _, _, err := r.Next(); !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("err %v, want ErrLineTooLong", err)
	}
	runtime.ReadMemStats(&ms2)
	if got := ms2.TotalAlloc - ms1.TotalAlloc; got > 6<<20 { // reading it whole costs over 16 MiB
		t.Errorf("skipping an 8 MiB line over a 1 MiB cap allocated %d bytes", got)
	}
}
