package fetch

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html/charset"

	"github.com/linkledger/linkledger/lib/record"
)

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(11, 12))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var fakePDF = []byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n")

// carried is what a test checks of a fetched record.
type carried struct {
	Error       *record.Error
	ContentType string
	SniffedType string
	SourceType  string
	Text        bool // body set
	Base64      bool // body_base64 set
}

func carriedOf(rec *record.Record) carried {
	c := carried{Error: errOf(rec), SourceType: rec.SourceType, Text: rec.Body != nil, Base64: rec.BodyBase64 != nil}
	if rec.Fetch != nil {
		c.ContentType, c.SniffedType = rec.Fetch.ContentType, rec.Fetch.SniffedType
	}
	return c
}

// TestWrongContent serves bodies under the wrong Content-Type: a PDF is a
// PDF whatever it is served as, binary junk declared as text is refused,
// never carried as text.
func TestWrongContent(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
	page := []byte("<!DOCTYPE html><html><body><p>Sign in to read this paper.</p></body></html>")
	junk := randomBytes(4096)
	badContent := &record.Error{Stage: "fetch", Code: record.CodeBadContent}
	tests := []struct {
		name string
		ct   string
		body []byte
		want carried
	}{
		{"pdf as text/html", "text/html; charset=utf-8", fakePDF,
			carried{ContentType: "text/html", SniffedType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"pdf as text/plain", "text/plain", fakePDF,
			carried{ContentType: "text/plain", SniffedType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"pdf as octet-stream", "application/octet-stream", fakePDF,
			carried{ContentType: "application/octet-stream", SniffedType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"pdf as pdf", "application/pdf", fakePDF,
			carried{ContentType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"png as text/html", "text/html", png,
			carried{ContentType: "text/html", SniffedType: "image/png", SourceType: "article", Base64: true}},
		{"html as pdf", "application/pdf", page,
			carried{ContentType: "application/pdf", SniffedType: "text/html", SourceType: "article", Text: true}},
		{"random bytes as text/plain", "text/plain", junk,
			carried{Error: badContent, ContentType: "text/plain", SourceType: "article"}},
		{"random bytes as text/html", "text/html", junk,
			carried{Error: badContent, ContentType: "text/html", SourceType: "article"}},
		{"random bytes as utf-8 text", "text/plain; charset=utf-8", junk,
			carried{Error: badContent, ContentType: "text/plain", SourceType: "article"}},
		{"random bytes as json", "application/json", junk,
			carried{Error: badContent, ContentType: "application/json", SourceType: "article"}},
		{"random bytes as octet-stream", "application/octet-stream", junk,
			carried{ContentType: "application/octet-stream", SourceType: "article", Base64: true}},
		{"html as html", "text/html", page,
			carried{ContentType: "text/html", SourceType: "article", Text: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.ct)
				w.Write(tt.body)
			}))
			defer srv.Close()
			f, _ := newFetcher(t, Options{})
			rec := fetch(t, f, &record.Record{URL: srv.URL + "/doc"})
			if diff := cmp.Diff(tt.want, carriedOf(rec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if rec.BodyBase64 != nil && *rec.BodyBase64 != encodeBase64(tt.body) {
				t.Error("body_base64 is not the body as served")
			}
			if rec.Error != nil && (rec.Error.Retryable || rec.Body != nil || rec.BodyBase64 != nil) {
				t.Errorf("refused record: %+v, body %v, body_base64 %v", rec.Error, rec.Body != nil, rec.BodyBase64 != nil)
			}
		})
	}
}

// TestWrongContentFiles applies the same rules to local files, typed by
// their extension.
func TestWrongContentFiles(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"paper.html": fakePDF,
		"paper.txt":  fakePDF,
		"random.txt": randomBytes(2048),
		"random.md":  randomBytes(2048),
		"random":     randomBytes(2048),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := newFetcher(t, Options{Cwd: dir, AllowFiles: []string{dir}})
	badContent := &record.Error{Stage: "fetch", Code: record.CodeBadContent}
	for _, tt := range []struct {
		in   string
		want carried
	}{
		{"paper.html", carried{ContentType: "text/html", SniffedType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"paper.txt", carried{ContentType: "text/plain", SniffedType: "application/pdf", SourceType: "pdf", Base64: true}},
		{"random.txt", carried{Error: badContent, ContentType: "text/plain", SourceType: "text"}},
		{"random.md", carried{Error: badContent, ContentType: "text/markdown", SourceType: "text"}},
		{"random", carried{ContentType: "application/octet-stream", SourceType: "article", Base64: true}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			rec := fetch(t, f, &record.Record{URL: "./" + tt.in})
			if diff := cmp.Diff(tt.want, carriedOf(rec)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentEncodings decodes every coding a server may send, asked for
// or not; a body that does not decode is bad_encoding (not connection),
// and an unknown coding is refused rather than carried raw.
func TestContentEncodings(t *testing.T) {
	text := "<p>plain words, decoded</p>"
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	br := func(b []byte) []byte {
		var buf bytes.Buffer
		bw := brotli.NewWriter(&buf)
		bw.Write(b)
		bw.Close()
		return buf.Bytes()
	}
	zl := func(b []byte) []byte {
		var buf bytes.Buffer
		zw := zlib.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		return buf.Bytes()
	}
	raw := func(b []byte) []byte {
		var buf bytes.Buffer
		fw, _ := flate.NewWriter(&buf, flate.DefaultCompression)
		fw.Write(b)
		fw.Close()
		return buf.Bytes()
	}
	badCRC := gz([]byte(text))
	badCRC[len(badCRC)-8] ^= 0xff // the CRC-32 of the trailer
	badDeflate := gz([]byte(text))
	badDeflate[12] ^= 0x55
	badDeflate[14] ^= 0xaa
	badEncoding := &record.Error{Stage: "fetch", Code: record.CodeBadEncoding}
	tests := []struct {
		name, enc string
		body      []byte
		want      *record.Error
	}{
		{"gzip", "gzip", gz([]byte(text)), nil},
		{"x-gzip", "x-gzip", gz([]byte(text)), nil},
		{"br", "br", br([]byte(text)), nil},
		{"deflate (zlib), not asked for", "deflate", zl([]byte(text)), nil},
		{"deflate (raw), not asked for", "deflate", raw([]byte(text)), nil},
		{"gzip then br", "gzip, br", br(gz([]byte(text))), nil},
		{"identity", "identity", []byte(text), nil},
		{"empty br", "br", nil, nil},
		{"empty deflate", "deflate", nil, nil},
		{"upper case", "GZIP", gz([]byte(text)), nil},
		{"gzip that is not gzip", "gzip", []byte(text), badEncoding},
		{"gzip with a bad checksum", "gzip", badCRC, badEncoding},
		{"gzip with corrupt data", "gzip", badDeflate, badEncoding},
		{"br that is not br", "br", []byte("\xff\xff\xff\xff not brotli at all"), badEncoding},
		{"deflate that is not deflate", "deflate", []byte("\xff\xff\xff\xff"), badEncoding},
		{"zstd", "zstd", []byte("\x28\xb5\x2f\xfd whatever"), badEncoding},
		{"custom coding", "x-custom", []byte(text), badEncoding},
		{"too many layers", "gzip, gzip, gzip, gzip", gz(gz(gz(gz([]byte(text))))), badEncoding},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", tt.enc)
				w.Write(tt.body)
			}))
			defer srv.Close()
			f, sl := newFetcher(t, Options{})
			rec := fetch(t, f, &record.Record{URL: srv.URL})
			if diff := cmp.Diff(tt.want, errOf(rec)); diff != "" {
				t.Fatalf("error (-want +got):\n%s\nmessage: %v", diff, rec.Error)
			}
			want := text
			if tt.body == nil {
				want = ""
			}
			if tt.want == nil && body(rec) != want {
				t.Errorf("body = %q, want %q", body(rec), want)
			}
			if tt.want != nil && (rec.Body != nil || rec.BodyBase64 != nil || rec.Fetch.Attempts != 1 || len(sl.all()) != 0) {
				t.Errorf("failed record: body %v, body_base64 %v, attempts %d", rec.Body != nil, rec.BodyBase64 != nil, rec.Fetch.Attempts)
			}
		})
	}
}

// TestTruncatedGzipIsConnection: a gzip body cut by the connection (fewer
// bytes than Content-Length) is a retryable connection error, not
// bad_encoding: the bytes did not all arrive.
func TestTruncatedGzipIsConnection(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(randomBytes(64 << 10))
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
		w.Write(buf.Bytes()[:buf.Len()/2])
	}))
	defer srv.Close()
	f, _ := newFetcher(t, Options{MaxAttempts: 1})
	rec := fetch(t, f, &record.Record{URL: srv.URL})
	want := &record.Error{Stage: "fetch", Code: record.CodeConnection, Retryable: true}
	if diff := cmp.Diff(want, errOf(rec)); diff != "" {
		t.Fatalf("error (-want +got):\n%s\nmessage: %v", diff, rec.Error)
	}
}

// TestDecompressionBombs: 10 MB of zeros compressed to a few KB stop at
// the cap with too_large, in every coding.
func TestDecompressionBombs(t *testing.T) {
	const max = 1 << 20
	zeros := make([]byte, 10<<20)
	var gzb, brb, dfb bytes.Buffer
	zw := gzip.NewWriter(&gzb)
	zw.Write(zeros)
	zw.Close()
	bw := brotli.NewWriter(&brb)
	bw.Write(zeros)
	bw.Close()
	fw, _ := flate.NewWriter(&dfb, flate.BestCompression)
	fw.Write(zeros)
	fw.Close()
	for _, tt := range []struct {
		enc  string
		body []byte
	}{{"gzip", gzb.Bytes()}, {"br", brb.Bytes()}, {"deflate", dfb.Bytes()}} {
		t.Run(tt.enc, func(t *testing.T) {
			if len(tt.body) > 64<<10 {
				t.Fatalf("bomb of %d bytes is not a bomb", len(tt.body))
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/plain")
				w.Header().Set("Content-Encoding", tt.enc)
				w.Write(tt.body)
			}))
			defer srv.Close()
			f, _ := newFetcher(t, Options{MaxBytes: max})
			rec := fetch(t, f, &record.Record{URL: srv.URL})
			want := &record.Error{Stage: "fetch", Code: record.CodeTooLarge}
			if diff := cmp.Diff(want, errOf(rec)); diff != "" {
				t.Fatalf("error (-want +got):\n%s\nmessage: %v", diff, rec.Error)
			}
		})
	}
}

// TestLateMetaCharset: a page whose <meta charset> comes after the first
// 1024 bytes (a long head of scripts and meta tags) is decoded in the
// charset it declares, as browsers re-decode when they meet it, not as
// windows-1252.
func TestLateMetaCharset(t *testing.T) {
	encode := func(label, s string) string {
		e, _ := charset.Lookup(label)
		out, err := e.NewEncoder().String(s)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	longHead := "<html><head><script>" + strings.Repeat("var x = 1;\n", 150) + "</script>"
	tests := []struct {
		name, page, want, wantCharset string
	}{
		{"gb2312 after 1024 bytes",
			longHead + `<meta charset="gb2312"><title>` + encode("gb2312", "中文新闻") + `</title></head><body>` + encode("gb2312", "今天天气很好。") + `</body></html>`,
			"今天天气很好。", "gbk"},
		{"windows-1250 http-equiv after 1024 bytes",
			longHead + `<meta http-equiv="Content-Type" content="text/html; charset=windows-1250"></head><body>` + encode("windows-1250", "Příliš žluťoučký kůň") + `</body></html>`,
			"Příliš žluťoučký kůň", "windows-1250"},
		// A declaration in the body is not the page's charset.
		{"meta in the body is ignored",
			longHead + `</head><body><meta charset="windows-1250">caf` + "\xe9" + `</body></html>`,
			"café", "windows-1252"},
		// Valid UTF-8 stays UTF-8 whatever a late declaration says.
		{"utf-8 with a stale late declaration",
			longHead + `<meta charset="iso-8859-2"></head><body>Grüße</body></html>`,
			"Grüße", "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, name := decodeText([]byte(tt.page), "text/html", "text/html")
			if name != tt.wantCharset || !strings.Contains(got, tt.want) {
				t.Errorf("charset %q, body tail %q; want %q containing %q", name, got[max(0, len(got)-80):], tt.wantCharset, tt.want)
			}
		})
	}
}
