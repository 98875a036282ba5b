package pdf

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/parse"
)

// TestTextCapStopsEndlessTool: the output of pdftotext is read through the
// cap. The tool here is a stand-in that never stops writing text (as a
// small PDF whose pages expand to gigabytes would); without the cap the
// adapter would read until memory ran out or the timeout hit. Needs no
// poppler.
func TestTextCapStopsEndlessTool(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "pdftotext")
	script := "#!/bin/sh\nwhile :; do echo 'Endless text from a hostile document, line after line.'; done\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	const limit = 100 << 10
	a := Adapter(Options{Pdftotext: tool, Pdfinfo: filepath.Join(dir, "no-pdfinfo"), MaxTextBytes: limit})
	res, err := a.Parse(pdfRecord(miniPDF(nil, textPage("x")), "application/pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated {
		t.Error("result not marked truncated")
	}
	n := len(joined(res.Segments))
	if n > limit || n < limit/2 {
		t.Errorf("text is %d bytes, want at most %d and most of it kept", n, limit)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "stopped at") {
		t.Errorf("warnings %q do not say the output was cut", res.Warnings)
	}
}

// TestTextCapRealPDF: a PDF whose text is longer than the cap gives an item
// with the cap's worth of text, marked truncated (needs poppler).
func TestTextCapRealPDF(t *testing.T) {
	needPoppler(t)
	var pages []string
	for i := range 40 {
		var lines []string
		for j := range 40 {
			lines = append(lines, fmt.Sprintf("Page %d line %d of a document longer than the cap.", i, j))
		}
		pages = append(pages, textPage(lines...))
	}
	const limit = 8 << 10
	rec := pdfRecord(miniPDF(nil, pages...), "application/pdf")
	a := Adapter(Options{MaxTextBytes: limit})
	parse.Run(rec, []parse.Adapter{a}, parse.Options{MaxTextBytes: limit})
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	if n := len(rec.TextValue()); n > limit || n < limit/2 {
		t.Errorf("text is %d bytes, want at most %d", n, limit)
	}
	if rec.Parse == nil || !rec.Parse.Truncated {
		t.Errorf("parse = %+v, want truncated", rec.Parse)
	}
}
