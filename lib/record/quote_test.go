package record

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	tests := []struct{ name, in, want string }{
		{"short is %q", "go lang", `"go lang"`},
		{"escape sequence escaped", "red\x1b[31mALERT\x1b[0m", `"red\x1b[31mALERT\x1b[0m"`},
		{"newline and invalid utf-8", "a\nb\xff", `"a\nb\xff"`},
		{"1 MB cut to 80 runes", long, `"` + strings.Repeat("x", EchoRunes) + `…"`},
		{"cut counts runes", strings.Repeat("é", 100), `"` + strings.Repeat("é", EchoRunes) + `…"`},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("%s: Quote = %.120q, want %.120q", tt.name, got, tt.want)
		}
	}
}

func TestEchoAndClean(t *testing.T) {
	url := "https://example.com/a?b=c"
	if got := Echo(url); got != url {
		t.Errorf("Echo(%q) = %q, want it unchanged", url, got)
	}
	if got := Echo("https://x.example/\x1b]0;pwned\x07"); strings.ContainsAny(got, "\x1b\x07") {
		t.Errorf("Echo let control characters through: %q", got)
	}
	msg := "HTTP 503 Service Unavailable"
	if got := Clean(msg); got != msg {
		t.Errorf("Clean(%q) = %q, want it unchanged", msg, got)
	}
	got := Clean("boom \x1b[2J" + strings.Repeat("y", 1<<20))
	if strings.ContainsRune(got, 0x1b) || utf8.RuneCountInString(got) > 4*EchoRunes+10 || !strings.HasPrefix(got, `boom \x1b[2J`) {
		t.Errorf("Clean = %.100q (%d runes), want escaped and cut", got, utf8.RuneCountInString(got))
	}
}

func TestRefIsSafe(t *testing.T) {
	r := &Record{URL: "https://x.example/" + strings.Repeat("\x1b[31m", 100000)}
	got := r.Ref()
	if strings.ContainsRune(got, 0x1b) || len(got) > 8*EchoRunes {
		t.Errorf("Ref = %.100q (%d bytes), want escaped and cut", got, len(got))
	}
}
