package human

import (
	"strings"
	"testing"
)

func TestWrapIndented(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"a bb ccc dddd", 8, "    a bb ccc\n    dddd\n"},
		{"a bb ccc dddd", 7, "    a bb\n    ccc\n    dddd\n"},
		{"a \x1b[1;33mbb\x1b[0m ccc", 8, "    a \x1b[1;33mbb\x1b[0m ccc\n"},
		{"short averyveryverylongword end", 8, "    short\n    averyveryverylongword\n    end\n"},
		{"  spaced   out  ", 20, "    spaced out\n"},
		{"καλημέρα κόσμε", 9, "    καλημέρα\n    κόσμε\n"},
	} {
		var b strings.Builder
		wrapIndented(&b, tc.in, tc.width)
		if b.String() != tc.want {
			t.Errorf("wrapIndented(%q, %d) = %q, want %q", tc.in, tc.width, b.String(), tc.want)
		}
	}
}
