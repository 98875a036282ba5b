package importer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/internal/golden"
)

// readAll runs a format on data and returns its records and bad rows as
// JSON lines ("bad LINE: message" for a bad row).
func readAll(t *testing.T, f *Format, data []byte) []string {
	t.Helper()
	var out []string
	s := &Sink{
		Link: func(l *Link) error {
			b, err := json.Marshal(l.Record(f.Tool))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(b))
			return nil
		},
		Bad: func(line int, msg string) error {
			out = append(out, fmt.Sprintf("bad %d: %s", line, msg))
			return nil
		},
	}
	if err := f.Read(data, s); err != nil {
		out = append(out, "error: "+err.Error())
	}
	return out
}

// TestFormats reads every file of testdata/NAME.* (NAME a format) and
// compares the records with testdata/NAME.*.want, one JSON record or bad
// row per line. The format is also detected from the content.
func TestFormats(t *testing.T) {
	files, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".want") {
			continue
		}
		base := filepath.Base(file)
		name, _, _ := strings.Cut(base, ".")
		name, _, _ = strings.Cut(name, "_")
		f := Formats[name]
		if f == nil {
			t.Fatalf("%s: no format %q", file, name)
		}
		n++
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			wantB, err := os.ReadFile(file + ".want")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Split(strings.TrimSpace(string(wantB)), "\n")
			got := readAll(t, f, data)
			if golden.Update() {
				os.WriteFile(file+".want", []byte(strings.Join(got, "\n")+"\n"), 0o644)
				return
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			det, err := Detect(base, data)
			if err != nil || det != f {
				t.Errorf("detected %v (%v), want %s", det, err, f.Name)
			}
		})
	}
	if n == 0 {
		t.Fatal("no test files")
	}
}

func TestCleanTag(t *testing.T) {
	for in, want := range map[string]string{
		"  Research, misc ":     "research misc",
		"a\tb\nc":               "a b c",
		"Ünïcode":               "ünïcode",
		strings.Repeat("é", 80): strings.Repeat("é", 50),
	} {
		if got := CleanTag(in); got != want {
			t.Errorf("CleanTag(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnixTime(t *testing.T) {
	for in, want := range map[string]string{
		"1600000000":       "2020-09-13T12:26:40Z",
		"1600000000000":    "2020-09-13T12:26:40Z",
		"1600000000000000": "2020-09-13T12:26:40Z",
		"0":                "0001-01-01T00:00:00Z",
		"x":                "0001-01-01T00:00:00Z",
	} {
		if got := unixTime(in).Format("2006-01-02T15:04:05Z07:00"); got != want {
			t.Errorf("unixTime(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestOmnivoreZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name, body string) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	add("metadata_0_to_2.json", `[{"id":"1","slug":"omni-one","title":"Omni, \"one\"","url":"https://example.com/o1","state":"Archived","labels":[{"name":"Go"},"db"],"savedAt":"2024-01-02T03:04:05.000Z"},
		{"id":"2","slug":"omni-two","title":"Two","url":"","state":"Succeeded","labels":[],"savedAt":"2024-01-03T00:00:00.000Z"}]`)
	add("highlights/omni-one.md", "# Omni one\n\n> first quote\n> goes on\n\nmy note on it\n\n> second quote\n")
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := Detect("omnivore.zip", buf.Bytes())
	if err != nil || f != omnivoreZip {
		t.Fatalf("detected %v %v", f, err)
	}
	got := readAll(t, f, buf.Bytes())
	want := []string{
		`{"url":"https://example.com/o1","tags":["go","db","read"],"annotations":[{"type":"highlight","text":"first quote\ngoes on","actor":"human","created_at":"2024-01-02T03:04:05Z"},{"type":"note","text":"my note on it\n\n\u003e first quote","actor":"human","created_at":"2024-01-02T03:04:05Z"},{"type":"highlight","text":"second quote","actor":"human","created_at":"2024-01-02T03:04:05Z"}],"saved_at":"2024-01-02T03:04:05Z","via":"import:omnivore","title":"Omni, \"one\""}`,
		`bad 0: metadata_0_to_2.json item 2: no url`,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
}
