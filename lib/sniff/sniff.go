// Package sniff judges what a body really is from its first bytes, whatever
// it was declared to be: a known binary format by its magic number, and text
// that is not text (mostly control characters or bytes that decode to
// nothing) by counting. ll-fetch uses it to reconcile a body with its
// Content-Type and ll-parse to refuse junk a record hands it
// (docs/fetch.md, "What the body is"). Standard library only.
package sniff

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PDF is the media type of a PDF body.
const PDF = "application/pdf"

// magic lists binary formats by their leading bytes. http.DetectContentType
// knows most of these; the list adds what it does not (ELF, Mach-O, 7z, xz,
// zstd, bzip2, SQLite, Java class and WebAssembly...) and keeps the answer
// stable across Go versions.
var magic = []struct {
	prefix string
	mt     string
}{
	{"%PDF-", PDF},
	{"\x89PNG\r\n\x1a\n", "image/png"},
	{"GIF87a", "image/gif"},
	{"GIF89a", "image/gif"},
	{"\xff\xd8\xff", "image/jpeg"},
	{"PK\x03\x04", "application/zip"},
	{"PK\x05\x06", "application/zip"},
	{"\x1f\x8b", "application/gzip"},
	{"BZh91AY&SY", "application/x-bzip2"},
	{"\xfd7zXZ\x00", "application/x-xz"},
	{"7z\xbc\xaf\x27\x1c", "application/x-7z-compressed"},
	{"\x28\xb5\x2f\xfd", "application/zstd"},
	{"Rar!\x1a\x07", "application/vnd.rar"},
	{"\x7fELF", "application/x-elf"},
	{"\xcf\xfa\xed\xfe", "application/x-mach-binary"},
	{"\xca\xfe\xba\xbe", "application/java-vm"},
	{"MZ", "application/vnd.microsoft.portable-executable"},
	{"\x00asm", "application/wasm"},
	{"SQLite format 3\x00", "application/vnd.sqlite3"},
	{"OggS", "application/ogg"},
	{"fLaC", "audio/flac"},
	{"\x1aE\xdf\xa3", "video/webm"},
	{"wOFF", "font/woff"},
	{"wOF2", "font/woff2"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "application/x-ole-storage"},
}

// Binary returns the media type of a known binary format the body starts
// with, "" when it starts with none. A PDF may be preceded by whitespace or
// a byte order mark (some servers add them); every other format must start
// at the first byte, and a signature made of printable characters only
// ("MZ", "GIF89a") counts only when control bytes follow in the first 64
// bytes, as they do in the real format.
func Binary(body []byte) string {
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n\f")
	if bytes.HasPrefix(trimmed, []byte("%PDF-")) {
		return PDF
	}
	for _, m := range magic {
		if !bytes.HasPrefix(head, []byte(m.prefix)) {
			continue
		}
		if printable(m.prefix) && !hasControl(head) {
			continue // text that happens to start like a format ("GIF89a is...")
		}
		return m.mt
	}
	// http.DetectContentType knows a few more (RIFF containers, MP4,
	// fonts, archives); its text and octet-stream answers say nothing here.
	mt, _, _ := strings.Cut(http.DetectContentType(head), ";")
	switch {
	case strings.HasPrefix(mt, "text/"), mt == "application/octet-stream", mt == "", !hasControl(head):
		return ""
	}
	return mt
}

// Shares of a text that make it junk rather than text: any text in any
// ASCII-compatible charset has next to no control characters, and text
// declared UTF-8 that is mostly invalid UTF-8 is not text either. Random
// bytes have about 12% control bytes; real text has none or a stray one.
const (
	maxControlShare = 0.05 // control characters (tab, newline, CR, FF, ESC allowed)
	maxInvalidShare = 0.30 // U+FFFD, the mark of bytes that decode to nothing
	sampleBytes     = 64 << 10
)

// Junk reports whether a decoded text body is not text: more than 5% of
// its characters are control characters (other than tab, newline,
// carriage return, form feed and escape), or more than 30% are U+FFFD
// (bytes that were invalid in their charset). Only the first 64 KiB and
// the last 4 KiB are looked at, so the check costs the same whatever the
// size. Empty text is not junk. It also returns a short reason for
// messages.
func Junk(text string) (bool, string) {
	if text == "" {
		return false, ""
	}
	sample := text
	if len(sample) > sampleBytes {
		sample = text[:sampleBytes] + text[len(text)-4096:]
	}
	var n, ctrl, bad int
	for i := 0; i < len(sample); {
		r, size := utf8.DecodeRuneInString(sample[i:])
		i += size
		n++
		switch {
		case r == utf8.RuneError && size <= 1, r == '\uFFFD':
			bad++
		case r == '\t', r == '\n', r == '\r', r == '\f', r == 0x1b:
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
			ctrl++
		}
	}
	if float64(ctrl) > maxControlShare*float64(n) {
		return true, pct(ctrl, n) + " control characters"
	}
	if float64(bad) > maxInvalidShare*float64(n) {
		return true, pct(bad, n) + " undecodable bytes"
	}
	return false, ""
}

// pct formats a share as a whole percentage ("12%").
func pct(part, whole int) string {
	return strconv.Itoa((part*100+whole/2)/whole) + "%"
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// hasControl reports a control byte (not tab, newline, CR, FF) in the
// first 64 bytes.
func hasControl(b []byte) bool {
	if len(b) > 64 {
		b = b[:64]
	}
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' {
			return true
		}
	}
	return false
}
