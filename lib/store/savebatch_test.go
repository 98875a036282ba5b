package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// batchRecords is a mix for SaveBatch: new items with titles and tags,
// a duplicate within the batch, notes, annotations (one beyond the agent
// cap), an artifact, a record refused before any write (bad tag) and one
// refused half-way, after its item was inserted (a pin of no annotation):
// that item must not stay; an id of no item is refused before any write.
func batchRecords() []*record.Record {
	var recs []*record.Record
	for i := 0; i < 4; i++ {
		r := item("https://batch.example/" + string(rune('a'+i)))
		r.Title = "Title " + string(rune('A'+i))
		r.Tags = []string{"a", "b"}
		r.Via = "import:pocket"
		r.SavedAt = "2024-01-02T03:04:05Z"
		recs = append(recs, r)
	}
	dup := item("https://batch.example/a")
	dup.Tags = []string{"c"}
	dup.Note = "kept twice"
	recs = append(recs, dup)
	bad := item("https://batch.example/badtag")
	bad.Tags = []string{"x,y"}
	recs = append(recs, bad)
	half := item("https://batch.example/half")
	half.Title = "Half"
	half.Pin = []int64{999}
	recs = append(recs, half)
	anns := item("https://batch.example/anns")
	for i := 0; i < 7; i++ {
		anns.Annotations = append(anns.Annotations, record.Annotation{Type: "highlight", Text: "passage " + string(rune('0'+i)), Actor: "agent:x", Confidence: conf(float64(i) / 10)})
	}
	anns.Artifact = &record.Artifact{Summary: "a summary", KeyClaims: []string{"one"}}
	recs = append(recs, anns)
	recs = append(recs, &record.Record{ID: record.ItemID("https://batch.example/b"), Tags: []string{"d"}, TagsRemove: []string{"a"}})
	// refused before any write, without a savepoint
	recs = append(recs, &record.Record{ID: record.ItemID("https://batch.example/none"), Tags: []string{"e"}})
	return recs
}

// storeDump is every row the save path writes, for comparing stores.
func storeDump(t *testing.T, s *Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, q := range map[string]string{
		"items":       `SELECT json_array(seq, id, canonical_url, original_url, source_type, title, ingest_status, saved_at, updated_at) FROM items ORDER BY seq`,
		"tags":        `SELECT json_array(item_id, tag, actor, created_at) FROM tags ORDER BY item_id, tag`,
		"annotations": `SELECT json_array(id, item_id, type, text, actor, confidence, pinned, created_at) FROM annotations ORDER BY id`,
		"events":      `SELECT json_array(id, item_id, entity, entity_id, action, actor, at, detail_json) FROM events ORDER BY id`,
		"artifacts":   `SELECT json_array(id, item_id, summary, key_claims_json, created_by) FROM artifacts ORDER BY id`,
		"search":      `SELECT json_array(rowid, title, body, annotations) FROM search ORDER BY rowid`,
	} {
		var rows []string
		if err := s.DB().Select(&rows, q); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = rows
	}
	return out
}

// TestSaveBatchMatchesSave checks that SaveBatch (one transaction, its
// statements prepared once) gives each record the result Save gives it
// and leaves the same rows, refused records included.
func TestSaveBatchMatchesSave(t *testing.T) {
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	open := func(name string) *Store {
		s, err := Open(ctx, filepath.Join(t.TempDir(), name), Options{Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	one, batch := open("one.db"), open("batch.db")
	show := func(out *record.Record, err error) string {
		if err != nil {
			re, ok := err.(*record.Error)
			if !ok {
				t.Fatalf("not a record error: %v", err)
			}
			return "error " + re.Code + ": " + re.Message
		}
		b, _ := json.Marshal(out)
		return string(b)
	}
	var want []string
	for _, r := range batchRecords() {
		want = append(want, show(one.Save(ctx, r, SaveOptions{})))
	}
	res, err := batch.SaveBatch(ctx, batchRecords(), SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res {
		got = append(got, show(r.Out, r.Err))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("results, Save (-) and SaveBatch (+):\n%s", d)
	}
	if d := cmp.Diff(storeDump(t, one), storeDump(t, batch)); d != "" {
		t.Errorf("rows, Save (-) and SaveBatch (+):\n%s", d)
	}
	var n int
	if err := batch.DB().Get(&n, `SELECT count(*) FROM items WHERE canonical_url = 'https://batch.example/half'`); err != nil || n != 0 {
		t.Errorf("the record refused half-way left %d items (%v)", n, err)
	}
}
