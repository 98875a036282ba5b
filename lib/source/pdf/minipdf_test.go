package pdf

import (
	"bytes"
	"fmt"
	"strings"
)

// miniPDF writes a small valid PDF whose pages hold the given content
// streams, with the standard Helvetica font (built-in StandardEncoding, in
// which octal 256 and 257 are the fi and fl ligature glyphs). info holds
// Info dictionary entries (Title, Author, CreationDate).
func miniPDF(info map[string]string, contents ...string) []byte {
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	n := len(contents)
	// 1 catalog, 2 pages, 3 font, 4 info, then page i at 5+2i, content at 6+2i.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids []string
	for i := range n {
		kids = append(kids, fmt.Sprintf("%d 0 R", 5+2*i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var inf []string
	for _, k := range []string{"Title", "Author", "CreationDate"} {
		if v, ok := info[k]; ok {
			inf = append(inf, fmt.Sprintf("/%s (%s)", k, v))
		}
	}
	obj("<< " + strings.Join(inf, " ") + " >>")
	for i, c := range contents {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 6+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c)+1, c))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// textPage is a content stream that writes lines top-down, one per Tj.
func textPage(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT /F1 12 Tf 14 TL 72 720 Td\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "(%s) Tj T*\n", l)
	}
	b.WriteString("ET")
	return b.String()
}

// drawnPage is a content stream with a filled rectangle and no text.
const drawnPage = "0.2 0.4 0.8 rg 100 100 300 400 re f"
