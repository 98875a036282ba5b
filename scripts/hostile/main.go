// Command hostile writes the hostile inputs of docs/reliability.md as
// NDJSON records on stdout, for scripts/reliability.sh:
//
//	hostile word BYTES    a text record holding one word of BYTES letters, no spaces
//	hostile text BYTES    a text record of BYTES of prose (over the text cap)
//	hostile pdf PAGES     a fetched PDF record whose PAGES pages share one
//	                      content stream of about 5 KB of text: a small file
//	                      that pdftotext expands to PAGES × 5 KB
//	hostile tags N        a save record with N distinct tags and one of 1 MB
//
// Everything is generated locally; nothing is downloaded.
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: hostile word|text|pdf|tags N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n <= 0 {
		fmt.Fprintln(os.Stderr, "hostile: N must be a positive number")
		os.Exit(2)
	}
	var rec map[string]any
	switch os.Args[1] {
	case "word":
		rec = map[string]any{"url": "https://hostile.example/word", "text": strings.Repeat("abcdefghij", n/10)}
	case "text":
		para := strings.Repeat("Every stage of the pipeline is bounded by a documented limit. ", 20) + "\n\n"
		rec = map[string]any{"url": "https://hostile.example/text", "text": strings.Repeat(para, n/len(para)+1)[:n]}
	case "pdf":
		b := base64.StdEncoding.EncodeToString(pdf(n))
		rec = map[string]any{"url": "https://hostile.example/doc.pdf", "source_type": "pdf",
			"fetch": map[string]any{"content_type": "application/pdf", "status": 200}, "body_base64": b}
	case "tags":
		tags := make([]string, 0, n+1)
		for i := range n {
			tags = append(tags, "tag-"+strconv.Itoa(i))
		}
		tags = append(tags, strings.Repeat("t", 1<<20))
		rec = map[string]any{"url": "https://hostile.example/tags", "tags": tags}
	default:
		fmt.Fprintln(os.Stderr, "hostile: want word, text, pdf or tags")
		os.Exit(2)
	}
	enc := json.NewEncoder(os.Stdout)
	if err := enc.Encode(rec); err != nil {
		fmt.Fprintln(os.Stderr, "hostile:", err)
		os.Exit(1)
	}
}

// pdf writes a PDF of pages pages that all draw the same content stream.
func pdf(pages int) []byte {
	var content strings.Builder
	content.WriteString("BT /F1 9 Tf 11 TL 40 760 Td\n")
	for i := range 64 {
		fmt.Fprintf(&content, "(Line %02d of a page that every page of this document repeats, to expand.) Tj T*\n", i)
	}
	content.WriteString("ET")
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var kids strings.Builder
	for i := range pages {
		fmt.Fprintf(&kids, "%d 0 R ", 5+i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>", kids.String(), pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()))
	for range pages {
		obj("<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
