package parse

import (
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/record"
)

// bigText is n bytes of paragraphs of prose.
func bigText(n int) string {
	para := strings.Repeat("Word after word makes a sentence. ", 30) + "\n\n"
	return strings.Repeat(para, n/len(para)+1)[:n]
}

// checkCapped checks that rec's text, chunks and parse info respect limit
// and say the text was truncated.
func checkCapped(t *testing.T, rec *record.Record, limit int) {
	t.Helper()
	if rec.Error != nil {
		t.Fatalf("error %+v", rec.Error)
	}
	if n := len(rec.TextValue()); n > limit || n < limit/2 {
		t.Errorf("text is %d bytes, want at most %d (and most of it kept)", n, limit)
	}
	total := 0
	for _, c := range rec.Chunks {
		total += len(c.Text)
	}
	if total > 2*limit {
		t.Errorf("chunks hold %d bytes for a text capped at %d", total, limit)
	}
	if n := len(rec.Markdown); n > 2*limit {
		t.Errorf("markdown is %d bytes for a text capped at %d", n, limit)
	}
	if rec.Parse == nil || !rec.Parse.Truncated {
		t.Fatalf("parse = %+v, want truncated", rec.Parse)
	}
	if len(rec.Parse.Warnings) == 0 || !strings.Contains(rec.Parse.Warnings[len(rec.Parse.Warnings)-1], "truncated") {
		t.Errorf("warnings %q do not say the text was truncated", rec.Parse.Warnings)
	}
}

// TestMaxTextBytesEveryAdapter: whatever adapter extracts the text, the
// item keeps at most MaxTextBytes of it and says so.
func TestMaxTextBytesEveryAdapter(t *testing.T) {
	const limit = 64 << 10
	big := bigText(1 << 20)
	for _, tt := range []struct {
		name string
		rec  *record.Record
	}{
		{"plain", fetched("https://x.example/a.txt", "text/plain", big)},
		{"markdown", fetched("https://x.example/a.md", "text/markdown", "# Title\n\n"+big)},
		{"html", fetched("https://x.example/a", "text/html", "<html><body><p>"+strings.ReplaceAll(big, "\n\n", "</p><p>")+"</p></body></html>")},
		{"adapter", &record.Record{URL: "https://x.example/b", Body: new(string)}},
		{"text-import", &record.Record{URL: "https://x.example/c", Text: &big}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			adapters := generic()
			if tt.name == "adapter" {
				adapters = []Adapter{fakeAdapter{name: "fake", text: big}}
			}
			Run(tt.rec, adapters, Options{MaxTextBytes: limit})
			checkCapped(t, tt.rec, limit)
		})
	}
}

// TestMaxTextBytesUnderCapUntouched: text under the cap is not marked.
func TestMaxTextBytesUnderCapUntouched(t *testing.T) {
	small := bigText(10 << 10)
	rec := fetched("https://x.example/a.txt", "text/plain", small)
	Run(rec, generic(), Options{MaxTextBytes: 64 << 10})
	if rec.Parse == nil || rec.Parse.Truncated || len(rec.Parse.Warnings) > 0 {
		t.Errorf("parse = %+v, want not truncated", rec.Parse)
	}
}

// TestBoundHandMadeRecord: a record that arrives at ll-index with text and
// chunks over the cap (made by hand, not by ll-parse) is cut and chunked
// again; one with too many tiny chunks is chunked again from its text.
func TestBoundHandMadeRecord(t *testing.T) {
	const limit = 64 << 10
	big := bigText(1 << 20)
	rec := &record.Record{URL: "https://x.example/a", Text: &big, Chunks: []record.Chunk{{Text: big, Tokens: 1}}}
	if !Bound(rec, Options{MaxTextBytes: limit}) {
		t.Fatal("Bound did not cut an oversize record")
	}
	checkCapped(t, rec, limit)

	var many []record.Chunk
	for i := range MaxChunks(limit) + 1 {
		many = append(many, record.Chunk{Index: i, Text: "x", Tokens: 1})
	}
	rec = &record.Record{URL: "https://x.example/b", Chunks: many}
	if !Bound(rec, Options{MaxTextBytes: limit}) {
		t.Fatal("Bound did not cut a record with too many chunks")
	}
	if len(rec.Chunks) > MaxChunks(limit) || !rec.Parse.Truncated {
		t.Errorf("%d chunks, parse %+v", len(rec.Chunks), rec.Parse)
	}

	small := bigText(1000)
	rec = &record.Record{URL: "https://x.example/c", Text: &small}
	if Bound(rec, Options{MaxTextBytes: limit}) || rec.Parse != nil {
		t.Errorf("Bound changed a record under the cap: %+v", rec.Parse)
	}
}

// TestMetadataCapped: a forged record's megabyte title and description are
// cut, with a warning each, in ll-parse (apply) and ll-index (Bound).
func TestMetadataCapped(t *testing.T) {
	huge := strings.Repeat("T", 1<<20)
	check := func(t *testing.T, rec *record.Record) {
		t.Helper()
		if len(rec.Title) > MaxTitleBytes || len(rec.Description) > MaxDescriptionBytes {
			t.Errorf("title %d bytes, description %d bytes: not capped", len(rec.Title), len(rec.Description))
		}
		if rec.Parse == nil || !rec.Parse.Truncated || !strings.Contains(strings.Join(rec.Parse.Warnings, "\n"), "title truncated") {
			t.Errorf("parse = %.300v, want truncated with a title warning", rec.Parse)
		}
	}
	t.Run("ll-parse", func(t *testing.T) {
		rec := &record.Record{URL: "https://x.example/m", Body: new(string)}
		Run(rec, []Adapter{titleAdapter{huge}}, Options{})
		check(t, rec)
	})
	t.Run("ll-index", func(t *testing.T) {
		text := "Short text."
		rec := &record.Record{URL: "https://x.example/m", Title: huge, Description: huge, Text: &text}
		Bound(rec, Options{})
		check(t, rec)
	})
}

// titleAdapter gives a result with a title and description of its choice.
type titleAdapter struct{ meta string }

func (titleAdapter) Name() string              { return "title" }
func (titleAdapter) Match(*record.Record) bool { return true }
func (a titleAdapter) Parse(*record.Record) (*Result, error) {
	return &Result{Title: a.meta, Description: a.meta, Segments: []Segment{{Text: "Some text."}}}, nil
}
