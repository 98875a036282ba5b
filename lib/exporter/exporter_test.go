package exporter

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/linkledger/linkledger/lib/record"
)

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"The quokka's island", "The quokka's island ll_0123456789abcdef.md"},
		{`a/b: c? "d" #e [[f]]`, "a b c d e f ll_0123456789abcdef.md"},
		{"...hidden", "hidden ll_0123456789abcdef.md"},
		{"", "ll_0123456789abcdef.md"},
	} {
		if got := fileName(tc.title, "ll_0123456789abcdef"); got != tc.want {
			t.Errorf("fileName(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	c := 0.82
	rec := &record.Record{ID: "ll_0123456789abcdef", URL: "https://example.com/a", Title: `A "quoted" title`, SourceType: "article",
		Tagged:      []record.Tag{{Tag: "ai"}, {Tag: "long read"}},
		Annotations: []record.Annotation{{Type: "highlight", Text: "key\nclaim", Actor: "agent:r", Confidence: &c, Pinned: true, CreatedAt: "2024-01-02T03:04:05Z"}, {Type: "note", Text: "mine", Actor: "human", CreatedAt: "2024-01-03T00:00:00Z"}},
		Extra:       map[string]json.RawMessage{"ingest": json.RawMessage(`{"status":"parsed","saved_at":"2024-01-01T00:00:00Z"}`)}}
	want := "---\nurl: \"https://example.com/a\"\ntitle: \"A \\\"quoted\\\" title\"\nsource: \"article\"\nsaved: \"2024-01-01T00:00:00Z\"\ntags: [\"ai\",\"long read\"]\nstatus: \"parsed\"\nlinkledger_id: \"ll_0123456789abcdef\"\n---\n\n" +
		"# A \"quoted\" title\n\n## Highlights\n\n- key\n  claim  \n  — agent:r, confidence 0.82, pinned, 2024-01-02T03:04:05Z\n\n## Notes\n\n- mine  \n  — human, 2024-01-03T00:00:00Z\n\n"
	if d := cmp.Diff(want, string(Markdown(rec))); d != "" {
		t.Errorf("markdown (-want +got):\n%s", d)
	}
	dir := t.TempDir()
	v, err := OpenVault(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, written, err := v.Item(rec)
	if err != nil || !written {
		t.Fatalf("first write: %v %v", written, err)
	}
	// renamed by the user before the id: found again, not written twice
	renamed := filepath.Join(dir, "my name ll_0123456789abcdef.md")
	if err := os.Rename(path, renamed); err != nil {
		t.Fatal(err)
	}
	v, _ = OpenVault(dir)
	rec.Title = "A new title"
	path, written, err = v.Item(rec)
	if err != nil || !written || path != renamed {
		t.Fatalf("after rename: %s %v %v", path, written, err)
	}
	if _, written, _ = v.Item(rec); written {
		t.Error("unchanged item written again")
	}
}

func TestHighlightsFileHostile(t *testing.T) {
	recs := GroupByItem([]*record.Record{
		{ID: "ll_0000000000000001", URL: "https://example.com/a?x=<b>", Title: "# Owned\n- [click](javascript:alert(1)) <script>x</script>",
			Annotations: []record.Annotation{{ID: 2, Type: "highlight", Text: "first\n# not a heading\n    1. not a list\n---\n<img src=x onerror=alert(1)>", Actor: "human", CreatedAt: "2024-01-02T03:04:05Z"}}},
		{ID: "ll_0000000000000002", URL: "javascript:alert(1)", Title: "Plain",
			Annotations: []record.Annotation{{ID: 3, Type: "highlight", Text: "*bold* [[wiki]] #tag", Actor: "agent:x\ny", CreatedAt: "2024-01-01T00:00:00Z"}}},
		{ID: "ll_0000000000000001", URL: "https://example.com/a?x=<b>", Title: "ignored",
			Annotations: []record.Annotation{{ID: 1, Type: "note", Text: "a note", Actor: "human", CreatedAt: "2023-12-31T00:00:00Z"}}},
	})
	if len(recs) != 2 || len(recs[0].Annotations) != 2 {
		t.Fatalf("grouped into %d items (first has %d annotations), want 2 and 2", len(recs), len(recs[0].Annotations))
	}
	var b bytes.Buffer
	if err := (&HighlightsFile{Title: "Highlights", Note: "tag: ai", Items: recs}).Write(&b); err != nil {
		t.Fatal(err)
	}
	want := "# Highlights\n\ntag: ai\n\n" +
		"## \\# Owned - \\[click\\](javascript:alert(1)) \\<script\\>x\\</script\\>\n\n" +
		"Source: [https://example.com/a?x=\\<b\\>](<https://example.com/a?x=%3Cb%3E>)\n\n" +
		"### Highlights\n\n- first\n  \\# not a heading\n  1\\. not a list\n  \\---\n  \\<img src=x onerror=alert(1)\\>  \n  — human, 2024-01-02T03:04:05Z\n\n" +
		"### Notes\n\n- a note  \n  — human, 2023-12-31T00:00:00Z\n\n" +
		"## Plain\n\nSource: javascript:alert(1)\n\n" +
		"### Highlights\n\n- \\*bold\\* \\[\\[wiki\\]\\] \\#tag  \n  — agent:x y, 2024-01-01T00:00:00Z\n\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("highlights file (-want +got):\n%s", d)
	}
	// rendered as CommonMark (GFM): headings only where we wrote them,
	// no raw HTML, no link but the source's
	var html bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(b.Bytes(), &html); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, c := range []struct {
		sub  string
		want int
	}{{"<h1", 1}, {"<h2", 2}, {"<h3", 3}, {"<script", 0}, {"<img", 0}, {"<a ", 1}, {`<a href="https://example.com/a?x=%3Cb%3E">`, 1}, {"<ol", 0}, {"<hr", 0}, {"<em", 0}, {"<strong", 0}} {
		if n := strings.Count(h, c.sub); n != c.want {
			t.Errorf("rendered: %d of %q, want %d:\n%s", n, c.sub, c.want, h)
		}
	}
}

func TestBlock(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"a\n\n\n b", "a\n\n  b"},
		{"+ x\n= y\n12) z\n2024 was", "\\+ x\n  \\= y\n  12\\) z\n  2024 was"},
		{"`code` & <b>", "\\`code\\` \\& \\<b\\>"},
	} {
		if got := Block(tc.in, "  "); got != tc.want {
			t.Errorf("Block(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestVaultImages: a stored image is written beside the note (images/ID-N.ext)
// and the note links it; a web image without a copy becomes a link, so
// opening the note asks no one for it; a second export writes nothing.
func TestVaultImages(t *testing.T) {
	id := "ll_0123456789abcdef"
	rec := &record.Record{ID: id, URL: "https://example.com/a", Title: "Pictures",
		Markdown: "Text.\n\n![A chart \\[1\\]](https://img.example/a.png)\n\nFigure 1.\n\n![](https://img.example/b.jpg \"title\")\n\n![local](pics/c.png)",
		Images: []record.Image{
			{URL: "https://img.example/a.png", Alt: "A chart [1]", ContentType: "image/png", Bytes: 4, Data: []byte("\x89PNG")},
			{URL: "https://img.example/b.jpg", Error: "too_large"},
		}}
	dir := t.TempDir()
	v, err := OpenVault(dir)
	if err != nil {
		t.Fatal(err)
	}
	path, written, err := v.Item(rec)
	if err != nil || !written {
		t.Fatalf("write: %v %v", written, err)
	}
	img, err := os.ReadFile(filepath.Join(dir, "images", id+"-1.png"))
	if err != nil || string(img) != "\x89PNG" {
		t.Fatalf("image beside the note: %q %v", img, err)
	}
	note, _ := os.ReadFile(path)
	for _, want := range []string{
		"![A chart \\[1\\]](images/" + id + "-1.png)",
		"[image](https://img.example/b.jpg)",
		"![local](pics/c.png)",
	} {
		if !strings.Contains(string(note), want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if strings.Contains(string(note), "![](https://") || strings.Contains(string(note), "img.example/a.png") {
		t.Errorf("note still embeds a web image:\n%s", note)
	}
	if _, written, _ = v.Item(rec); written {
		t.Error("unchanged item and image written again")
	}
}
