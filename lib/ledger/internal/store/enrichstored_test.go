package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// parsedItem indexes a fetched and parsed item with two chunks and returns
// its record.
func parsedItem(t *testing.T, s *Store, url string) *record.Record {
	t.Helper()
	text := "Quokkas live on Rottnest Island. Rangers fine visitors who feed them."
	rec := item(url)
	rec.Title, rec.Author = "Quokkas", "Test Writer"
	rec.Text, rec.Checksum = &text, "sha256:quokka"
	rec.Chunks = []record.Chunk{{Index: 0, Text: "Quokkas live on Rottnest Island.", Tokens: 6}, {Index: 1, Text: "Rangers fine visitors who feed them.", Tokens: 7}}
	rec.Fetch = &record.FetchInfo{Status: 200, FetchedAt: "2026-01-02T03:04:05Z", ETag: `"e1"`}
	rec.Parse = &record.ParseInfo{Adapter: "article"}
	res, err := s.Index(context.Background(), rec, IndexOptions{})
	if err != nil || res.Status != record.StateParsed {
		t.Fatalf("index parsed item: %+v %v", res, err)
	}
	return rec
}

// storedState is what enriching a stored item must not touch: the item's
// content columns, its chunk rows and the full-text rows of the chunks.
type storedState struct {
	Item   map[string]any
	Chunks []string
	FTS    []string
}

func stateOf(t *testing.T, s *Store, id string) storedState {
	t.Helper()
	var st storedState
	st.Item = map[string]any{}
	if err := s.DB().QueryRowx(`SELECT title, author, checksum, fetched_at, parsed_at, meta_json, etag, content_from_record, duplicate_of, excerpt FROM items WHERE id = ?`, id).MapScan(st.Item); err != nil {
		t.Fatal(err)
	}
	for k, v := range st.Item {
		if b, ok := v.([]byte); ok {
			st.Item[k] = string(b)
		}
	}
	if err := s.DB().Select(&st.Chunks, `SELECT id || ':' || chunk_index || ':' || text FROM content_chunks WHERE item_id = ? ORDER BY chunk_index`, id); err != nil {
		t.Fatal(err)
	}
	if err := s.DB().Select(&st.FTS, `SELECT rowid || ':' || body FROM search WHERE rowid IN (SELECT id FROM content_chunks WHERE item_id = ?) ORDER BY rowid`, id); err != nil {
		t.Fatal(err)
	}
	return st
}

// enrichStored is what ll-enrich would add to a record of
// AttachStoredChunks: an artifact by agent:linkledger and one suggestion
// per chunk, quoting it.
func enrichStored(rec *record.Record) {
	rec.Artifact = &record.Artifact{Summary: rec.Chunks[0].Text, KeyClaims: []string{rec.Chunks[0].Text}, CreatedBy: "agent:linkledger", Method: "offline",
		Claims: []record.Claim{{Text: rec.Chunks[0].Text, ChunkIndex: 0, Confidence: 0.75}}}
	rec.Annotations = nil
	for _, c := range rec.Chunks {
		ci := c.Index
		rec.Annotations = append(rec.Annotations, record.Annotation{Type: record.AnnHighlight, Text: c.Text, Actor: "agent:linkledger", Confidence: conf(0.6), ChunkIndex: &ci})
	}
}

func TestAttachStoredChunks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/quokka"
	parsedItem(t, s, url)
	cases := []struct {
		name     string
		maxBytes int
		want     []string
		stored   record.Stored
	}{
		{"all", 0, []string{"Quokkas live on Rottnest Island.", "Rangers fine visitors who feed them."}, record.Stored{Checksum: "sha256:quokka", Chunks: 2}},
		{"exactly both", 32 + 36, []string{"Quokkas live on Rottnest Island.", "Rangers fine visitors who feed them."}, record.Stored{Checksum: "sha256:quokka", Chunks: 2}},
		{"first only", 40, []string{"Quokkas live on Rottnest Island."}, record.Stored{Checksum: "sha256:quokka", Chunks: 2, ChunksOmitted: 1}},
		{"none fits", 10, nil, record.Stored{Checksum: "sha256:quokka", Chunks: 2, ChunksOmitted: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &record.Record{ID: record.ItemID(url)}
			if err := s.AttachStoredChunks(ctx, rec, c.maxBytes); err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, ch := range rec.Chunks {
				if ch.Index != i || ch.ID != 0 || ch.Tokens == 0 {
					t.Errorf("chunk %d: %+v", i, ch)
				}
				got = append(got, ch.Text)
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("chunks (-want +got):\n%s", d)
			}
			if d := cmp.Diff(&c.stored, rec.Stored); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
		})
	}
	unknown := &record.Record{ID: "ll_0000000000000000"}
	if err := s.AttachStoredChunks(ctx, unknown, 0); err != nil || unknown.Stored != nil || unknown.Chunks != nil {
		t.Errorf("unknown item: %+v %v", unknown, err)
	}
}

// TestIndexStoredEnrichment: a record carrying the item's stored chunks
// and an enrichment stores the artifact and suggestions, marks the item
// enriched and leaves the content, its full-text rows and the item's
// metadata as they were; again, it replaces instead of adding.
func TestIndexStoredEnrichment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/quokka"
	id := record.ItemID(url)
	parsedItem(t, s, url)
	before := stateOf(t, s, id)

	for run := 1; run <= 2; run++ {
		// as ll-find --with-chunks writes it: no text, a fetch object of the
		// status view, the hit's title
		rec := &record.Record{ID: id, URL: url, CanonicalURL: url, Title: "Quokkas", Fetch: &record.FetchInfo{ETag: `"e1"`}}
		if err := s.AttachStoredChunks(ctx, rec, 0); err != nil {
			t.Fatal(err)
		}
		enrichStored(rec)
		res, err := s.Index(ctx, rec, IndexOptions{})
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if d := cmp.Diff(&record.IndexResult{Status: record.StateEnriched, Chunks: 2, Unchanged: true}, res); d != "" {
			t.Errorf("run %d: result (-want +got):\n%s", run, d)
		}
		if d := cmp.Diff(before, stateOf(t, s, id)); d != "" {
			t.Errorf("run %d: content changed (-before +after):\n%s", run, d)
		}
		want := []enrichAnn{
			{Text: "Quokkas live on Rottnest Island.", Actor: "agent:linkledger", Chunk: ip(0)},
			{Text: "Rangers fine visitors who feed them.", Actor: "agent:linkledger", Chunk: ip(1)},
		}
		if d := cmp.Diff(want, annotationsOf(t, s, id)); d != "" {
			t.Errorf("run %d: annotations (-want +got):\n%s", run, d)
		}
		show, err := s.Show(ctx, id, ShowOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(show.Artifacts) != 1 {
			t.Fatalf("run %d: %d artifacts, want 1", run, len(show.Artifacts))
		}
		a := show.Artifacts[0]
		if d := cmp.Diff([]record.Claim{{Text: "Quokkas live on Rottnest Island.", ChunkIndex: 0, Confidence: 0.75}}, a.Claims); d != "" || a.Method != "offline" {
			t.Errorf("run %d: show's artifact claims (-want +got):\n%s method %q", run, d, a.Method)
		}
	}
	// the suggestions are searchable: the item's full-text row was refreshed
	var n int
	if err := s.DB().Get(&n, `SELECT count(*) FROM search WHERE search MATCH 'annotations:rangers' AND rowid < 0`); err != nil || n != 1 {
		t.Errorf("annotation rows matching: %d %v", n, err)
	}
}

// TestIndexStoredRefused: a stored-content record whose chunks or checksum
// are not the item's (changed since ll-find read it, or made up) writes
// nothing; one without an enrichment changes nothing.
func TestIndexStoredRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/quokka"
	id := record.ItemID(url)
	parsedItem(t, s, url)
	before := stateOf(t, s, id)
	fresh := func() *record.Record {
		rec := &record.Record{ID: id, URL: url, CanonicalURL: url}
		if err := s.AttachStoredChunks(ctx, rec, 0); err != nil {
			t.Fatal(err)
		}
		return rec
	}
	for name, change := range map[string]func(*record.Record){
		"chunk text":     func(r *record.Record) { r.Chunks[1].Text = "Rangers feed visitors." },
		"checksum":       func(r *record.Record) { r.Stored.Checksum = "sha256:other" },
		"chunk index":    func(r *record.Record) { r.Chunks[0].Index = 1 },
		"extra chunk":    func(r *record.Record) { r.Chunks = append(r.Chunks, record.Chunk{Index: 2, Text: "More."}) },
		"another's text": func(r *record.Record) { r.Chunks = []record.Chunk{{Index: 0, Text: "Someone else's page."}} },
	} {
		t.Run(name, func(t *testing.T) {
			rec := fresh()
			change(rec)
			enrichStored(rec)
			_, err := s.Index(ctx, rec, IndexOptions{})
			var re *record.Error
			if !errors.As(err, &re) || re.Code != record.CodeBadInput || !strings.Contains(re.Message, "changed since ll-find read it") {
				t.Fatalf("got %v, want a bad_input error", err)
			}
			var arts int
			s.DB().Get(&arts, `SELECT count(*) FROM artifacts WHERE item_id = ?`, id)
			if arts != 0 || len(annotationsOf(t, s, id)) != 0 {
				t.Errorf("stored %d artifacts, %d annotations", arts, len(annotationsOf(t, s, id)))
			}
		})
	}
	// a forged id is refused before anything (CheckID)
	forged := fresh()
	forged.CanonicalURL = "https://example.com/other"
	enrichStored(forged)
	if _, err := s.Index(ctx, forged, IndexOptions{}); err == nil || !strings.Contains(err.Error(), "is not the id of canonical_url") {
		t.Errorf("forged id: %v", err)
	}
	// without an enrichment: nothing to do, nothing changed
	res, err := s.Index(ctx, fresh(), IndexOptions{})
	if err != nil || res.Status != record.StateParsed || !res.Unchanged {
		t.Errorf("plain stored record: %+v %v", res, err)
	}
	if d := cmp.Diff(before, stateOf(t, s, id)); d != "" {
		t.Errorf("content changed (-before +after):\n%s", d)
	}
	var hist int
	s.DB().Get(&hist, `SELECT count(*) FROM events WHERE item_id = ? AND entity IN ('artifact', 'annotation')`, id)
	if hist != 0 {
		t.Errorf("%d artifact or annotation events", hist)
	}
}

// TestEnrichFailureKept: a record with enrich.error leaves the item parsed
// and keeps the failure (status's last_enrich_error, an enrich_failed
// event), through both paths; a stored enrichment clears it.
func TestEnrichFailureKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/quokka"
	id := record.ItemID(url)
	rec := parsedItem(t, s, url)
	fail := &record.Error{Stage: record.StageEnrich, Code: record.CodeUpstream, Message: "model server answered HTTP 503", Retryable: true, HTTPStatus: 503}

	lastEnrichError := func() *record.Error {
		t.Helper()
		st, err := s.Status(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var in IngestInfo
		if err := json.Unmarshal(st.Extra["ingest"], &in); err != nil {
			t.Fatal(err)
		}
		return in.LastEnrichError
	}
	failures := func() []string {
		t.Helper()
		var out []string
		s.DB().Select(&out, `SELECT detail_json FROM events WHERE item_id = ? AND action = 'enrich_failed' ORDER BY id`, id)
		return out
	}

	// the content path (ll-parse | ll-enrich --llm | ll-index)
	rec.Enrich = &record.EnrichInfo{Error: fail}
	res, err := s.Index(ctx, rec, IndexOptions{})
	if err != nil || res.Status != record.StateParsed {
		t.Fatalf("content path: %+v %v", res, err)
	}
	if d := cmp.Diff(fail, lastEnrichError()); d != "" {
		t.Errorf("content path: last_enrich_error (-want +got):\n%s", d)
	}
	// the stored path, with a long message (kept bounded) and no stage
	long := &record.Error{Code: record.CodeTimeout, Message: strings.Repeat("é", 800), Retryable: true}
	stored := &record.Record{ID: id, URL: url, CanonicalURL: url, Enrich: &record.EnrichInfo{Error: long}}
	if err := s.AttachStoredChunks(ctx, stored, 0); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Index(ctx, stored, IndexOptions{}); err != nil || res.Status != record.StateParsed {
		t.Fatalf("stored path: %+v %v", res, err)
	}
	got := lastEnrichError()
	if got == nil || got.Stage != record.StageEnrich || got.Code != record.CodeTimeout || len(got.Message) > maxEnrichErrorMessage+len("…") || !strings.HasPrefix(got.Message, "éé") {
		t.Errorf("stored path: last_enrich_error %+v", got)
	}
	if f := failures(); len(f) != 2 || !strings.Contains(f[0], `"http_status":503`) || !strings.Contains(f[1], `"code":"timeout"`) {
		t.Errorf("enrich_failed events: %v", f)
	}

	// a later enrichment clears it; the events stay
	ok := &record.Record{ID: id, URL: url, CanonicalURL: url}
	if err := s.AttachStoredChunks(ctx, ok, 0); err != nil {
		t.Fatal(err)
	}
	enrichStored(ok)
	if res, err := s.Index(ctx, ok, IndexOptions{}); err != nil || res.Status != record.StateEnriched {
		t.Fatalf("enrich: %+v %v", res, err)
	}
	if e := lastEnrichError(); e != nil {
		t.Errorf("after enrichment: last_enrich_error %+v", e)
	}
	if len(failures()) != 2 {
		t.Errorf("enrich_failed events: %v", failures())
	}
	// a failure on an enriched item is kept too; the item stays enriched
	// with its earlier artifact
	again := &record.Record{ID: id, URL: url, CanonicalURL: url, Enrich: &record.EnrichInfo{Error: fail}}
	if err := s.AttachStoredChunks(ctx, again, 0); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Index(ctx, again, IndexOptions{}); err != nil || res.Status != record.StateEnriched {
		t.Fatalf("failure on enriched: %+v %v", res, err)
	}
	if d := cmp.Diff(fail, lastEnrichError()); d != "" {
		t.Errorf("failure on enriched: last_enrich_error (-want +got):\n%s", d)
	}
}
