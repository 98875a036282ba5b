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

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func item(url string) *record.Record {
	return &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle}
}

func conf(f float64) *float64 { return &f }

func TestOpenTwiceKeepsSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v int
	s.DB().Get(&v, "PRAGMA user_version")
	if v != SchemaVersion() || v < 1 {
		t.Fatalf("user_version %d, want %d", v, SchemaVersion())
	}
	var before int
	s.DB().Get(&before, "PRAGMA schema_version")
	s.Close()
	s2, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var after int
	s2.DB().Get(&after, "PRAGMA schema_version")
	if before != after {
		t.Fatalf("reopening changed schema_version %d -> %d", before, after)
	}
	var mode string
	s2.DB().Get(&mode, "PRAGMA journal_mode")
	if mode != "wal" {
		t.Fatalf("journal_mode %q", mode)
	}
}

func TestSaveDedupeMergesNoteAndTags(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	r := item("https://example.com/a")
	r.Note, r.Tags = "first", []string{"AI", "memory"}
	out, err := s.Save(ctx, r, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !*out.New || out.Save.Existing {
		t.Fatalf("first save not new: %+v", out)
	}
	r2 := item("https://example.com/a")
	r2.Note, r2.Tags = "second", []string{"ai", "agents"}
	out2, err := s.Save(ctx, r2, SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *out2.New || !out2.Save.Existing || out2.ID != out.ID {
		t.Fatalf("re-save: %+v", out2)
	}
	if diff := cmp.Diff([]string{"agents"}, out2.Save.TagsAdded); diff != "" {
		t.Errorf("tags added (-want +got):\n%s", diff)
	}
	var n int
	s.DB().Get(&n, "SELECT count(*) FROM items")
	if n != 1 {
		t.Fatalf("%d items, want 1", n)
	}
	var notes []string
	s.DB().Select(&notes, "SELECT text FROM annotations WHERE type='note' ORDER BY id")
	if diff := cmp.Diff([]string{"first", "second"}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	var tags []string
	s.DB().Select(&tags, "SELECT tag FROM tags ORDER BY tag")
	if diff := cmp.Diff([]string{"agents", "ai", "memory"}, tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
	var events int
	s.DB().Get(&events, "SELECT count(*) FROM events WHERE entity='tag'")
	if events != 3 {
		t.Errorf("%d tag events, want 3", events)
	}
}

func TestAgentHighlightCap(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/cap"
	var ids []int64
	for i, c := range []float64{0.9, 0.2, 0.8, 0.7, 0.6} {
		r := item(url)
		r.Annotations = []record.Annotation{{Type: "highlight", Text: "agent " + string(rune('a'+i)), Actor: "agent:r", Confidence: conf(c)}}
		out, err := s.Save(ctx, r, SaveOptions{AgentHighlightCap: 3})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, out.Save.AnnotationIDs...)
	}
	// a human highlight and a pinned agent one with low confidence
	r := item(url)
	r.Annotations = []record.Annotation{{Type: "highlight", Text: "human one", Actor: "human"}, {Type: "highlight", Text: "pinned", Actor: "agent:r", Confidence: conf(0.1), Pinned: true}}
	if _, err := s.Save(ctx, r, SaveOptions{AgentHighlightCap: 3}); err != nil {
		t.Fatal(err)
	}
	var left []string
	s.DB().Select(&left, "SELECT text FROM annotations ORDER BY id")
	// cap 3 agent highlights: pinned one kept, so only two unpinned survive (0.9, 0.8)
	want := []string{"agent a", "agent c", "human one", "pinned"}
	if diff := cmp.Diff(want, left); diff != "" {
		t.Errorf("annotations left (-want +got):\n%s", diff)
	}
	var displaced int
	s.DB().Get(&displaced, "SELECT count(*) FROM events WHERE action='displaced'")
	if displaced != 3 {
		t.Errorf("%d displaced events, want 3", displaced)
	}
}

// TestAgentHighlightCapWhen checks when the cap applies: to a new item's
// own agent highlights, and to an existing item saved again with a lower
// cap and no annotations (only a new item without annotations skips it).
func TestAgentHighlightCapWhen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	count := func(url string) int {
		var n int
		if err := s.DB().Get(&n, `SELECT count(*) FROM annotations a JOIN items i ON i.id = a.item_id WHERE i.canonical_url = ?`, url); err != nil {
			t.Fatal(err)
		}
		return n
	}
	five := func() []record.Annotation {
		var as []record.Annotation
		for i, c := range []float64{0.9, 0.2, 0.8, 0.7, 0.6} {
			as = append(as, record.Annotation{Type: "highlight", Text: "agent " + string(rune('a'+i)), Actor: "agent:r", Confidence: conf(c)})
		}
		return as
	}
	// a new item with five agent highlights, cap 3
	r := item("https://example.com/new-capped")
	r.Annotations = five()
	out, err := s.Save(ctx, r, SaveOptions{AgentHighlightCap: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out.Save.Displaced); got != 2 || count("https://example.com/new-capped") != 3 {
		t.Errorf("new item: %d displaced, %d kept; want 2 and 3", got, count("https://example.com/new-capped"))
	}
	// five kept under cap 7, then the same item saved with no annotations
	// and cap 3
	r = item("https://example.com/recapped")
	r.Annotations = five()
	if _, err := s.Save(ctx, r, SaveOptions{AgentHighlightCap: 7}); err != nil {
		t.Fatal(err)
	}
	out, err = s.Save(ctx, item("https://example.com/recapped"), SaveOptions{AgentHighlightCap: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(out.Save.Displaced); got != 2 || count("https://example.com/recapped") != 3 {
		t.Errorf("existing item saved again: %d displaced, %d kept; want 2 and 3", got, count("https://example.com/recapped"))
	}
	// a new item without annotations
	out, err = s.Save(ctx, item("https://example.com/plain"), SaveOptions{AgentHighlightCap: 3})
	if err != nil {
		t.Fatal(err)
	}
	if out.Save.Displaced != nil {
		t.Errorf("plain new item: displaced %v, want none", out.Save.Displaced)
	}
}

func TestSaveRefusesBadAnnotations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	cases := []record.Annotation{
		{Type: "highlight", Text: "x", Confidence: conf(1.5)},
		{Type: "highlight", Text: "x", Confidence: conf(-0.1)},
		{Type: "underline", Text: "x"},
		{Type: "note", Text: "  "},
		{Type: "note", Text: "x", Actor: "robot"},
	}
	for _, a := range cases {
		r := item("https://example.com/bad")
		r.Annotations = []record.Annotation{a}
		_, err := s.Save(ctx, r, SaveOptions{})
		var re *record.Error
		if !errors.As(err, &re) || re.Code != record.CodeBadInput {
			t.Errorf("%+v: err %v, want bad_input", a, err)
		}
	}
	var n int
	s.DB().Get(&n, "SELECT count(*) FROM items")
	if n != 0 {
		t.Errorf("refused saves created %d items", n)
	}
	// default agent confidence
	r := item("https://example.com/ok")
	r.Annotations = []record.Annotation{{Type: "note", Text: "agent said", Actor: "agent:x"}}
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	var c float64
	s.DB().Get(&c, "SELECT confidence FROM annotations")
	if c != DefaultAgentConfidenceValue {
		t.Errorf("default confidence %v", c)
	}
}

func TestIndexLifecycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	url := "https://example.com/life"
	if _, err := s.Save(ctx, item(url), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// failure
	f := item(url)
	f.Fail(record.StageFetch, record.CodeHTTPStatus, "503", true)
	res, err := s.Index(ctx, f, IndexOptions{})
	if err != nil || res.Status != record.StateFailed {
		t.Fatalf("failure: %+v %v", res, err)
	}
	var next string
	s.DB().Get(&next, "SELECT next_retry_at FROM items")
	if next != "2026-01-02T03:05:05Z" {
		t.Errorf("next_retry_at %q", next)
	}
	// success
	text := "Agent memory stores links. Zebras are striped."
	ok := item(url)
	ok.Title, ok.Text, ok.Checksum = "Memory for agents", &text, "sha256:1"
	ok.Chunks = []record.Chunk{{Index: 0, Text: "Agent memory stores links.", Tokens: 5}, {Index: 1, Text: "Zebras are striped.", Tokens: 4}}
	res, err = s.Index(ctx, ok, IndexOptions{})
	if err != nil || res.Status != record.StateParsed || res.Chunks != 2 {
		t.Fatalf("success: %+v %v", res, err)
	}
	var hits int
	s.DB().Get(&hits, "SELECT count(*) FROM search WHERE search MATCH 'zebra' AND rowid > 0")
	if hits != 1 {
		t.Errorf("fts hits for zebra %d, want 1 (porter stemming)", hits)
	}
	// same checksum: unchanged
	res, err = s.Index(ctx, ok, IndexOptions{})
	if err != nil || !res.Unchanged {
		t.Fatalf("unchanged: %+v %v", res, err)
	}
	// new content replaces chunks and FTS rows
	text2 := "Completely new words about giraffes."
	ok2 := item(url)
	ok2.Title, ok2.Text, ok2.Checksum = "Giraffes", &text2, "sha256:2"
	ok2.Chunks = []record.Chunk{{Index: 0, Text: text2, Tokens: 6}}
	if _, err := s.Index(ctx, ok2, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	s.DB().Get(&hits, "SELECT count(*) FROM search WHERE search MATCH 'zebra'")
	if hits != 0 {
		t.Errorf("stale FTS rows: %d hits for zebra", hits)
	}
	var rows, chunks int
	s.DB().Get(&rows, "SELECT count(*) FROM search")
	s.DB().Get(&chunks, "SELECT count(*) FROM content_chunks")
	if rows != 2 || chunks != 1 {
		t.Errorf("fts rows %d (want 2), chunks %d (want 1)", rows, chunks)
	}
	// duplicate detection
	dup := item("https://example.com/copy")
	dup.Text, dup.Checksum, dup.Chunks = &text2, "sha256:2", ok2.Chunks
	res, err = s.Index(ctx, dup, IndexOptions{})
	if err != nil || res.DuplicateOf != record.ItemID(url) {
		t.Fatalf("duplicate: %+v %v", res, err)
	}
	// CJK rows only when CJK text is present
	cjk := "東京は日本の首都です"
	c := item("https://example.com/cjk")
	c.Text, c.Checksum, c.Chunks = &cjk, "sha256:3", []record.Chunk{{Text: cjk, Tokens: 8}}
	if _, err := s.Index(ctx, c, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	s.DB().Get(&hits, `SELECT count(*) FROM search_cjk WHERE search_cjk MATCH '"日本の"'`)
	if hits != 1 {
		t.Errorf("cjk hits %d, want 1", hits)
	}
	var integrity string
	integrity, _ = s.IntegrityCheck(ctx)
	if integrity != "ok" {
		t.Errorf("integrity %q", integrity)
	}
}

func TestDescriptionIsSearchable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	text := "Transcript about sailing boats and wind."
	r := item("https://www.youtube.com/watch?v=abcdefghijk")
	r.SourceType, r.Title, r.Description = record.SourceYouTube, "A video", "Sponsored by kumquats and marmalade"
	r.Text, r.Checksum, r.Chunks = &text, "sha256:d", []record.Chunk{{Text: text, Tokens: 7}}
	if _, err := s.Index(ctx, r, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	var hits int
	s.DB().Get(&hits, "SELECT count(*) FROM search WHERE search MATCH 'kumquats' AND rowid < 0")
	if hits != 1 {
		t.Errorf("description word found in %d item rows, want 1", hits)
	}
	// a description the text already holds is not added twice
	if got := withDescription("wind.", text); got != text {
		t.Errorf("withDescription duplicated: %q", got)
	}
}
