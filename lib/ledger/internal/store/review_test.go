package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func queueTexts(t *testing.T, s *Store) []string {
	t.Helper()
	recs, err := s.ReviewQueue(context.Background(), ReviewQueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if len(r.Tagged) == 1 {
			out = append(out, "tag:"+r.Tagged[0].Tag)
			continue
		}
		out = append(out, r.Annotations[0].Text)
	}
	return out
}

func hitHighlights(t *testing.T, s *Store, text string) []string {
	t.Helper()
	res := searchExact(t, s, SearchOptions{Text: text})
	var out []string
	for _, h := range res.Hits {
		for _, a := range h.Hit.Highlights {
			out = append(out, a.Text)
		}
	}
	return out
}

func TestReviewQueueAndDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openAt(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	url := "https://review.test/owls"
	addDocs(t, s, doc{url: url, title: "Owls at night", chunks: []string{"Owls hunt at night with silent feathers."}, anns: []record.Annotation{
		{Type: "highlight", Text: "silent feathers", Actor: "agent:a", Confidence: conf(0.5)},
		{Type: "highlight", Text: "Owls hunt", Actor: "agent:a", Confidence: conf(0.9)},
		{Type: "highlight", Text: "a person's own", Actor: "human"},
	}})
	if diff := cmp.Diff([]string{"Owls hunt", "silent feathers"}, queueTexts(t, s)); diff != "" {
		t.Fatalf("queue (-want +got):\n%s", diff)
	}
	shown, err := s.Show(ctx, record.ItemID(url), ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]int64{}
	for _, a := range shown.Annotations {
		ids[a.Text] = a.ID
	}
	rec, err := s.Review(ctx, ReviewDecision{AnnotationID: ids["Owls hunt"], Decision: ReviewConfirmed, Confidence: conf(1)}, "human")
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Annotations[0]; got.Review != ReviewConfirmed || got.Confidence == nil || *got.Confidence != 1 {
		t.Errorf("confirmed annotation: %+v", got)
	}
	if diff := cmp.Diff([]string{"silent feathers"}, queueTexts(t, s)); diff != "" {
		t.Errorf("queue after confirm (-want +got):\n%s", diff)
	}
	if got := hitHighlights(t, s, "owls"); !contains(got, "silent feathers") {
		t.Fatalf("before reject, highlights %v lack silent feathers", got)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: ids["silent feathers"], Decision: ReviewRejected}, "human"); err != nil {
		t.Fatal(err)
	}
	if got := hitHighlights(t, s, "owls"); contains(got, "silent feathers") {
		t.Errorf("rejected annotation still in highlights: %v", got)
	}
	if len(queueTexts(t, s)) != 0 {
		t.Errorf("queue not empty: %v", queueTexts(t, s))
	}
	// an agent adding the rejected text again does not bring it back
	again := item(url)
	again.Annotations = []record.Annotation{{Type: "highlight", Text: "silent feathers", Actor: "agent:b", Confidence: conf(0.99)}}
	if _, err := s.Save(ctx, again, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := hitHighlights(t, s, "owls"); contains(got, "silent feathers") {
		t.Errorf("re-added rejected text is back: %v", got)
	}
	// confirming restores it
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: ids["silent feathers"], Decision: ReviewConfirmed}, "human"); err != nil {
		t.Fatal(err)
	}
	if got := hitHighlights(t, s, "owls"); !contains(got, "silent feathers") {
		t.Errorf("restored annotation missing: %v", got)
	}
	hist, err := s.History(ctx, record.ItemID(url))
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range hist {
		if e.Entity == "annotation" && e.Action != "created" {
			actions = append(actions, e.Action)
		}
	}
	if diff := cmp.Diff([]string{"confidence_set", "confirmed", "rejected", "confirmed"}, actions); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	var nae *NoAnnotationError
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: 999, Decision: ReviewRejected}, "human"); !errors.As(err, &nae) {
		t.Errorf("unknown annotation: %v", err)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: ids["Owls hunt"], Confidence: conf(2)}, "human"); err == nil {
		t.Error("confidence 2 accepted")
	}
	integrityOK(t, s)
}

func TestEnrichKeepsReviewed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://review.test/bats"
	id := record.ItemID(url)
	if _, err := s.Index(ctx, enrichedRecord(url, "agent:linkledger", 2), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	for text, d := range map[string]string{"suggestion 0": ReviewConfirmed, "suggestion 1": ReviewRejected} {
		var annID int64
		if err := s.DB().Get(&annID, `SELECT id FROM annotations WHERE text = ?`, text); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Review(ctx, ReviewDecision{AnnotationID: annID, Decision: d}, ActorHuman); err != nil {
			t.Fatal(err)
		}
	}
	// enriching again suggests 0, 1 and 2: the reviewed two stay as
	// decided (once), only 2 is new
	if _, err := s.Index(ctx, enrichedRecord(url, "agent:linkledger", 3), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Text   string `db:"text"`
		Review string `db:"review"`
	}
	if err := s.DB().Select(&got, `SELECT text, coalesce(review, '') AS review FROM annotations WHERE item_id = ? ORDER BY text`, id); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		Text   string `db:"text"`
		Review string `db:"review"`
	}{{"suggestion 0", "confirmed"}, {"suggestion 1", "rejected"}, {"suggestion 2", ""}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after enrichment (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"suggestion 2"}, queueTexts(t, s)); diff != "" {
		t.Errorf("queue (-want +got):\n%s", diff)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestReviewHumanDecisionStands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://review.test/moths"
	rec := item(url)
	rec.Annotations = []record.Annotation{{Type: "highlight", Text: "moths", Actor: "agent:a", Confidence: conf(0.4)}}
	if _, err := s.Save(ctx, rec, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	var annID int64
	if err := s.DB().Get(&annID, `SELECT id FROM annotations WHERE text = 'moths'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: annID, Decision: ReviewRejected}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	for _, d := range []ReviewDecision{{AnnotationID: annID, Decision: ReviewConfirmed}, {AnnotationID: annID, Confidence: conf(1)}} {
		if _, err := s.Review(ctx, d, "agent:a"); err == nil {
			t.Errorf("agent overrode a person's decision with %+v", d)
		}
	}
	var review string
	var c float64
	s.DB().Get(&review, `SELECT review FROM annotations WHERE id = ?`, annID)
	s.DB().Get(&c, `SELECT confidence FROM annotations WHERE id = ?`, annID)
	if review != ReviewRejected || c != 0.4 {
		t.Errorf("after agent attempts: review %q confidence %v", review, c)
	}
	// export and restore keep the decision
	exp, err := s.Export(ctx, record.ItemID(url), false)
	if err != nil {
		t.Fatal(err)
	}
	s2 := openTest(t)
	if _, _, err := s2.Restore(ctx, exp); err != nil {
		t.Fatal(err)
	}
	var restored string
	if err := s2.DB().Get(&restored, `SELECT coalesce(review, '') FROM annotations WHERE text = 'moths'`); err != nil || restored != ReviewRejected {
		t.Errorf("restored review %q %v", restored, err)
	}
}

func TestDecay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir()+"/ll.db", Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mk := func(url string) {
		addDocs(t, s, doc{url: url, title: "Herons", chunks: []string{"Herons wade in shallow water: a weak old guess, or a strong guess."}, anns: []record.Annotation{
			{Type: "highlight", Text: "weak old guess", Actor: "agent:a", Confidence: conf(0.3)},
			{Type: "highlight", Text: "strong guess", Actor: "agent:a", Confidence: conf(0.8)},
		}})
	}
	mk("https://decay.test/a")
	now = now.AddDate(0, 0, 100)
	on := DefaultWeights
	on.DecayBelow, on.DecayAfter = 0.4, 90*24*time.Hour
	hl := func(w Weights) []string {
		res := searchExact(t, s, SearchOptions{Text: "herons", Weights: w})
		var out []string
		for _, h := range res.Hits {
			for _, a := range h.Hit.Highlights {
				out = append(out, a.Text)
			}
		}
		return out
	}
	if got := hl(DefaultWeights); !contains(got, "weak old guess") {
		t.Fatalf("without decay: %v", got)
	}
	if diff := cmp.Diff([]string{"strong guess"}, hl(on)); diff != "" {
		t.Errorf("with decay (-want +got):\n%s", diff)
	}
	short := on
	short.DecayAfter = 200 * 24 * time.Hour
	if got := hl(short); !contains(got, "weak old guess") {
		t.Errorf("not old enough yet, decayed: %v", got)
	}
	// a citation of the item keeps it
	if _, err := s.AddCitation(ctx, record.ItemID("https://decay.test/a"), "essay", ActorHuman); err != nil {
		t.Fatal(err)
	}
	if got := hl(on); !contains(got, "weak old guess") {
		t.Errorf("cited item's annotation decayed: %v", got)
	}
}

func TestDecayConfirmedStays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir()+"/ll.db", Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addDocs(t, s, doc{url: "https://decay.test/b", title: "Egrets", chunks: []string{"Egrets nest in colonies (kept by a person)."}, anns: []record.Annotation{
		{Type: "highlight", Text: "kept by a person", Actor: "agent:a", Confidence: conf(0.2)},
	}})
	var id int64
	if err := s.DB().Get(&id, `SELECT id FROM annotations WHERE text = 'kept by a person'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Review(ctx, ReviewDecision{AnnotationID: id, Decision: ReviewConfirmed}, ActorHuman); err != nil {
		t.Fatal(err)
	}
	now = now.AddDate(1, 0, 0)
	w := DefaultWeights
	w.DecayBelow, w.DecayAfter = 0.4, 90*24*time.Hour
	res := searchExact(t, s, SearchOptions{Text: "egrets", Weights: w})
	if len(res.Hits) != 1 || len(res.Hits[0].Hit.Highlights) != 1 {
		t.Errorf("confirmed annotation decayed: %+v", res.Hits)
	}
}
