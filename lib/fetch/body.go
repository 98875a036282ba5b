package fetch

import (
	"bytes"
	"encoding/base64"
	"mime"
	"path/filepath"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// mediaType returns the lower-case media type of a Content-Type value
// without parameters, "" when there is none.
func mediaType(ct string) string {
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// isText reports whether a media type is carried as text in rec.Body:
// text/*, and HTML, XML, JSON and Markdown under any top-level type.
func isText(mt string) bool {
	if strings.HasPrefix(mt, "text/") {
		return true
	}
	for _, s := range []string{"html", "xml", "json", "markdown"} {
		if strings.Contains(mt, s) {
			return true
		}
	}
	return false
}

func isHTML(mt string) bool { return strings.Contains(mt, "html") || strings.Contains(mt, "xml") }

// metaCharset finds a charset declared in a <meta> element (either
// <meta charset=...> or the http-equiv Content-Type form).
var metaCharset = regexp.MustCompile(`(?i)<meta\b[^>]*?charset\s*=\s*["']?\s*([a-z0-9_.:\-]+)`)

// xmlEncoding finds the encoding of an XML declaration.
var xmlEncoding = regexp.MustCompile(`^\s*<\?xml\b[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:\-]+)`)

// decodeText decodes a text body to UTF-8 and returns it with the name of
// the charset it was in. The charset comes from a byte order mark, then the
// Content-Type parameter, then (for HTML and XML) a <meta> declaration in
// the first 1024 bytes; failing those, a body that is valid UTF-8 is UTF-8,
// an HTML body that declares its charset later in its <head> is in that
// charset (lateMetaCharset), and anything else is windows-1252, as
// browsers do.
func decodeText(body []byte, contentType, mt string) (string, string) {
	enc, name := chooseEncoding(body, contentType, mt)
	if enc == nil || name == "utf-8" {
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		return strings.ToValidUTF8(string(body), "\uFFFD"), "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return strings.ToValidUTF8(string(body), "\uFFFD"), name
	}
	return strings.ToValidUTF8(string(out), "\uFFFD"), name
}

func chooseEncoding(body []byte, contentType, mt string) (encoding.Encoding, string) {
	if e, name, certain := charset.DetermineEncoding(body, contentType); certain && e != nil {
		return e, name
	}
	if isHTML(mt) {
		head := body
		if len(head) > 1024 {
			head = head[:1024]
		}
		m := xmlEncoding.FindSubmatch(head)
		if m == nil {
			m = metaCharset.FindSubmatch(head)
		}
		if m != nil {
			if e, name := charset.Lookup(string(m[1])); e != nil {
				// A page cannot declare itself UTF-16 in ASCII bytes.
				if strings.HasPrefix(name, "utf-16") {
					return nil, "utf-8"
				}
				return e, name
			}
		}
	}
	if utf8.Valid(body) {
		return nil, "utf-8"
	}
	if isHTML(mt) {
		if e, name := lateMetaCharset(body); e != nil {
			return e, name
		}
	}
	return charmap.Windows1252, "windows-1252"
}

// maxHeadScan bounds how far into a page lateMetaCharset looks for the end
// of its <head>.
const maxHeadScan = 256 << 10

// headEnd finds where a page's head ends: "</head" or "<body", whichever
// comes first.
var headEnd = regexp.MustCompile(`(?i)</head\b|<body\b`)

// lateMetaCharset finds a <meta> charset declared anywhere in the page's
// <head> (within its first maxHeadScan bytes), not only in the first 1024
// bytes the HTML prescan reads: pages with long scripts or many meta tags
// declare it later, and browsers re-decode when they meet it. It is used
// only for bodies that are not valid UTF-8, so a UTF-8 page that carries
// a stale legacy declaration deep in its head stays UTF-8. A UTF-16 label
// is ignored (ASCII bytes cannot declare it).
func lateMetaCharset(body []byte) (encoding.Encoding, string) {
	head := body
	if len(head) > maxHeadScan {
		head = head[:maxHeadScan]
	}
	if loc := headEnd.FindIndex(head); loc != nil {
		head = head[:loc[0]]
	}
	m := metaCharset.FindSubmatch(head)
	if m == nil {
		return nil, ""
	}
	e, name := charset.Lookup(string(m[1]))
	if e == nil || strings.HasPrefix(name, "utf-16") || name == "utf-8" {
		return nil, ""
	}
	return e, name
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// typeByExt gives the content type of a local file by its extension,
// sniffing the bytes when the extension says nothing.
func typeByExt(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".pdf":
		return "application/pdf"
	case ".html", ".htm":
		return "text/html"
	case ".xhtml":
		return "application/xhtml+xml"
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt", ".text":
		return "text/plain"
	case ".json":
		return "application/json"
	}
	return "" // apply sniffs with http.DetectContentType
}
