package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// indexRecords is an ingest for IndexBatch: new items (some with CJK text,
// more search rows than one INSERT writes), an item indexed twice in the
// input (the second time with fewer chunks, whose freed chunk ids the next
// items take), an unchanged text under a new title, a text equal to
// another item's (duplicate_of), an item with highlights (their quotes are
// re-anchored), and records that are not batched between them: a failure,
// a 304, a chunk with negative tokens (refused before any write) and a
// forged id.
func indexRecords() []*record.Record {
	content := func(url, title string, chunks ...string) *record.Record {
		r := item(url)
		r.Title = title
		text := strings.Join(chunks, "\n\n")
		r.Text = &text
		r.Checksum = fmt.Sprintf("sha256:%x", len(text)*31+len(chunks))
		for i, c := range chunks {
			r.Chunks = append(r.Chunks, record.Chunk{Index: i, Text: c, Tokens: len(strings.Fields(c))})
		}
		return r
	}
	var recs []*record.Record
	for i := 0; i < 40; i++ {
		var chunks []string
		for k := 0; k < 1+i%9; k++ {
			c := fmt.Sprintf("Chunk %d of item %d: agents remember links and quotes %d.", k, i, i*k)
			if i%7 == 3 {
				c += " 記憶の本"
			}
			chunks = append(chunks, c)
		}
		recs = append(recs, content(fmt.Sprintf("https://ix.example/%d", i), fmt.Sprintf("Item %d", i), chunks...))
		switch i {
		case 5:
			recs = append(recs, content("https://ix.example/2", "Item 2 again", "Only one chunk now."))
		case 9:
			r := content("https://ix.example/4", "Item 4 renamed")
			*r = *recs[4]
			r.Title = "Item 4 renamed"
			recs = append(recs, r)
		case 12:
			r := content("https://ix.example/dup", "Same text")
			*r = *recs[7]
			r.URL, r.CanonicalURL, r.ID = "https://ix.example/dup", "https://ix.example/dup", record.ItemID("https://ix.example/dup")
			recs = append(recs, r)
		case 15:
			r := item("https://ix.example/failed")
			r.Error = &record.Error{Stage: record.StageFetch, Code: "http_status", Message: "404", Retryable: false}
			recs = append(recs, r)
		case 18:
			r := item("https://ix.example/1")
			r.Fetch = &record.FetchInfo{NotModified: true, FetchedAt: "2026-01-02T03:04:05Z"}
			recs = append(recs, r)
		case 21:
			r := content("https://ix.example/neg", "Negative", "a b")
			r.Chunks[0].Tokens = -1
			recs = append(recs, r)
		case 24:
			r := content("https://ix.example/forged", "Forged", "text")
			r.ID = record.ItemID("https://ix.example/3")
			recs = append(recs, r)
		case 27:
			recs = append(recs, content("https://ix.example/quoted", "Quoted again", "Intro.", "The key claim moved here, verbatim.", "Outro."))
		}
	}
	return recs
}

// TestIndexBatchMatchesIndex checks that IndexBatch (runs of content
// records in one transaction, their search rows written at the run's end)
// gives each record Index's result and leaves the same rows.
func TestIndexBatchMatchesIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	open := func(name string) *Store {
		s, err := Open(ctx, filepath.Join(t.TempDir(), name), Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		// an item with text and a highlight before the ingest
		text := "The key claim, verbatim.\n\nMore."
		q := item("https://ix.example/quoted")
		q.Title, q.Text, q.Checksum = "Quoted", &text, "sha256:q"
		q.Chunks = []record.Chunk{{Index: 0, Text: "The key claim, verbatim.", Tokens: 5}, {Index: 1, Text: "More.", Tokens: 1}}
		if _, err := s.Index(ctx, q, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
		h := &record.Record{ID: q.ID, Annotations: []record.Annotation{{Type: record.AnnHighlight, Text: "The key claim", Actor: "human"}}}
		if _, err := s.Save(ctx, h, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	one, batch := open("one.db"), open("batch.db")
	show := func(res *record.IndexResult, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		b, _ := json.Marshal(res)
		return string(b)
	}
	var want []string
	for _, r := range indexRecords() {
		want = append(want, show(one.Index(ctx, r, IndexOptions{})))
	}
	var got []string
	for _, r := range batch.IndexBatch(ctx, indexRecords(), IndexOptions{}) {
		got = append(got, show(r.Res, r.Err))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results, Index (-) and IndexBatch (+):\n%s", d)
	}
	dump := func(s *Store) map[string][]string {
		out := storeDump(t, s)
		for name, rows := range dumpRows(t, s, map[string]string{
			"items_content": `SELECT json_array(id, title, checksum, duplicate_of, ingest_status, error_json, attempts, fetched_at, content_from_record) FROM items ORDER BY seq`,
			"chunks":        `SELECT json_array(id, item_id, chunk_index, text, tokens) FROM content_chunks ORDER BY id`,
			"search_cjk":    `SELECT json_array(rowid, title, body, annotations) FROM search_cjk ORDER BY rowid`,
			"anchors":       `SELECT json_array(id, chunk_id, chunk_index, text) FROM annotations ORDER BY id`,
		}) {
			out[name] = rows
		}
		return out
	}
	w := dump(one)
	if len(w["search"]) < ftsRowsPerInsert/2 || len(w["search_cjk"]) < 10 {
		t.Fatalf("too few search rows to compare: %d, %d CJK", len(w["search"]), len(w["search_cjk"]))
	}
	if d := cmp.Diff(w, dump(batch)); d != "" {
		t.Errorf("rows, Index (-) and IndexBatch (+):\n%s", d)
	}
	// and the index finds the same: every term's rows in both
	for _, term := range []string{"agents", "記憶の本", "claim", "item"} {
		var a, b []int64
		table := "search"
		if term == "記憶の本" {
			table = "search_cjk"
		}
		q := `SELECT rowid FROM ` + table + ` WHERE ` + table + ` MATCH ? ORDER BY rowid`
		if err := one.DB().Select(&a, q, term); err != nil {
			t.Fatal(err)
		}
		if err := batch.DB().Select(&b, q, term); err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !cmp.Equal(a, b) {
			t.Errorf("%s: Index finds %v, IndexBatch %v", term, a, b)
		}
	}
}
