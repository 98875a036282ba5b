package pdf

import (
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/internal/sharedtest"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

func needPoppler(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"pdftotext", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: install poppler-utils (make setup) to run the PDF tests", tool)
		}
	}
}

func pdfRecord(data []byte, contentType string) *record.Record {
	b := base64.StdEncoding.EncodeToString(data)
	return &record.Record{
		URL:        "https://example.com/doc.pdf",
		SourceType: record.SourcePDF,
		Fetch:      &record.FetchInfo{ContentType: contentType},
		BodyBase64: &b,
	}
}

type segment struct {
	Page int
	Text string
}

func flat(segs []parse.Segment) []segment {
	var out []segment
	for _, s := range segs {
		out = append(out, segment{s.Page, s.Text})
	}
	return out
}

func TestParse(t *testing.T) {
	needPoppler(t)
	encrypted, err := os.ReadFile(filepath.Join("testdata", "encrypted-user-secret.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	simple := miniPDF(map[string]string{"Title": "A Tiny Test", "Author": "Link Ledger", "CreationDate": "D:20240102030405+02'00'"},
		textPage("Hello from a tiny PDF.", "Second line of the first paragraph."))
	twoPages := miniPDF(nil,
		textPage("First page text."),
		textPage("Second page talks about ef\\256cient \\257ow."))
	drawn := miniPDF(map[string]string{"Title": "Scanned Letter"}, drawnPage, drawnPage)
	// Cut before the xref table: pdftotext rebuilds the cross references.
	truncated := simple[:strings.LastIndex(string(simple), "xref")]

	tests := []struct {
		name     string
		data     []byte
		password string
		want     *parse.Result
		wantSegs []segment
		wantErr  string // record error code
	}{
		{
			name: "simple text and metadata",
			data: simple,
			want: &parse.Result{Title: "A Tiny Test", Author: "Link Ledger", PublishedAt: "2024-01-02T01:04:05Z", SourceType: "pdf"},
			wantSegs: []segment{
				{1, "Hello from a tiny PDF.\nSecond line of the first paragraph."},
			},
		},
		{
			name: "two pages, ligature glyphs come out as letters, title from first line",
			data: twoPages,
			want: &parse.Result{Title: "First page text.", SourceType: "pdf"},
			wantSegs: []segment{
				{1, "First page text."},
				{2, "Second page talks about efficient flow."},
			},
		},
		{
			name: "no text layer keeps metadata and says why",
			data: drawn,
			want: &parse.Result{Title: "Scanned Letter", SourceType: "pdf", NoTextReason: NoTextLayer,
				Warnings: []string{"pdf has no text layer (scanned or drawn pages); indexed metadata only"}},
		},
		{
			name:    "encrypted without password",
			data:    encrypted,
			wantErr: record.CodeEncrypted,
		},
		{
			name:     "encrypted with a wrong password",
			data:     encrypted,
			password: "nope",
			wantErr:  record.CodeEncrypted,
		},
		{
			name:     "encrypted with the user password",
			data:     encrypted,
			password: "secret",
			want:     &parse.Result{Title: "A Tiny Test", Author: "Link Ledger", PublishedAt: "2024-01-02T03:04:05Z", SourceType: "pdf"},
			wantSegs: []segment{
				{1, "Hello from a tiny PDF.\nSecond line of the first paragraph."},
				{2, "Page two talks about eficient flow."},
			},
		},
		{
			name:    "garbage after the header is corrupt",
			data:    []byte("%PDF-1.4\nthis is not a pdf at all\n"),
			wantErr: record.CodeCorrupt,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Adapter(Options{Password: tt.password})
			rec := pdfRecord(tt.data, "application/pdf")
			if !a.Match(rec) {
				t.Fatal("adapter does not match a pdf record")
			}
			got, err := a.Parse(rec)
			if tt.wantErr != "" {
				var re *record.Error
				if !errors.As(err, &re) || re.Code != tt.wantErr {
					t.Fatalf("error = %v, want record error %s", err, tt.wantErr)
				}
				if re.Stage != record.StageParse || re.Retryable {
					t.Errorf("error = %+v, want stage parse, not retryable", re)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			segs := flat(got.Segments)
			got.Segments = nil
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("result (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantSegs, segs); d != "" {
				t.Errorf("segments (-want +got):\n%s", d)
			}
		})
	}

	t.Run("truncated file recovers text", func(t *testing.T) {
		got, err := Adapter(Options{}).Parse(pdfRecord(truncated, "application/pdf"))
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Segments) == 0 || !strings.Contains(got.Segments[0].Text, "Hello from a tiny PDF.") {
			t.Errorf("segments = %+v, want the first page text", got.Segments)
		}
	})
}

func TestMissingTool(t *testing.T) {
	a := Adapter(Options{Pdftotext: "pdftotext-that-does-not-exist"})
	_, err := a.Parse(pdfRecord(miniPDF(nil, textPage("x")), "application/pdf"))
	var re *record.Error
	if !errors.As(err, &re) || re.Code != record.CodeMissingTool || re.Message != MissingToolMessage {
		t.Fatalf("error = %v, want missing_tool with the install hint", err)
	}
}

func TestMatch(t *testing.T) {
	pdf := miniPDF(nil, textPage("x"))
	html := "<html>not a pdf</html>"
	tests := []struct {
		name string
		rec  *record.Record
		want bool
	}{
		{"content type", pdfRecord([]byte("whatever bytes"), "application/pdf"), true},
		{"magic bytes with octet-stream", pdfRecord(pdf, "application/octet-stream"), true},
		{"binary non-pdf", pdfRecord([]byte("GIF89a...."), "image/gif"), false},
		{"text body", &record.Record{Body: &html, Fetch: &record.FetchInfo{ContentType: "text/html"}}, false},
	}
	for _, tt := range tests {
		if got := Adapter(Options{}).Match(tt.rec); got != tt.want {
			t.Errorf("%s: Match = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSegments(t *testing.T) {
	in := "Title line\n\nThe \uFB01rst \uFB02ow of \uFB03ce work   \nnext line\n\f\n\fPage three\f"
	want := []segment{
		{1, "Title line"},
		{1, "The first flow of ffice work\nnext line"},
		{3, "Page three"},
	}
	if d := cmp.Diff(want, flat(Segments(in))); d != "" {
		t.Errorf("segments (-want +got):\n%s", d)
	}
}

// sharedFixtures returns the shared sample directory next to the repository
// (../shared/fixtures/pdf from the repo root), or skips.
func sharedFixtures(t *testing.T) string { return sharedtest.Dir(t, "fixtures", "pdf") }

// TestSharedSamples runs the adapter on the pdfminer sample set and compares
// the text with poppler's reference dumps, modulo ligature folding.
func TestSharedSamples(t *testing.T) {
	needPoppler(t)
	dir := sharedFixtures(t)
	samples, _ := filepath.Glob(filepath.Join(dir, "samples", "*.pdf"))
	if len(samples) == 0 {
		t.Skip("no shared pdf samples")
	}
	for _, path := range samples {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			password := ""
			if strings.HasPrefix(name, "encryption_") && name != "encryption_base.pdf" {
				_, err := Adapter(Options{}).Parse(pdfRecord(data, "application/pdf"))
				var re *record.Error
				if !errors.As(err, &re) || re.Code != record.CodeEncrypted {
					t.Fatalf("without password: error = %v, want encrypted", err)
				}
				password = "baz"
			}
			got, err := Adapter(Options{Password: password}).Parse(pdfRecord(data, "application/pdf"))
			if err != nil {
				t.Fatal(err)
			}
			ref, err := os.ReadFile(filepath.Join(dir, "pdftotext-reference", name+".txt"))
			if err != nil {
				t.Skip("no reference text")
			}
			want := flat(Segments(string(ref)))
			if d := cmp.Diff(want, flat(got.Segments)); d != "" {
				t.Errorf("segments differ from the reference (-want +got):\n%s", d)
			}
			if name == "zen_of_python_corrupted.pdf" && !strings.Contains(joined(got.Segments), "Beautiful is better than ugly.") {
				t.Errorf("corrupted sample lost the Zen of Python text")
			}
			if name == "encryption_base.pdf" && !strings.Contains(joined(got.Segments), "Secret!") {
				t.Errorf("encryption_base text = %q, want Secret!", joined(got.Segments))
			}
		})
	}
}

func joined(segs []parse.Segment) string {
	var parts []string
	for _, s := range segs {
		parts = append(parts, s.Text)
	}
	return strings.Join(parts, "\n")
}

// BenchmarkParse measures one small two-page PDF end to end: temporary
// file, pdfinfo and pdftotext runs, segmenting.
func BenchmarkParse(b *testing.B) {
	for _, tool := range []string{"pdftotext", "pdfinfo"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s not found", tool)
		}
	}
	rec := pdfRecord(miniPDF(nil, textPage("First page."), textPage("Second page.")), "application/pdf")
	a := Adapter(Options{})
	for b.Loop() {
		if _, err := a.Parse(rec); err != nil {
			b.Fatal(err)
		}
	}
}
