package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// reindex stores chunks as the item's new text (a fetched ingest).
func reindex(t *testing.T, s *Store, url string, chunks ...string) {
	t.Helper()
	addDocs(t, s, doc{url: url, title: "Bread", chunks: chunks})
}

// annState is an annotation as the re-anchoring tests compare it.
type annState struct {
	Text     string
	Chunk    int // -1: no chunk
	Orphaned bool
}

func annStates(t *testing.T, s *Store, url string) map[int64]annState {
	t.Helper()
	rec, err := s.Show(context.Background(), record.ItemID(url), ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]annState{}
	for _, a := range rec.Annotations {
		st := annState{Text: a.Text, Chunk: -1, Orphaned: a.OrphanedAt != ""}
		if a.ChunkIndex != nil {
			st.Chunk = *a.ChunkIndex
		}
		if (a.ChunkIndex == nil) != (a.ChunkID == nil) {
			t.Errorf("annotation %d: chunk_id %v and chunk_index %v disagree", a.ID, a.ChunkID, a.ChunkIndex)
		}
		out[a.ID] = st
	}
	return out
}

// annEvents are the item's annotation events of the given actions, as
// "ID action" (and detail.method for reanchored), in order.
func annEvents(t *testing.T, s *Store, url string, actions ...string) []string {
	t.Helper()
	hist, err := s.History(context.Background(), record.ItemID(url))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range hist {
		if e.Entity != "annotation" || !contains(actions, e.Action) {
			continue
		}
		var d struct {
			Method string `json:"method"`
			Into   int64  `json:"into"`
		}
		json.Unmarshal(e.Detail, &d)
		line := *e.EntityID + " " + e.Action
		if d.Method != "" {
			line += " " + d.Method
		}
		if d.Into != 0 {
			line += fmt.Sprintf(" into %d", d.Into)
		}
		out = append(out, line)
	}
	return out
}

func TestReanchorOnReindex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	s := openAt(t, now)
	url := "https://bread.test/levain"
	intro := "Bread at home: notes from a small kitchen."
	levain := "The levain is fed with flour and water every day."
	crust := "The crust should be dark and the crumb open."
	bake := "Bake at a high heat for forty minutes."
	reindex(t, s, url, intro, levain, crust, bake)
	saved := mustSave(t, s, func() *record.Record {
		r := item(url)
		r.Annotations = []record.Annotation{
			{Type: "highlight", Text: "The levain is fed with flour and water every day", Actor: "human"}, // edited later: fuzzy
			{Type: "highlight", Text: "the crust should be dark", Actor: "agent:a"},                       // moved: normalised
			{Type: "lowlight", Text: "Bake at a high heat", Actor: "human"},                               // removed, then restored
			{Type: "highlight", Text: "words that were never in the text", Actor: "human"},                // a person's words: unanchored
			{Type: "note", Text: "the crust should be dark", Actor: "human"},                              // notes are not anchored
		}
		return r
	}())
	ids := saved.Save.AnnotationIDs
	if len(ids) != 5 {
		t.Fatalf("saved %v, want 5 annotations", ids)
	}
	fuzzyID, movedID, lowID, neverID, noteID := ids[0], ids[1], ids[2], ids[3], ids[4]
	want := map[int64]annState{
		fuzzyID: {"The levain is fed with flour and water every day", 1, false},
		movedID: {"The crust should be dark", 2, false}, // an agent's quote, as the text spells it,
		lowID:   {"Bake at a high heat", 3, false},
		neverID: {"words that were never in the text", -1, true},
		noteID:  {"the crust should be dark", -1, false},
	}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Fatalf("anchored when saved (-want +got):\n%s", d)
	}

	// v2: the crust paragraph moves first (in other case and spacing), the
	// levain sentence is edited, the bake paragraph is gone
	reindex(t, s, url, "THE CRUST  should be dark and the crumb open.", intro, "The levain is fed with rye flour and water every day.")
	want[fuzzyID] = annState{"The levain is fed with flour and water every day", 2, false}
	want[movedID] = annState{"The crust should be dark", 0, false}
	want[lowID] = annState{"Bake at a high heat", -1, true}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Fatalf("after the text changed (-want +got):\n%s", d)
	}
	orphans, err := s.Orphans(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// the person's words never in the text (newest id first), then the lost lowlight
	if len(orphans) != 2 || orphans[1].ID != record.ItemID(url) || orphans[1].Annotations[0].ID != lowID ||
		orphans[1].Annotations[0].OrphanedAt != record.FormatTime(now) || orphans[0].Annotations[0].ID != neverID {
		t.Fatalf("orphans %+v, want %d and the lowlight %d orphaned at %s", orphans, neverID, lowID, record.FormatTime(now))
	}

	// find's hits keep the orphan, marked
	res := searchExact(t, s, SearchOptions{Text: "crust"})
	var marked []string
	for _, h := range res.Hits {
		for _, a := range h.Hit.Lowlights {
			marked = append(marked, a.Text+" "+a.OrphanedAt)
		}
	}
	if d := cmp.Diff([]string{"Bake at a high heat " + record.FormatTime(now)}, marked); d != "" {
		t.Errorf("hit lowlights (-want +got):\n%s", d)
	}

	// v3: the bake paragraph is back: the orphan is found again
	reindex(t, s, url, crust, intro, levain, bake)
	want[fuzzyID] = annState{"The levain is fed with flour and water every day", 2, false}
	want[lowID] = annState{"Bake at a high heat", 3, false}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Fatalf("after the paragraph came back (-want +got):\n%s", d)
	}
	if orphans, _ := s.Orphans(ctx, 0); len(orphans) != 1 || orphans[0].Annotations[0].ID != neverID {
		t.Fatalf("orphans after the quote came back: %+v", orphans)
	}
	id := func(n int64) string { return fmt.Sprint(n) }
	wantEvents := []string{
		id(fuzzyID) + " reanchored fuzzy",
		id(movedID) + " reanchored normalized",
		id(lowID) + " orphaned",
		// v3: the edit undone and the crust back in its own case, in the
		// same chunks: no event; the orphan found again
		id(lowID) + " reanchored exact",
	}
	got := annEvents(t, s, url, annotationReanchoredEventName, annotationOrphanedEventName)
	// the order of events within one re-index is by annotation id
	if d := cmp.Diff(sortedWithin(wantEvents), sortedWithin(got)); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
	if res, err := s.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Fatalf("integrity check: %s %v", res, err)
	}
}

func sortedWithin(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}

// TestReanchorLegacyRows: annotations stored before anchors (no context,
// by chunk index only) follow their quote too, found in the old text.
func TestReanchorLegacyRows(t *testing.T) {
	t.Parallel()
	s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	url := "https://bread.test/legacy"
	reindex(t, s, url, "Alpha paragraph about rye.", "Beta paragraph about spelt.")
	saved := mustSave(t, s, func() *record.Record {
		r := item(url)
		r.Annotations = []record.Annotation{{Type: "highlight", Text: "about spelt", Actor: "human"}, {Type: "highlight", Text: "Alpha paragraph", Actor: "human"}}
		return r
	}())
	// as a row stored before migration 0011 and not backfilled
	s.DB().MustExec(`UPDATE annotations SET quote_prefix = NULL, quote_suffix = NULL`)
	reindex(t, s, url, "Beta paragraph about spelt.", "Gamma.")
	want := map[int64]annState{
		saved.Save.AnnotationIDs[0]: {"about spelt", 0, false},
		saved.Save.AnnotationIDs[1]: {"Alpha paragraph", -1, true},
	}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

// TestMergeNearDuplicates: highlights quoting the same text merge into the
// one with the strongest provenance, keeping the longer quote.
func TestMergeNearDuplicates(t *testing.T) {
	t.Parallel()
	text := []string{
		"Agents need a memory of links they read. The levain is fed daily.",
		"Second paragraph of filler text about nothing in particular at all.",
		"Third paragraph: agents need a memory too, as said before.",
	}
	type kept struct {
		Type, Text, Actor string
		Pinned            bool
		Review            string
	}
	h := func(text, actor string, c float64) record.Annotation {
		a := record.Annotation{Type: "highlight", Text: text, Actor: actor}
		if c > 0 {
			a.Confidence = &c
		}
		return a
	}
	pinned := func(a record.Annotation) record.Annotation { a.Pinned = true; return a }
	typed := func(a record.Annotation, typ string) record.Annotation { a.Type = typ; return a }
	at := func(a record.Annotation, chunk int64) record.Annotation { a.ChunkID = &chunk; return a }
	cases := []struct {
		name    string
		saves   [][]record.Annotation
		confirm string // after the first save: confirm the annotation with this text
		reject  string
		want    []kept
		merged  int
	}{
		{"a person's short quote keeps the agent's longer one",
			[][]record.Annotation{{h("Agents need a memory of links they read", "agent:a", 0.9)}, {h("memory of links", "human", 0)}},
			"", "", []kept{{"highlight", "Agents need a memory of links they read", "human", false, ""}}, 1},
		{"pinned over unpinned among agents",
			[][]record.Annotation{{h("memory of links", "agent:a", 0.9), pinned(h("a memory of links", "agent:b", 0.2))}},
			"", "", []kept{{"highlight", "a memory of links", "agent:b", true, ""}}, 1},
		{"confirmed over higher confidence",
			[][]record.Annotation{{h("memory of links", "agent:a", 0.3)}, {h("need a memory of links", "agent:b", 0.9)}},
			"memory of links", "", []kept{{"highlight", "need a memory of links", "agent:a", false, "confirmed"}}, 1},
		{"higher confidence, then earlier",
			[][]record.Annotation{{h("memory of links", "agent:a", 0.4), h("Memory  of links", "agent:b", 0.8), h("memory of LINKS", "agent:c", 0.8)}},
			"", "", []kept{{"highlight", "memory of links", "agent:b", false, ""}}, 2},
		{"a pin survives the merge",
			[][]record.Annotation{{pinned(h("memory of links", "agent:a", 0.5)), h("a memory of links", "human", 0)}},
			"", "", []kept{{"highlight", "a memory of links", "human", true, ""}}, 1},
		{"overlapping quotes join",
			[][]record.Annotation{{h("Agents need a memory of links", "human", 0), h("need a memory of links they read", "human", 0)}},
			"", "", []kept{{"highlight", "Agents need a memory of links they read", "human", false, ""}}, 1},
		{"highlight and lowlight never merge",
			[][]record.Annotation{{h("memory of links", "human", 0), typed(h("memory of links", "human", 0), "lowlight")}},
			"", "", []kept{{"highlight", "memory of links", "human", false, ""}, {"lowlight", "memory of links", "human", false, ""}}, 0},
		{"lowlights merge among themselves",
			[][]record.Annotation{{typed(h("memory of links", "human", 0), "lowlight"), typed(h("a memory of links they", "human", 0), "lowlight")}},
			"", "", []kept{{"lowlight", "a memory of links they", "human", false, ""}}, 1},
		{"notes never merge",
			[][]record.Annotation{{typed(h("memory of links", "human", 0), "note"), typed(h("memory of links they read", "human", 0), "note")}},
			"", "", []kept{{"note", "memory of links", "human", false, ""}, {"note", "memory of links they read", "human", false, ""}}, 0},
		{"the same words far apart are two places",
			[][]record.Annotation{{h("Agents need a memory", "human", 0), at(h("agents need a memory", "human", 0), 3)}}, // chunk id 3: the third chunk
			"", "", []kept{{"highlight", "Agents need a memory", "human", false, ""}, {"highlight", "agents need a memory", "human", false, ""}}, 0},
		{"a rejected annotation stays apart",
			[][]record.Annotation{{h("memory of links", "agent:a", 0.5)}, {h("a memory of links they read", "agent:b", 0.5)}},
			"", "memory of links", []kept{{"highlight", "memory of links", "agent:a", false, "rejected"}, {"highlight", "a memory of links they read", "agent:b", false, ""}}, 0},
		{"unrelated quotes stay",
			[][]record.Annotation{{h("memory of links", "human", 0), h("The levain is fed daily", "human", 0)}},
			"", "", []kept{{"highlight", "memory of links", "human", false, ""}, {"highlight", "The levain is fed daily", "human", false, ""}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
			url := "https://merge.test/x"
			reindex(t, s, url, text...)
			var merged int
			for i, anns := range c.saves {
				r := item(url)
				r.Annotations = anns
				out := mustSave(t, s, r)
				merged += len(out.Save.Merged)
				if i > 0 {
					continue
				}
				for _, d := range []struct{ text, decision string }{{c.confirm, ReviewConfirmed}, {c.reject, ReviewRejected}} {
					if d.text == "" {
						continue
					}
					rec, _ := s.Show(ctx, record.ItemID(url), ShowOptions{})
					for _, a := range rec.Annotations {
						if a.Text == d.text {
							if _, err := s.Review(ctx, ReviewDecision{AnnotationID: a.ID, Decision: d.decision}, "human"); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
			}
			rec, err := s.Show(ctx, record.ItemID(url), ShowOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []kept
			for _, a := range rec.Annotations {
				got = append(got, kept{a.Type, a.Text, a.Actor, a.Pinned, a.Review})
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("kept (-want +got):\n%s", d)
			}
			if merged != c.merged {
				t.Errorf("save results report %d merged, want %d", merged, c.merged)
			}
			if n := len(annEvents(t, s, url, annotationMergedEventName)); n != c.merged {
				t.Errorf("%d merged events, want %d", n, c.merged)
			}
			// the merged text is what search finds
			for _, k := range c.want {
				if k.Review == ReviewRejected || k.Type == "note" {
					continue
				}
				first := strings.Fields(k.Text)[0]
				if hs := hitHighlights(t, s, first); len(hs) == 0 && k.Type == "highlight" {
					t.Errorf("search %q: no highlights", first)
				}
			}
		})
	}
}

// TestMergeAfterReanchor: two highlights of the same words in places far
// apart stay two; when an edit removes one place, the quote that followed
// its words into the other's merges with it, and the history says so.
func TestMergeAfterReanchor(t *testing.T) {
	t.Parallel()
	s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	url := "https://merge.test/reanchor"
	reindex(t, s, url, "The crust should be dark, says one book.", "Filler one.", "Filler two.", "Another says the crust should be dark and thick.")
	out := mustSave(t, s, func() *record.Record {
		r := item(url)
		r.Annotations = []record.Annotation{
			{Type: "highlight", Text: "crust should be dark", Actor: "human"},
			{Type: "highlight", Text: "the crust should be dark and thick", Actor: "agent:a", Confidence: conf(0.6)},
		}
		return r
	}())
	ids := out.Save.AnnotationIDs
	if len(out.Save.Merged) != 0 {
		t.Fatalf("merged %v at save, want none (two places)", out.Save.Merged)
	}
	want := map[int64]annState{ids[0]: {"crust should be dark", 0, false}, ids[1]: {"the crust should be dark and thick", 3, false}}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Fatalf("saved (-want +got):\n%s", d)
	}
	reindex(t, s, url, "Filler one.", "Filler two.", "Another says the crust should be dark and thick.")
	want = map[int64]annState{ids[0]: {"the crust should be dark and thick", 2, false}}
	if d := cmp.Diff(want, annStates(t, s, url)); d != "" {
		t.Errorf("re-indexed (-want +got):\n%s", d)
	}
	got := annEvents(t, s, url, annotationReanchoredEventName, annotationMergedEventName, annotationAbsorbedEventName)
	wantEvents := []string{
		fmt.Sprintf("%d reanchored exact", ids[0]),
		fmt.Sprintf("%d reanchored exact", ids[1]),
		fmt.Sprintf("%d merged into %d", ids[1], ids[0]),
		fmt.Sprintf("%d absorbed", ids[0]),
	}
	if d := cmp.Diff(wantEvents, got); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}
}

// TestMigrationBackfillsAnchors: migration 0011 anchors highlights stored
// before it to the chunk holding their quote, with the same context the
// Go matcher takes (characters, not bytes), and leaves the rest alone.
func TestMigrationBackfillsAnchors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://bread.test/old"
	before := strings.Repeat("é", 30) + " Grüße aus Köln, " + strings.Repeat("ü", 20) + " "
	chunks := []string{"First chunk about rye.", before + "the quoted words" + " and after them " + strings.Repeat("ß", 60)}
	reindex(t, s, url, chunks...)
	r := item(url)
	r.Annotations = []record.Annotation{
		{Type: "highlight", Text: "the quoted words", Actor: "human"},
		{Type: "highlight", Text: "not in the text at all", Actor: "human"},
		{Type: "note", Text: "about rye", Actor: "human"},
	}
	mustSave(t, s, r)
	// as 0010 left it: no anchor columns, highlights without a chunk
	s.DB().MustExec(`UPDATE annotations SET chunk_id = NULL, chunk_index = NULL`)
	s.DB().MustExec("DROP INDEX annotations_orphaned; ALTER TABLE annotations DROP COLUMN orphaned_at; ALTER TABLE annotations DROP COLUMN quote_suffix; ALTER TABLE annotations DROP COLUMN quote_prefix")
	// and without what 0012 adds (tag review, settings)
	s.DB().MustExec("DROP INDEX tags_review; ALTER TABLE tags DROP COLUMN reviewed_by; ALTER TABLE tags DROP COLUMN reviewed_at; ALTER TABLE tags DROP COLUMN review; DROP TABLE tags_rejected; DROP TABLE settings")
	// and without what 0013 and 0014 add (vectors, their codes)
	s.DB().MustExec("DROP TABLE vector_code_blocks; DROP TABLE item_vector_codes; DROP TABLE chunk_vectors; ALTER TABLE items DROP COLUMN embed_error_json")
	s.DB().MustExec("PRAGMA user_version = 10")
	s.Close()
	s, err = Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type row struct {
		Text   string  `db:"text"`
		Chunk  *int    `db:"chunk_index"`
		Prefix *string `db:"quote_prefix"`
		Suffix *string `db:"quote_suffix"`
	}
	var rows []row
	if err := s.DB().Select(&rows, `SELECT text, chunk_index, quote_prefix, quote_suffix FROM annotations ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	at := newAnchorText(chunks)
	m, _ := at.find(quoteAnchor{Quote: "the quoted words", Hint: -1})
	p, sf := at.context(m)
	one := 1
	want := []row{{"the quoted words", &one, &p, &sf}, {"not in the text at all", nil, nil, nil}, {"about rye", nil, nil, nil}}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("after migration (-want +got):\n%s", d)
	}
}

// TestOrphanSurvivesExport: an export restored elsewhere keeps the orphan
// mark, and the orphan is found again when its quote comes back.
func TestOrphanSurvivesExport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	url := "https://bread.test/export"
	reindex(t, s, url, "Rye needs a long rest.", "Spelt is quick.")
	r := item(url)
	r.Annotations = []record.Annotation{{Type: "highlight", Text: "Spelt is quick", Actor: "human"}}
	id := mustSave(t, s, r).Save.AnnotationIDs[0]
	reindex(t, s, url, "Rye needs a long rest.")
	exp, err := s.Export(ctx, record.ItemID(url), true)
	if err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC))
	if _, _, err := s2.Restore(ctx, exp); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[int64]annState{id: {"Spelt is quick", -1, true}}, annStates(t, s2, url)); d != "" {
		t.Fatalf("restored (-want +got):\n%s", d)
	}
	reindex(t, s2, url, "Rye needs a long rest.", "Spelt is quick, they say.")
	if d := cmp.Diff(map[int64]annState{id: {"Spelt is quick", 1, false}}, annStates(t, s2, url)); d != "" {
		t.Fatalf("re-indexed after restore (-want +got):\n%s", d)
	}
}

// TestImportAgainAfterMerge: an import run again adds nothing back that a
// merge folded into a longer quote.
func TestImportAgainAfterMerge(t *testing.T) {
	t.Parallel()
	s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	url := "https://merge.test/import"
	reindex(t, s, url, "Agents need a memory of links they read.")
	for i := 0; i < 2; i++ {
		r := item(url)
		r.Via = "import:pocket"
		r.Annotations = []record.Annotation{{Type: "highlight", Text: "memory of links"}, {Type: "highlight", Text: "a memory of links they read"}}
		out := mustSave(t, s, r)
		if i == 1 && len(out.Save.AnnotationIDs) != 0 {
			t.Errorf("second import added %v", out.Save.AnnotationIDs)
		}
	}
	states := annStates(t, s, url)
	if len(states) != 1 {
		t.Errorf("annotations %v, want the one merged highlight", states)
	}
	if n := len(annEvents(t, s, url, annotationMergedEventName)); n != 1 {
		t.Errorf("%d merged events, want 1", n)
	}
}

// TestMergeBounded: an item with more highlights than mergeMaxQuotes is
// merged among its strongest only, so a record with very many stays cheap;
// a near-duplicate pair among the strongest still merges.
func TestMergeBounded(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	r := item("https://t.test/many")
	conf := func(c float64) *float64 { return &c }
	for i := 0; i < mergeMaxQuotes; i++ {
		r.Annotations = append(r.Annotations, record.Annotation{Type: "highlight", Actor: "human", Confidence: conf(0.9),
			Text: fmt.Sprintf("distinct sentence number %d about tide pools and crabs", i)})
	}
	strong, weak := "the strongest pair of quotes about anemones", "the weakest pair of quotes about barnacles"
	r.Annotations = append(r.Annotations,
		record.Annotation{Type: "highlight", Actor: "human", Confidence: conf(0.95), Text: strong},
		record.Annotation{Type: "highlight", Actor: "human", Confidence: conf(0.95), Text: strong + " and"},
		record.Annotation{Type: "highlight", Actor: "human", Confidence: conf(0.1), Text: weak},
		record.Annotation{Type: "highlight", Actor: "human", Confidence: conf(0.1), Text: weak + " and"},
	)
	out := mustSave(t, s, r)
	if out.Save == nil || len(out.Save.Merged) != 1 {
		t.Fatalf("merged %v; want the strong pair only (the weak pair is past the %d strongest)", out.Save, mergeMaxQuotes)
	}
	var n int
	if err := s.DB().Get(&n, `SELECT count(*) FROM annotations WHERE text LIKE 'the weakest pair%'`); err != nil || n != 2 {
		t.Errorf("weak pair: %d rows, %v; want both kept", n, err)
	}
}
