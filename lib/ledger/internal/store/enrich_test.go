package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// enrichedRecord is a parsed record with an artifact by agent and n
// highlight suggestions (confidence 0.5 + i/100, chunk i%2).
func enrichedRecord(url, agent string, n int) *record.Record {
	text := "First sentence here, suggestion 0, suggestion 2, suggestion 4. Second sentence there, suggestion 1, suggestion 3, suggestion 5."
	rec := item(url)
	rec.Text, rec.Checksum = &text, "sha256:e"
	rec.Chunks = []record.Chunk{{Index: 0, Text: "First sentence here, suggestion 0, suggestion 2, suggestion 4.", Tokens: 9}, {Index: 1, Text: "Second sentence there, suggestion 1, suggestion 3, suggestion 5.", Tokens: 9}}
	rec.Artifact = &record.Artifact{Summary: "First sentence here.", KeyClaims: []string{"Second sentence there."}, CreatedBy: agent, Method: "offline",
		Claims: []record.Claim{{Text: "Second sentence there.", ChunkIndex: 1, Confidence: 0.6}}}
	for i := 0; i < n; i++ {
		ci := i % 2
		rec.Annotations = append(rec.Annotations, record.Annotation{Type: record.AnnHighlight, Text: fmt.Sprintf("suggestion %d", i), Actor: agent, Confidence: conf(0.5 + float64(i)/100), ChunkIndex: &ci})
	}
	return rec
}

type enrichAnn struct {
	Text   string `db:"text"`
	Actor  string `db:"actor"`
	Pinned bool   `db:"pinned"`
	Chunk  *int   `db:"chunk_index"`
}

func annotationsOf(t *testing.T, s *Store, id string) []enrichAnn {
	t.Helper()
	var rows []enrichAnn
	if err := s.DB().Select(&rows, `SELECT a.text, a.actor, a.pinned, c.chunk_index FROM annotations a LEFT JOIN content_chunks c ON c.id = a.chunk_id WHERE a.item_id = ? ORDER BY a.text`, id); err != nil {
		t.Fatal(err)
	}
	return rows
}

func ip(i int) *int { return &i }

func TestIndexEnrichment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://example.com/enrich"
	id := record.ItemID(url)
	human := item(url)
	human.Annotations = []record.Annotation{{Type: record.AnnHighlight, Text: "mine", Actor: ActorHuman}}
	if _, err := s.Save(ctx, human, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	other := item(url)
	other.Annotations = []record.Annotation{{Type: record.AnnHighlight, Text: "other agent", Actor: "agent:other", Confidence: conf(0.9)}}
	if _, err := s.Save(ctx, other, SaveOptions{}); err != nil {
		t.Fatal(err)
	}

	res, err := s.Index(ctx, enrichedRecord(url, "agent:linkledger", 3), IndexOptions{})
	if err != nil || res.Status != record.StateEnriched {
		t.Fatalf("first: %+v %v", res, err)
	}
	want := []enrichAnn{
		{Text: "mine", Actor: ActorHuman},
		{Text: "other agent", Actor: "agent:other"},
		{Text: "suggestion 0", Actor: "agent:linkledger", Chunk: ip(0)},
		{Text: "suggestion 1", Actor: "agent:linkledger", Chunk: ip(1)},
		{Text: "suggestion 2", Actor: "agent:linkledger", Chunk: ip(0)},
	}
	if diff := cmp.Diff(want, annotationsOf(t, s, id)); diff != "" {
		t.Errorf("first (-want +got):\n%s", diff)
	}

	// pin suggestion 0, enrich again with 6 suggestions under cap 4: one
	// artifact, the pinned one kept once, the other agent's kept, the
	// person's kept, agent highlights cut to 4 (lowest confidence first)
	var pinID int64
	s.DB().Get(&pinID, `SELECT id FROM annotations WHERE text = 'suggestion 0'`)
	pin := item(url)
	pin.Pin = []int64{pinID}
	if _, err := s.Save(ctx, pin, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err = s.Index(ctx, enrichedRecord(url, "agent:linkledger", 6), IndexOptions{AgentHighlightCap: 4})
	if err != nil || res.Status != record.StateEnriched {
		t.Fatalf("second: %+v %v", res, err)
	}
	want = []enrichAnn{
		{Text: "mine", Actor: ActorHuman},
		{Text: "other agent", Actor: "agent:other"},
		{Text: "suggestion 0", Actor: "agent:linkledger", Pinned: true, Chunk: ip(0)},
		{Text: "suggestion 4", Actor: "agent:linkledger", Chunk: ip(0)},
		{Text: "suggestion 5", Actor: "agent:linkledger", Chunk: ip(1)},
	}
	if diff := cmp.Diff(want, annotationsOf(t, s, id)); diff != "" {
		t.Errorf("second (-want +got):\n%s", diff)
	}
	var arts []string
	s.DB().Select(&arts, `SELECT created_by FROM artifacts WHERE item_id = ?`, id)
	if diff := cmp.Diff([]string{"agent:linkledger"}, arts); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
}

func TestIndexEnrichmentRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		edit func(*record.Record)
		want string
	}{
		{"bad agent name", func(r *record.Record) { r.Artifact.CreatedBy = "agent:-x" }, `artifact: created_by "agent:-x": want agent:<name>`},
		{"empty artifact", func(r *record.Record) { r.Artifact.Summary, r.Artifact.KeyClaims = " ", nil }, "artifact: empty summary and key_claims"},
		{"confidence", func(r *record.Record) { r.Annotations[0].Confidence = conf(1.5) }, "suggestion 1: confidence 1.5: want a number from 0 to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openTest(t)
			rec := enrichedRecord("https://example.com/bad", "agent:linkledger", 1)
			tt.edit(rec)
			_, err := s.Index(ctx, rec, IndexOptions{})
			var re *record.Error
			if !errors.As(err, &re) || re.Message != tt.want {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			var n int
			s.DB().Get(&n, `SELECT count(*) FROM items`)
			if n != 0 {
				t.Errorf("%d items stored, want none", n)
			}
		})
	}
	// an artifact by a person on a record reaching ll-index is ignored, as before
	s := openTest(t)
	rec := enrichedRecord("https://example.com/person", ActorHuman, 1)
	res, err := s.Index(ctx, rec, IndexOptions{})
	if err != nil || res.Status != record.StateParsed {
		t.Fatalf("person's artifact: %+v %v", res, err)
	}
}
