package exporter

import (
	"encoding/json"
	"os"
	"path/filepath"
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
