package ledger

import (
	"context"
	"errors"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// queueVersions are the versions the review queue shows, by annotation
// text (and "tag:NAME" for tags).
func queueVersions(t *testing.T, st *store.Store) map[string]string {
	t.Helper()
	recs, err := wrap(st).ReviewQueue(context.Background(), ReviewQueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range recs {
		for _, a := range r.Annotations {
			out[a.Text] = a.Version
		}
		for _, tg := range r.Tagged {
			out["tag:"+tg.Tag] = tg.Version
		}
	}
	return out
}

func reviewOf(t *testing.T, st *store.Store, text string) string {
	t.Helper()
	rec, err := wrap(st).Show(context.Background(), "https://decay.test/kites", ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rec.Annotations {
		if a.Text == text {
			return a.Review
		}
	}
	t.Fatalf("no annotation %q", text)
	return ""
}

func annIDOf(t *testing.T, st *store.Store, text string) int64 {
	t.Helper()
	rec, err := wrap(st).Show(context.Background(), "https://decay.test/kites", ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rec.Annotations {
		if a.Text == text {
			return a.ID
		}
	}
	t.Fatalf("no annotation %q", text)
	return 0
}

// TestReviewStale: two pages showed one annotation at one version; the
// first decision applies, the second is refused with a *spec.StaleError and
// changes nothing; an edit (a confidence set) also makes a version stale;
// a decision without a version is applied as before.
func TestReviewStale(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	v := queueVersions(t, st)
	weak := annIDOf(t, st, "weak guess")
	if v["weak guess"] == "" || v["weak guess"] == v["fair guess"] {
		t.Fatalf("versions: %v", v)
	}
	rec, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewConfirmed, IfVersion: v["weak guess"]}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Annotations[0].Version == "" || rec.Annotations[0].Version == v["weak guess"] {
		t.Errorf("the answer's version %q: want a new one", rec.Annotations[0].Version)
	}
	_, err = wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewRejected, IfVersion: v["weak guess"]}, WriteOptions{})
	var se *spec.StaleError
	if !errors.As(err, &se) || se.AnnotationID != weak || se.Now != "confirmed by human" {
		t.Fatalf("stale reject: %v, want a spec.StaleError saying confirmed by human", err)
	}
	if got := reviewOf(t, st, "weak guess"); got != "confirmed" {
		t.Errorf("after the stale reject: %q, want confirmed", got)
	}
	// an edit: the confidence set by another page
	fair := annIDOf(t, st, "fair guess")
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: fair, Confidence: fp(0.8)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: fair, Decision: spec.ReviewRejected, IfVersion: v["fair guess"]}, WriteOptions{}); !errors.As(err, &se) {
		t.Fatalf("reject after an edit: %v, want a spec.StaleError", err)
	}
	if got := reviewOf(t, st, "fair guess"); got != "" {
		t.Errorf("after the stale reject: %q, want undecided", got)
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: fair, Decision: spec.ReviewRejected}, WriteOptions{}); err != nil {
		t.Errorf("a decision without a version: %v", err)
	}
}

// TestReviewUndo: a confirm and a reject are taken back (undecided, back
// in the queue, a rejected highlight back in find); an undo of nothing
// is refused; an agent cannot undo.
func TestReviewUndo(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	weak, fair := annIDOf(t, st, "weak guess"), annIDOf(t, st, "fair guess")
	rec, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewRejected}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewUndo}, WriteOptions{Actor: "agent:a"}); err == nil {
		t.Error("an agent undid a person's decision")
	}
	undone, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewUndo, IfVersion: rec.Annotations[0].Version}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if undone.Annotations[0].Review != "" || reviewOf(t, st, "weak guess") != "" {
		t.Errorf("after the undo: %+v", undone.Annotations[0])
	}
	if _, ok := queueVersions(t, st)["weak guess"]; !ok {
		t.Error("an undone annotation is not back in the queue")
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: weak, Decision: spec.ReviewUndo}, WriteOptions{}); err == nil {
		t.Error("an undo of an undecided annotation was accepted")
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: fair, Decision: spec.ReviewConfirmed}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{AnnotationID: fair, Decision: spec.ReviewUndo}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reviewOf(t, st, "fair guess"); got != "" {
		t.Errorf("an undone confirm: %q", got)
	}
}

// TestReviewAllOneTransaction: a batch whose last decision is stale
// changes nothing, and says which decision failed; the same batch with
// the right versions applies all.
func TestReviewAllOneTransaction(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	if _, err := wrap(st).Tag(ctx, "https://decay.test/kites", []string{"birds"}, nil, SaveOptions{Actor: "agent:a"}); err != nil {
		t.Fatal(err)
	}
	v := queueVersions(t, st)
	weak, fair := annIDOf(t, st, "weak guess"), annIDOf(t, st, "fair guess")
	item := record.ItemID("https://decay.test/kites")
	batch := []spec.ReviewDecision{
		{AnnotationID: weak, Decision: spec.ReviewRejected, IfVersion: v["weak guess"]},
		{ItemID: item, Tag: "birds", Decision: spec.ReviewConfirmed, IfVersion: v["tag:birds"]},
		{AnnotationID: fair, Decision: spec.ReviewRejected, IfVersion: "0000000000000000"},
	}
	_, err := wrap(st).ReviewAll(ctx, batch, WriteOptions{})
	var be *spec.BatchError
	var se *spec.StaleError
	if !errors.As(err, &be) || be.Index != 2 || !errors.As(err, &se) {
		t.Fatalf("batch: %v, want decision 3 stale", err)
	}
	if a, b := reviewOf(t, st, "weak guess"), reviewOf(t, st, "fair guess"); a != "" || b != "" {
		t.Errorf("a failed batch changed %q %q", a, b)
	}
	if _, ok := queueVersions(t, st)["tag:birds"]; !ok {
		t.Error("a failed batch decided the tag")
	}
	batch[2].IfVersion = v["fair guess"]
	recs, err := wrap(st).ReviewAll(ctx, batch, WriteOptions{})
	if err != nil || len(recs) != 3 {
		t.Fatalf("batch: %d, %v", len(recs), err)
	}
	if a, b := reviewOf(t, st, "weak guess"), reviewOf(t, st, "fair guess"); a != "rejected" || b != "rejected" {
		t.Errorf("after the batch: %q %q", a, b)
	}
	// the tag, decided: a stale second decision is refused; undo puts it back
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{ItemID: item, Tag: "birds", Decision: spec.ReviewRejected, IfVersion: v["tag:birds"]}, WriteOptions{}); !errors.As(err, &se) || se.Tag != "birds" {
		t.Errorf("stale tag decision: %v", err)
	}
	if _, err := wrap(st).Review(ctx, spec.ReviewDecision{ItemID: item, Tag: "birds", Decision: spec.ReviewUndo, IfVersion: recs[1].Tagged[0].Version}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := queueVersions(t, st)["tag:birds"]; got != v["tag:birds"] {
		t.Errorf("the undone tag in the queue: version %q, want %q as before", got, v["tag:birds"])
	}
}
