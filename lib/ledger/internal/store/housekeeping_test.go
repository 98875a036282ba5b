package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func openAt(t *testing.T, now time.Time) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustSave(t *testing.T, s *Store, rec *record.Record) *record.Record {
	t.Helper()
	res, err := s.Save(context.Background(), rec, SaveOptions{})
	if err != nil {
		t.Fatalf("save %s: %v", rec.ID, err)
	}
	return res
}

func integrityOK(t *testing.T, s *Store) {
	t.Helper()
	res, err := s.IntegrityCheck(context.Background())
	if err != nil || res != "ok" {
		t.Fatalf("integrity check: %q %v", res, err)
	}
}

func searchIDs(t *testing.T, s *Store, text string, f Filter) []string {
	t.Helper()
	res, err := s.searchWith(context.Background(), searchOpts{SearchOptions: SearchOptions{Text: text, Filter: f}, exactCounts: true})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	var ids []string
	for _, h := range res.Hits {
		ids = append(ids, h.ID)
	}
	return ids
}

func TestShow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	s := openAt(t, now)
	url := "https://example.com/show"
	addDocs(t, s, doc{url: url, title: "Show me", chunks: []string{"First part about owls.", "Second part about bats."}, tags: []string{"night"}})
	var chunk1 int64
	if err := s.DB().Get(&chunk1, `SELECT id FROM content_chunks WHERE chunk_index = 1`); err != nil {
		t.Fatal(err)
	}
	in := item(url)
	in.Actor = "agent:r"
	in.Tags = []string{"animals"}
	in.Annotations = []record.Annotation{{Type: "highlight", Text: "bats", Confidence: conf(0.8), ChunkID: &chunk1}}
	in.Artifact = &record.Artifact{Summary: "About owls and bats", KeyClaims: []string{"owls hunt"}}
	mustSave(t, s, in)
	note := item(url)
	note.Note = "read again"
	mustSave(t, s, note)

	rec, err := s.Show(ctx, record.ItemID(url), ShowOptions{Text: true})
	if err != nil {
		t.Fatal(err)
	}
	ts := record.FormatTime(now)
	one := 1
	var annIDs []int64
	s.DB().Select(&annIDs, `SELECT id FROM annotations ORDER BY id`)
	if len(annIDs) != 2 {
		t.Fatalf("annotations %v", annIDs)
	}
	want := []record.Annotation{
		{ID: annIDs[0], Type: "highlight", Text: "bats", Actor: "agent:r", Confidence: conf(0.8), ChunkID: &chunk1, ChunkIndex: &one, CreatedAt: ts},
		{ID: annIDs[1], Type: "note", Text: "read again", Actor: "human", CreatedAt: ts},
	}
	if d := cmp.Diff(want, rec.Annotations); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
	wantTags := []record.Tag{{Tag: "animals", Actor: "agent:r", CreatedAt: ts}, {Tag: "night", Actor: "human", CreatedAt: ts}}
	if d := cmp.Diff(wantTags, rec.Tagged); d != "" {
		t.Errorf("tagged (-want +got):\n%s", d)
	}
	wantArts := []record.Artifact{{Summary: "About owls and bats", KeyClaims: []string{"owls hunt"}, CreatedBy: "agent:r", CreatedAt: ts}}
	if d := cmp.Diff(wantArts, rec.Artifacts); d != "" {
		t.Errorf("artifacts (-want +got):\n%s", d)
	}
	var texts []string
	for _, c := range rec.Chunks {
		texts = append(texts, c.Text)
	}
	if d := cmp.Diff([]string{"First part about owls.", "Second part about bats."}, texts); d != "" {
		t.Errorf("chunks (-want +got):\n%s", d)
	}
	if rec.Title != "Show me" || rec.Status != record.StateEnriched || rec.ArchivedAt != "" || rec.Extra["ingest"] == nil {
		t.Errorf("item fields: title %q status %q archived %q ingest %s", rec.Title, rec.Status, rec.ArchivedAt, rec.Extra["ingest"])
	}
	// without Text, no chunks
	rec, err = s.Show(ctx, record.ItemID(url), ShowOptions{})
	if err != nil || len(rec.Chunks) != 0 {
		t.Errorf("show without text: %d chunks, %v", len(rec.Chunks), err)
	}
	if _, err := s.Show(ctx, "ll_0000000000000000", ShowOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v, want ErrNotFound", err)
	}
}

func TestTagCounts(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	for i, u := range []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"} {
		r := item(u)
		r.Tags = []string{"ai"}
		if i == 2 {
			r.Actor = "agent:r"
			r.Tags = append(r.Tags, "zeta", "beta")
		}
		mustSave(t, s, r)
	}
	r := item("https://a.example/4")
	r.Actor, r.Tags = "agent:q", []string{"beta"}
	mustSave(t, s, r)
	got, err := s.TagCounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []record.TagCount{
		{Tag: "ai", Items: 3, ByActor: map[string]int{"human": 2, "agent:r": 1}},
		{Tag: "beta", Items: 2, ByActor: map[string]int{"agent:r": 1, "agent:q": 1}},
		{Tag: "zeta", Items: 1, ByActor: map[string]int{"agent:r": 1}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tag counts (-want +got):\n%s", d)
	}
}

func TestRemoveAnnotations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/ann"
	addDocs(t, s, doc{url: url, title: "Plain", chunks: []string{"Nothing special here."}, anns: []record.Annotation{
		{Type: "highlight", Text: "ocelot spotted"}, {Type: "note", Text: "keep this 猫科動物 note"},
	}})
	addFiller(t, s, 20)
	id := record.ItemID(url)
	var ids []int64
	s.DB().Select(&ids, `SELECT id FROM annotations WHERE item_id = ? ORDER BY id`, id)
	if d := cmp.Diff([]string{id}, searchIDs(t, s, "ocelot", Filter{})); d != "" {
		t.Fatalf("before: (-want +got):\n%s", d)
	}
	// an unknown id removes nothing
	_, err := s.RemoveAnnotations(ctx, id, []int64{ids[0], 9999}, "human")
	var nae *NoAnnotationError
	if !errors.As(err, &nae) || !cmp.Equal(nae.IDs, []int64{9999}) {
		t.Fatalf("unknown annotation: %v", err)
	}
	if got := searchIDs(t, s, "ocelot", Filter{}); len(got) != 1 {
		t.Fatalf("a failed remove changed the index: %v", got)
	}
	ch, err := s.RemoveAnnotations(ctx, id, []int64{ids[0], ids[0]}, "human")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(&record.Change{Action: "unannotate", Changed: true, At: ch.At, AnnotationsRemoved: []int64{ids[0]}}, ch); d != "" {
		t.Errorf("change (-want +got):\n%s", d)
	}
	if got := searchIDs(t, s, "ocelot", Filter{}); len(got) != 0 {
		t.Errorf("removed highlight still found: %v", got)
	}
	if d := cmp.Diff([]string{id}, searchIDs(t, s, "猫科動物", Filter{})); d != "" {
		t.Errorf("the other annotation is no longer found (-want +got):\n%s", d)
	}
	var ev struct {
		Action string `db:"action"`
		Detail string `db:"detail_json"`
	}
	if err := s.DB().Get(&ev, `SELECT action, detail_json FROM events WHERE entity = 'annotation' AND entity_id = ? ORDER BY id DESC LIMIT 1`, ids[0]); err != nil {
		t.Fatal(err)
	}
	if ev.Action != "removed" || ev.Detail != `{"by_actor":"human","text":"ocelot spotted","type":"highlight"}` {
		t.Errorf("event %+v", ev)
	}
	integrityOK(t, s)
}

func TestArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	a, b := "https://example.com/kept", "https://example.com/archived"
	addDocs(t, s,
		doc{url: a, title: "Zebra notes", chunks: []string{"zebra herds move at dawn 東京タワー"}, tags: []string{"zoo"}},
		doc{url: b, title: "Zebra stripes", chunks: []string{"zebra stripes confuse flies 東京タワー"}, tags: []string{"zoo"}},
	)
	addFiller(t, s, 20)
	ida, idb := record.ItemID(a), record.ItemID(b)
	ch, err := s.SetArchived(ctx, idb, true, "human")
	if err != nil || !ch.Changed || ch.At == "" {
		t.Fatalf("archive: %+v %v", ch, err)
	}
	again, err := s.SetArchived(ctx, idb, true, "human")
	if err != nil || again.Changed || again.At != ch.At {
		t.Errorf("archive again: %+v %v, want unchanged at %s", again, err, ch.At)
	}
	for _, tc := range []struct {
		name string
		text string
		f    Filter
		want []string
	}{
		{"words", "zebra", Filter{Archived: NotArchived}, []string{ida}},
		{"words any", "zebra", Filter{}, []string{ida, idb}},
		{"words only", "zebra", Filter{Archived: OnlyArchived}, []string{idb}},
		{"words and tag", "zebra", Filter{Tags: []string{"zoo"}, Archived: NotArchived}, []string{ida}},
		{"cjk", "東京タワー", Filter{Archived: NotArchived}, []string{ida}},
		{"cjk short run", "東京", Filter{Archived: NotArchived}, []string{ida}},
		{"cjk any", "東京タワー", Filter{}, []string{ida, idb}},
	} {
		got := searchIDs(t, s, tc.text, tc.f)
		if d := cmp.Diff(tc.want, got, sortedIDs); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
	recent, err := s.Recent(ctx, SearchOptions{Filter: Filter{Tags: []string{"zoo"}, Archived: NotArchived}})
	if err != nil || len(recent.Hits) != 1 || recent.Hits[0].ID != ida {
		t.Errorf("recent: %v %v", recent, err)
	}
	rel, err := s.Related(ctx, ida, RelatedOptions{SearchOptions: SearchOptions{Filter: Filter{Archived: NotArchived}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range rel.Hits {
		if h.ID == idb {
			t.Errorf("related lists the archived item")
		}
	}
	rel, err = s.Related(ctx, ida, RelatedOptions{SearchOptions: SearchOptions{Filter: Filter{Archived: AnyArchived}}})
	if err != nil || len(rel.Hits) == 0 || rel.Hits[0].ID != idb {
		t.Errorf("related with archived items: %v %v, want %s first", rel, err, idb)
	}
	st, err := s.Status(ctx, idb)
	if err != nil || st.ArchivedAt != ch.At {
		t.Errorf("status archived_at %q, %v; want %q", st.ArchivedAt, err, ch.At)
	}
	un, err := s.SetArchived(ctx, idb, false, "human")
	if err != nil || !un.Changed {
		t.Fatalf("unarchive: %+v %v", un, err)
	}
	if got := searchIDs(t, s, "zebra", Filter{Archived: NotArchived}); len(got) != 2 {
		t.Errorf("after unarchive: %v", got)
	}
	var actions []string
	s.DB().Select(&actions, `SELECT action FROM events WHERE item_id = ? AND entity = 'item' AND action != 'created' ORDER BY id`, idb)
	if d := cmp.Diff([]string{"archived", "unarchived"}, actions); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if _, err := s.SetArchived(ctx, "ll_0000000000000000", true, "human"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown item: %v", err)
	}
}

func TestArchivedStillQueued(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	r := mustSave(t, s, item("https://example.com/pending"))
	if _, err := s.SetArchived(ctx, r.ID, true, "human"); err != nil {
		t.Fatal(err)
	}
	recs, err := s.Queue(ctx, QueueOptions{Queue: QueuePending})
	if err != nil || len(recs) != 1 || recs[0].ID != r.ID {
		t.Errorf("pending: %v %v, want the archived item", recs, err)
	}
}

var sortedIDs = cmp.Transformer("sort", func(in []string) []string {
	out := append([]string(nil), in...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
})

func TestDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url, other := "https://example.com/gone", "https://example.com/stays"
	body := "wombat burrows are cubic 東京タワー"
	addDocs(t, s,
		doc{url: url, title: "Wombats 東京", chunks: []string{body, "more wombat facts"}, tags: []string{"marsupial"},
			anns: []record.Annotation{{Type: "highlight", Text: "cubic droppings"}, {Type: "note", Text: "猫科動物 note"}}},
		doc{url: other, title: "Other", chunks: []string{"kangaroo jumps 東京タワー"}},
	)
	addFiller(t, s, 10)
	id := record.ItemID(url)
	art := item(url)
	art.Artifact = &record.Artifact{Summary: "wombats"}
	mustSave(t, s, art)
	// a duplicate of the item
	dup := item("https://example.com/copy")
	text := body
	dup.Text, dup.Checksum, dup.Chunks = &text, "sha256:same", []record.Chunk{{Text: body, Tokens: 5}}
	if _, err := s.DB().Exec(`UPDATE items SET checksum = 'sha256:same' WHERE id = ?`, id); err != nil {
		t.Fatal(err)
	}
	res, err := s.Index(ctx, dup, IndexOptions{})
	if err != nil || res.DuplicateOf != id {
		t.Fatalf("duplicate: %+v %v", res, err)
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := s.DB().Get(&n, q, args...); err != nil {
			t.Fatal(err)
		}
		return n
	}
	var seq int64
	s.DB().Get(&seq, `SELECT seq FROM items WHERE id = ?`, id)
	var chunkIDs []int64
	s.DB().Select(&chunkIDs, `SELECT id FROM content_chunks WHERE item_id = ?`, id)
	eventsBefore := count(`SELECT count(*) FROM events WHERE item_id = ?`, id)

	ch, err := s.Delete(ctx, id, "human")
	if err != nil {
		t.Fatal(err)
	}
	want := &record.Change{Action: "delete", Changed: true, At: ch.At,
		Removed:           &record.Removed{Chunks: 2, Annotations: 2, Tags: 1, Artifacts: 1},
		DuplicatesCleared: []string{record.ItemID("https://example.com/copy")}}
	if d := cmp.Diff(want, ch); d != "" {
		t.Errorf("change (-want +got):\n%s", d)
	}
	for _, q := range []string{
		`SELECT count(*) FROM items WHERE id = ?`, `SELECT count(*) FROM content_chunks WHERE item_id = ?`,
		`SELECT count(*) FROM annotations WHERE item_id = ?`, `SELECT count(*) FROM tags WHERE item_id = ?`,
		`SELECT count(*) FROM artifacts WHERE item_id = ?`, `SELECT count(*) FROM items WHERE duplicate_of = ?`,
	} {
		if n := count(q, id); n != 0 {
			t.Errorf("%s: %d rows left", q, n)
		}
	}
	for _, table := range []string{"search", "search_cjk"} {
		ids := append([]int64{-seq}, chunkIDs...)
		for _, rowid := range ids {
			if n := count(`SELECT count(*) FROM `+table+` WHERE rowid = ?`, rowid); n != 0 {
				t.Errorf("%s row %d left", table, rowid)
			}
		}
	}
	for _, q := range []string{"wombat", "cubic", "猫科動物", "東京"} {
		for _, h := range searchIDs(t, s, q, Filter{}) {
			if h == id {
				t.Errorf("search %q still finds the deleted item", q)
			}
		}
	}
	if got := searchIDs(t, s, "kangaroo", Filter{}); len(got) != 1 {
		t.Errorf("the other item is lost: %v", got)
	}
	if n := count(`SELECT count(*) FROM events WHERE item_id = ?`, id); n != eventsBefore+1 {
		t.Errorf("events %d, want the %d before and a deleted one", n, eventsBefore)
	}
	if n := count(`SELECT count(*) FROM events WHERE item_id = ? AND action = 'deleted' AND detail_json LIKE '%"title":"Wombats 東京"%'`, id); n != 1 {
		t.Errorf("deleted events %d, want 1", n)
	}
	integrityOK(t, s)
	if _, err := s.Delete(ctx, id, "human"); !errors.Is(err, ErrNotFound) {
		t.Errorf("delete again: %v, want ErrNotFound", err)
	}
	// saving the URL again makes a fresh item
	again := mustSave(t, s, item(url))
	if again.New == nil || !*again.New {
		t.Errorf("saved again: new %v, want true", again.New)
	}
	shown, err := s.Show(ctx, id, ShowOptions{Text: true})
	if err != nil || len(shown.Annotations)+len(shown.Tagged)+len(shown.Chunks)+len(shown.Artifacts) != 0 {
		t.Errorf("fresh item carries old data: %+v %v", shown, err)
	}
	integrityOK(t, s)
}
