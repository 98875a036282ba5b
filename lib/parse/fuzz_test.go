package parse

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzArticle runs the article adapter (both main-text extractors) on
// any HTML: no panic, and a page that yields text yields valid UTF-8 in
// non-empty segments. Inputs are capped at 64 KiB to keep each run fast.
func FuzzArticle(f *testing.F) {
	names, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	for _, s := range []string{"", "<html>", "<p>" + strings.Repeat("word ", 80) + "</p>", "<article><h1>T</h1><p>a<br>b</p></article>",
		"<table><tr><td><p>x</td></table>", "<script>", "<!--", "<svg><p>x</svg>", "\xff\xfe<p>x"} {
		f.Add(s)
	}
	a := Article(testMainText)
	f.Fuzz(func(t *testing.T, body string) {
		if len(body) > 64<<10 {
			return
		}
		res, err := a.Parse(fetched("https://fuzz.example/a", "text/html; charset=utf-8", body))
		if err != nil {
			return
		}
		for _, s := range res.Segments {
			if strings.TrimSpace(s.Text) == "" {
				t.Fatalf("empty segment")
			}
			if utf8.ValidString(body) && !utf8.ValidString(s.Text) {
				t.Fatalf("invalid UTF-8 in %q", s.Text)
			}
		}
	})
}
