package parse

import (
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

func TestFallbackTitle(t *testing.T) {
	long := "This first paragraph is far too long to be a heading, because it goes on and on about many things for well over one hundred characters."
	cases := []struct {
		paras []string
		url   string
		want  string
	}{
		{[]string{"Release notes, version 2.4\nThe importer now keeps…"}, "https://x.example/changelog.txt", "Release notes, version 2.4"},
		{[]string{long}, "https://x.example/docs/changelog.txt?x=1", "changelog.txt"},
		{nil, "https://x.example/", ""},
		{nil, "file:///home/u/notes.md", "notes.md"},
	}
	for _, c := range cases {
		if got := fallbackTitle(c.paras, &record.Record{CanonicalURL: c.url}); got != c.want {
			t.Errorf("%q %s: got %q, want %q", c.paras, c.url, got, c.want)
		}
	}
}
