package sniff

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
)

// randomBytes returns n reproducible pseudo-random bytes.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestBinary(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		want string
	}{
		{"pdf", "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", PDF},
		{"pdf after whitespace and bom", "\xef\xbb\xbf\r\n  %PDF-1.4\n", PDF},
		{"png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"gif", "GIF89a\x01\x00\x01\x00\x80\x00\x00", "image/gif"},
		{"zip", "PK\x03\x04\x14\x00\x00\x00", "application/zip"},
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00", "application/gzip"},
		{"elf", "\x7fELF\x02\x01\x01\x00", "application/x-elf"},
		{"zstd", "\x28\xb5\x2f\xfd\x04\x00", "application/zstd"},
		{"pe", "MZ\x90\x00\x03\x00\x00\x00\x04\x00", "application/vnd.microsoft.portable-executable"},
		{"webp (via net/http)", "RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"html", "<!DOCTYPE html><title>x</title>", ""},
		{"plain text", "just some words", ""},
		{"text that starts like GIF", "GIF89a is an image format from 1989.", ""},
		{"text that starts like an exe", "MZ is a pair of letters.", ""},
		{"pdf mentioned later", "see %PDF-1.4 below", ""},
		{"empty", "", ""},
	} {
		if got := Binary([]byte(tt.body)); got != tt.want {
			t.Errorf("%s: Binary = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestJunk(t *testing.T) {
	random := randomBytes(8<<10, 7)
	win1252, err := charmap.Windows1252.NewDecoder().Bytes(random)
	if err != nil {
		t.Fatal(err)
	}
	french, err := charmap.Windows1252.NewDecoder().String(strings.Repeat("Le caf\xe9 \xe9tait d\xe9j\xe0 ferm\xe9, na\xefvement.\n", 50))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		text string
		want bool
	}{
		{"random bytes as utf-8", strings.ToValidUTF8(string(random), "\uFFFD"), true},
		{"random bytes as windows-1252", string(win1252), true},
		{"short random bytes", strings.ToValidUTF8(string(randomBytes(200, 3)), "\uFFFD"), true},
		{"nul bytes", strings.Repeat("a\x00", 100), true},
		{"mostly undecodable", strings.Repeat("\uFFFD\uFFFDab", 100), true},
		{"french in windows-1252", french, false},
		{"japanese", strings.Repeat("日本語のテキストです。\n", 100), false},
		{"html", "<html><body>\n\t<p>Hello</p>\r\n</body></html>\f", false},
		{"ansi colours", "\x1b[1mbold\x1b[0m text", false},
		{"a stray control character", strings.Repeat("word ", 40) + "\x01", false},
		{"a few replacement characters", "caf\uFFFD and na\uFFFDve text, mostly fine", false},
		{"empty", "", false},
		{"junk after a long clean start", strings.Repeat("clean text ", 10000) + strings.Repeat("\x01\x02\x03", 2000), true},
	} {
		got, why := Junk(tt.text)
		if got != tt.want {
			t.Errorf("%s: Junk = %v (%s), want %v", tt.name, got, why, tt.want)
		}
		if got && why == "" {
			t.Errorf("%s: no reason given", tt.name)
		}
	}
}

// BenchmarkJunk checks a 4.6 MB text: the cost is that of its 68 KiB
// sample, whatever the size.
func BenchmarkJunk(b *testing.B) {
	text := strings.Repeat("Some ordinary text with ümlauts and 日本語. ", 100000)
	for b.Loop() {
		Junk(text)
	}
}
