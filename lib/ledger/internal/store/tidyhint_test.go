package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// TestTidySentence: the passage a refused quote's hint offers never
// starts with a comma or keeps a quote mark without its pair (issue 28).
func TestTidySentence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"The crust is dark.", "The crust is dark."},
		{", the crumb is open.", "the crumb is open."},
		{`" Then the crumb is open.`, "Then the crumb is open."},
		{`The crumb is "open.`, "The crumb is open."},
		{`The "crumb" is open.`, `The "crumb" is open.`},
		{"\u201dThe crumb is open.", "The crumb is open."},
		{"The \u201ccrumb is open.", "The crumb is open."},
		{"; and the crumb.", "and the crumb."},
	} {
		if got := tidySentence(tc.in); got != tc.want {
			t.Errorf("tidySentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuoteHintTidy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://quote.test/tidy"
	reindex(t, s, url, `The baker said "bake it long." Then, the crumb turns open and airy, e.g., with holes.`)
	r := item(url)
	r.Annotations = []record.Annotation{{Type: "highlight", Text: "the crumb turns closed, dense and heavy in the cold", Actor: "agent:a"}}
	_, err := s.Save(ctx, r, SaveOptions{})
	var re *record.Error
	if !errors.As(err, &re) || re.Code != record.CodeQuoteNotFound {
		t.Fatalf("quote not in the text: %v, want quote_not_found", err)
	}
	if !strings.Contains(re.Hint, `"Then, the crumb turns open and airy`) {
		t.Errorf("hint %q: want the closest passage from its first word", re.Hint)
	}
	if strings.Contains(re.Hint, `"" Then`) || strings.Contains(re.Hint, `", `) && strings.Index(re.Hint, `", `) < strings.Index(re.Hint, "Then") {
		t.Errorf("hint %q: a stray quote mark or comma", re.Hint)
	}
}
