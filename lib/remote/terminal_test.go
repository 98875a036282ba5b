package remote_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/remote"
)

// TestTerminalSafe: the SGR sequences of the human form's colours are
// kept; every other control sequence or character a server could send
// becomes spaces, the text and layout staying.
func TestTerminalSafe(t *testing.T) {
	sgr31 := "\x1b[31m"
	long := "\x1b[" + strings.Repeat("1;", 15) + "m" // 34 bytes: over MaxSGR
	cases := []struct{ name, in, want string }{
		{"plain", "a title\n\tsnippet\n", "a title\n\tsnippet\n"},
		{"colour kept", "\x1b[1;36mtitle\x1b[0m \x1b[2mdim\x1b[m\n", "\x1b[1;36mtitle\x1b[0m \x1b[2mdim\x1b[m\n"},
		{"SGR of 32 bytes kept", "\x1b[" + strings.Repeat("1;", 14) + "1m" + "x", "\x1b[" + strings.Repeat("1;", 14) + "1m" + "x"},
		{"SGR over 32 bytes blanked", long + "x", " [" + strings.Repeat("1;", 15) + "mx"},
		{"clear screen", "\x1b[2Jx", " [2Jx"},
		{"cursor up", "\x1b[1Ax", " [1Ax"},
		{"CSI private", "\x1b[?25lx", " [?25lx"},
		{"colon in SGR", "\x1b[38:5:1mx", " [38:5:1mx"},
		{"window title OSC", "\x1b]0;pwned\x07t", " ]0;pwned t"},
		{"hyperlink OSC 8", "\x1b]8;;http://e.example\x1b\\a\x1b]8;;\x1b\\", " ]8;;http://e.example \\a ]8;; \\"},
		{"ESC alone at the end", "x\x1b", "x "},
		{"ESC [ at the end", "x\x1b[", "x ["},
		{"unfinished SGR", "x\x1b[31", "x [31"},
		{"ESC ESC [ m", "\x1b\x1b[31mx", " " + sgr31 + "x"},
		{"8-bit CSI (C1, UTF-8)", "\u009b2Jx", " 2Jx"},
		{"8-bit CSI (raw byte)", "\x9b2Jx", " 2Jx"},
		{"BEL backspace CR DEL", "a\x07b\x08c\rd\x7fe", "a b c d e"},
		{"bidi override", "\u202eevil\u2066", " evil "},
		{"not UTF-8", "a\xff\xfeb", "a  b"},
		{"DCS", "\x1bP1$r\x1b\\", " P1$r \\"},
	}
	for _, c := range cases {
		if got := string(remote.TerminalSafe([]byte(c.in))); got != c.want {
			t.Errorf("%s: TerminalSafe(%q) = %q; want %q", c.name, c.in, got, c.want)
		}
	}
}

// FuzzTerminalSafe: whatever a server sends, what reaches the terminal is
// UTF-8 whose only control characters are newline, tab and the ESC of a
// bounded SGR sequence; and filtering it again changes nothing.
func FuzzTerminalSafe(f *testing.F) {
	for _, s := range []string{"plain\n", "\x1b[1;31mred\x1b[0m", "\x1b]0;t\x07", "\x1b[2J", "\x9b31m", "\u009b31m",
		"\x1b[31;\x1b[m", "\x1b\x1b[[m", "\x1b[" + strings.Repeat("9", 40) + "m", "\xff\x1b[m\r"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := remote.TerminalSafe(in)
		if !utf8.Valid(out) {
			t.Fatalf("TerminalSafe(%q) = %q: not UTF-8", in, out)
		}
		s := string(out)
		for i, r := range s {
			switch {
			case r == '\n' || r == '\t':
			case r == 0x1b:
				if !sgrAt(s[i:]) {
					t.Fatalf("TerminalSafe(%q) = %q: an ESC at %d that starts no SGR sequence", in, out, i)
				}
			case unicode.IsControl(r), r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
				t.Fatalf("TerminalSafe(%q) = %q: control %U at %d", in, out, r, i)
			}
		}
		if again := remote.TerminalSafe(out); !bytes.Equal(again, out) {
			t.Fatalf("TerminalSafe not stable: %q then %q", out, again)
		}
		if !bytes.ContainsRune(in, 0x1b) && utf8.Valid(in) && utf8.RuneCount(out) != utf8.RuneCount(in) {
			t.Fatalf("TerminalSafe(%q) = %q: the layout moved (a rune is not one rune)", in, out)
		}
	})
}

// sgrAt reports whether s starts with ESC '[' digits and ';' and 'm', of
// at most MaxSGR bytes (written here apart from the filter's own code).
func sgrAt(s string) bool {
	end := strings.IndexByte(s, 'm')
	if end < 2 || end+1 > remote.MaxSGR || !strings.HasPrefix(s, "\x1b[") {
		return false
	}
	return strings.Trim(s[2:end], "0123456789;") == ""
}
