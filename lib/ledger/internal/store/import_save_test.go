package store

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// TestSaveImported checks what an imported record brings: its saved time
// (only when in the past, only for a new item), its title, annotation
// times, the importer in the history, and that running it again adds
// nothing.
func TestSaveImported(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	rec := func() *record.Record {
		r := item("https://example.com/imported")
		r.SavedAt = "2019-05-06T07:08:09+02:00"
		r.Via = "import:pocket"
		r.Title = "Imported title"
		r.Tags = []string{"read"}
		r.Note = "why I kept it"
		r.Annotations = []record.Annotation{{Type: "highlight", Text: "a passage", CreatedAt: "2019-06-01T00:00:00Z"}}
		return r
	}
	for run := 0; run < 2; run++ {
		if _, err := s.Save(ctx, rec(), SaveOptions{}); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
	}
	var got struct {
		SavedAt string `db:"saved_at"`
		Title   string `db:"title"`
	}
	if err := s.DB().Get(&got, `SELECT saved_at, title FROM items`); err != nil {
		t.Fatal(err)
	}
	if got.SavedAt != "2019-05-06T05:08:09Z" || got.Title != "Imported title" {
		t.Errorf("item saved_at %q title %q", got.SavedAt, got.Title)
	}
	type ann struct {
		Type      string `db:"type"`
		Text      string `db:"text"`
		CreatedAt string `db:"created_at"`
	}
	var anns []ann
	if err := s.DB().Select(&anns, `SELECT type, text, created_at FROM annotations ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	want := []ann{{"note", "why I kept it", "2019-05-06T05:08:09Z"}, {"highlight", "a passage", "2019-06-01T00:00:00Z"}}
	if d := cmp.Diff(want, anns); d != "" {
		t.Errorf("annotations after two runs (-want +got):\n%s", d)
	}
	var vias []string
	if err := s.DB().Select(&vias, `SELECT action || ' ' || json_extract(detail_json, '$.via') FROM events ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	wantEv := []string{"created import:pocket", "created import:pocket", "added import:pocket", "created import:pocket"}
	if d := cmp.Diff(wantEv, vias); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

func TestSaveImportedBadFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	for _, tc := range []struct{ savedAt, via, annAt string }{
		{savedAt: "yesterday"},
		{via: "pocket"},
		{via: "import:Po cket"},
		{annAt: "2019-13-01"},
	} {
		r := item("https://example.com/bad")
		r.SavedAt, r.Via = tc.savedAt, tc.via
		r.Annotations = []record.Annotation{{Type: "note", Text: "x", CreatedAt: tc.annAt}}
		_, err := s.Save(ctx, r, SaveOptions{})
		re, ok := err.(*record.Error)
		if !ok || re.Code != record.CodeBadInput {
			t.Errorf("%+v: err %v, want bad_input", tc, err)
		}
	}
	// a saved time to come is no saved time: now is used
	r := item("https://example.com/future")
	r.SavedAt = "2999-01-01T00:00:00Z"
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	var at string
	s.DB().Get(&at, `SELECT saved_at FROM items WHERE id = ?`, r.ID)
	if at == "2999-01-01T00:00:00Z" || at == "" {
		t.Errorf("future saved_at kept: %q", at)
	}
}
