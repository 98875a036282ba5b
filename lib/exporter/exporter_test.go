package exporter

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
