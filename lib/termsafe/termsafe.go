// Package termsafe makes untrusted text (a page's title, a model's
// summary, a highlight, a record read from a pipe) safe to show to a
// person: every human view (lib/cli/human, the Markdown of lib/brief)
// passes record text through it, so text cannot move the cursor, clear
// the screen, change colours, set the window title or reorder what is
// shown.
package termsafe

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line returns s as one line of plain text: control characters (C0 with
// ESC, CR, BS and BEL, DEL, and C1 such as CSI U+009B), the bidirectional
// embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069) and
// bytes that are not UTF-8 become spaces; runs of white space, newlines
// included, fold into one space; the ends are trimmed.
func Line(s string) string {
	if clean(s) {
		return s
	}
	s = strings.Map(func(r rune) rune {
		if unsafe(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, " "))
	return strings.Join(strings.Fields(s), " ")
}

// clean reports whether s is already a line Line would leave as it is
// (the common case: no allocation).
func clean(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unsafe(r) || r != ' ' && unicode.IsSpace(r) {
			return false
		}
		if r == ' ' && space {
			return false
		}
		space = r == ' '
	}
	return true
}

func unsafe(r rune) bool {
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}
