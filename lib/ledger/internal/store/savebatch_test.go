package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jmoiron/sqlx"

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
	return dumpRows(t, s, map[string]string{
		"items":       `SELECT json_array(seq, id, canonical_url, original_url, source_type, title, ingest_status, saved_at, updated_at) FROM items ORDER BY seq`,
		"tags":        `SELECT json_array(item_id, tag, actor, created_at) FROM tags ORDER BY item_id, tag`,
		"annotations": `SELECT json_array(id, item_id, type, text, actor, confidence, pinned, created_at) FROM annotations ORDER BY id`,
		"events":      `SELECT json_array(id, item_id, entity, entity_id, action, actor, at, detail_json) FROM events ORDER BY id`,
		"artifacts":   `SELECT json_array(id, item_id, summary, key_claims_json, created_by) FROM artifacts ORDER BY id`,
		"search":      `SELECT json_array(rowid, title, body, annotations) FROM search ORDER BY rowid`,
	})
}

// dumpRows runs each query (one JSON text a row) and returns its rows by
// name.
func dumpRows(t *testing.T, s *Store, queries map[string]string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, q := range queries {
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
	t.Parallel()
	batch := checkBatchMatchesSave(t, batchRecords)
	var n int
	if err := batch.DB().Get(&n, `SELECT count(*) FROM items WHERE canonical_url = 'https://batch.example/half'`); err != nil || n != 0 {
		t.Errorf("the record refused half-way left %d items (%v)", n, err)
	}
}

// importRecords is an import of more links than SaveBatch writes in one
// multi-row INSERT (maxHeldRows), with CJK titles (a second search row),
// notes, a duplicate, a record that reads the tags held back for an item
// of the same batch, and records refused half-way (rolled back to their
// savepoint) and before any write between them.
func importRecords() []*record.Record {
	var recs []*record.Record
	for i := 0; i < 3*maxHeldRows+5; i++ {
		r := item(fmt.Sprintf("https://import.example/%d", i))
		r.Title = fmt.Sprintf("Post %d, \"quoted\"", i)
		if i%10 == 3 {
			r.Title = fmt.Sprintf("記憶の本 %d", i)
		}
		r.Tags = []string{"a", fmt.Sprintf("b%d", i%7)}
		r.Via = "import:pocket"
		r.SavedAt = fmt.Sprintf("2024-01-02T03:04:%02dZ", i%60)
		if i%17 == 0 {
			r.Note = fmt.Sprintf("note %d", i)
		}
		if i%29 == 0 {
			r.Title = ""
		}
		recs = append(recs, r)
		switch i {
		case 40:
			// an item whose tags are held back still
			dup := item("https://import.example/38")
			dup.Tags = []string{"a", "c"}
			dup.Via = "import:pocket"
			recs = append(recs, dup)
		case 70:
			half := item("https://import.example/half")
			half.Title = "Half"
			half.Tags = []string{"x"}
			half.Note = "a note"
			half.Pin = []int64{999}
			recs = append(recs, half)
		case 71:
			recs = append(recs, &record.Record{ID: record.ItemID("https://import.example/71"), TagsRemove: []string{"a"}})
		case 100:
			bad := item("https://import.example/badtag")
			bad.Tags = []string{"x,y"}
			recs = append(recs, bad)
		}
	}
	return recs
}

// TestSaveBatchImportMatchesSave checks SaveBatch's rows held back for
// multi-row INSERTs: the same results and rows as Save, one record at a
// time.
func TestSaveBatchImportMatchesSave(t *testing.T) {
	t.Parallel()
	checkBatchMatchesSave(t, importRecords)
}

// checkBatchMatchesSave saves recs() with Save, one by one, and with
// SaveBatch into two new stores, compares the results and rows, and
// returns the SaveBatch store.
func checkBatchMatchesSave(t *testing.T, recs func() []*record.Record) *Store {
	t.Helper()
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
	for _, r := range recs() {
		want = append(want, show(one.Save(ctx, r, SaveOptions{})))
	}
	res, err := batch.SaveBatch(ctx, recs(), SaveOptions{})
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
	return batch
}

// TestNewItemSearchRows checks that the search rows Save writes for a
// new item without reading anything back (newItemFTS) are the rows
// refreshFTS builds from the tables.
func TestNewItemSearchRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "fts.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	recs := importRecords()
	withAnns := item("https://import.example/anns")
	withAnns.Title = "日本語のタイトル"
	withAnns.Note = "why"
	withAnns.Annotations = []record.Annotation{{Type: "highlight", Text: "a passage"}, {Type: "lowlight", Text: "低い", Actor: "agent:x"}}
	recs = append(recs, withAnns)
	if _, err := s.SaveBatch(ctx, recs, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	dump := func() map[string][]string {
		out := map[string][]string{}
		for _, table := range []string{"search", "search_cjk"} {
			var rows []string
			if err := s.DB().Select(&rows, `SELECT json_array(rowid, title, body, annotations) FROM `+table+` ORDER BY rowid`); err != nil {
				t.Fatal(err)
			}
			out[table] = rows
		}
		return out
	}
	saved := dump()
	if len(saved["search"]) < 3*maxHeldRows || len(saved["search_cjk"]) < 2 {
		t.Fatalf("too few search rows to compare: %d, %d CJK", len(saved["search"]), len(saved["search_cjk"]))
	}
	var items []struct {
		Seq   int64  `db:"seq"`
		ID    string `db:"id"`
		Title string `db:"title"`
	}
	if err := s.DB().Select(&items, `SELECT seq, id, title FROM items`); err != nil {
		t.Fatal(err)
	}
	err = s.tx(ctx, func(tx *sqlx.Tx) error {
		for _, it := range items {
			if err := deleteFTS(ctx, tx, it.Seq, it.ID); err != nil {
				return err
			}
			var anns int
			if err := tx.Get(&anns, `SELECT count(*) FROM annotations WHERE item_id = ?`, it.ID); err != nil {
				return err
			}
			// Save writes a row only for an item with a title or annotations
			if it.Title != "" || anns > 0 {
				if err := insertFTS(ctx, tx, it.Seq, it.ID); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(saved, dump()); d != "" {
		t.Errorf("search rows, as saved (-) and rebuilt (+):\n%s", d)
	}
}
