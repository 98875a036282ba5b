package record

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// EchoRunes is the most of a user's value that an error message or a
// diagnostic repeats.
const EchoRunes = 80

// Quote returns a user's value as error messages and diagnostics show it:
// in double quotes, with control characters, escape sequences and invalid
// UTF-8 escaped as strconv.Quote does, and cut to EchoRunes runes with an
// ellipsis. A 1 MB tag or an ESC sequence from an import file never
// reaches the terminal as is. For short printable values it is exactly
// what %q gives.
func Quote(s string) string {
	cut, more := cutRunes(s, EchoRunes)
	q := strconv.Quote(cut)
	if more {
		q = q[:len(q)-1] + `…"`
	}
	return q
}

// Echo returns a value that is shown bare in diagnostics (a URL, an item
// id) unchanged when it is printable and at most 4×EchoRunes bytes, and as
// Quote gives it otherwise.
func Echo(s string) string {
	if len(s) <= 4*EchoRunes && printable(s) {
		return s
	}
	return Quote(s)
}

// Clean makes a message that may carry bytes from the input (an error
// message passed on by an earlier stage, written by anyone) safe for a
// terminal: control characters and invalid UTF-8 are escaped and the text
// is cut to 4×EchoRunes runes with an ellipsis. Printable text is kept as
// is, without quotes.
func Clean(s string) string {
	if len(s) <= 4*EchoRunes && printable(s) {
		return s
	}
	cut, more := cutRunes(s, 4*EchoRunes)
	if !printable(cut) {
		q := strconv.Quote(cut)
		cut = q[1 : len(q)-1]
	}
	if more {
		cut += "…"
	}
	return cut
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || !unicode.IsPrint(r) && r != ' ' }) < 0
}

// cutRunes returns the first n runes of s and whether s had more.
func cutRunes(s string, n int) (string, bool) {
	i := 0
	for k := range s {
		if i == n {
			return s[:k], true
		}
		i++
	}
	return s, false
}
