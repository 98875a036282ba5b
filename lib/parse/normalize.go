package parse

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns text in the one form linkledger stores and checksums:
// valid UTF-8 in NFC, LF line ends, no soft hyphens, zero-width or control
// characters, NBSP and other spaces as plain spaces, runs of spaces and tabs
// collapsed, lines trimmed, and paragraphs separated by exactly one blank
// line. The result has no leading or trailing whitespace.
func Normalize(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = norm.NFC.String(s)

	var b strings.Builder
	b.Grow(len(s))
	blank := 0     // newlines seen since the last text
	space := false // a space is pending before the next text
	started := false
	for _, r := range s {
		switch {
		case r == '\n' || r == '\u2028' || r == '\u2029' || r == '\v' || r == '\f':
			if r == '\u2029' {
				blank++
			}
			blank++
			space = false
		case r == '\u00AD' || isZeroWidth(r):
			// dropped: soft hyphen, zero-width characters
		case r == '\t' || r == ' ' || r == '\u00A0' || unicode.Is(unicode.Zs, r):
			space = true
		case unicode.IsControl(r):
			// dropped: other C0/C1 controls
		default:
			if started {
				switch {
				case blank >= 2:
					b.WriteString("\n\n")
				case blank == 1:
					b.WriteByte('\n')
				case space:
					b.WriteByte(' ')
				}
			}
			b.WriteRune(r)
			started = true
			blank, space = 0, false
		}
	}
	return b.String()
}

// isZeroWidth reports the invisible characters removed by Normalize.
func isZeroWidth(r rune) bool {
	switch r {
	case '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u180E', '\u200E', '\u200F':
		return true
	}
	return false
}

// Paragraphs splits normalised text into its blank-line separated
// paragraphs.
func Paragraphs(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n\n")
}

// Checksum is the content checksum of normalised text: "sha256:" and the hex
// digest. The same text always gives the same checksum.
func Checksum(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}
