package pdf

import (
	"strings"
	"testing"
)

// FuzzSegments checks the post-processing of pdftotext output: no
// panic, no empty segment, no form feed or trailing space left, and pages
// numbered from 1 in order.
func FuzzSegments(f *testing.F) {
	for _, s := range []string{"", "\f", "a\fb", "title\n\npara one\nline two  \n\n\fpage two\r\n", "\uFB01nd \uFB03ce\n", "\f\f\fx", " \t\u00a0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		last := 1
		for _, s := range Segments(text) {
			if strings.TrimSpace(s.Text) == "" || strings.Contains(s.Text, "\f") {
				t.Fatalf("bad segment %q", s.Text)
			}
			for _, line := range strings.Split(s.Text, "\n") {
				if strings.TrimRight(line, " \t\u00a0") != line {
					t.Fatalf("trailing space in %q", line)
				}
			}
			if s.Page < last {
				t.Fatalf("page %d after %d", s.Page, last)
			}
			last = s.Page
		}
		titleFromText(Segments(text))
	})
}
