package ledger

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// decayStore is a store with one item whose agent highlights are 200
// days old: "weak guess" (0.3) and "fair guess" (0.45).
func decayStore(t *testing.T) *store.Store {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	url := "https://decay.test/kites"
	text := "kites hover over open fields: a weak guess, a fair guess"
	rec := &record.Record{URL: url, CanonicalURL: url, ID: record.ItemID(url), SourceType: record.SourceArticle, Title: "Kites",
		Text: &text, Checksum: "sha256:kites", Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 6}}}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).Annotate(ctx, url, []record.Annotation{
		{Type: "highlight", Text: "weak guess", Confidence: fp(0.3)},
		{Type: "highlight", Text: "fair guess", Confidence: fp(0.45)},
	}, SaveOptions{Actor: "agent:a"}); err != nil {
		t.Fatal(err)
	}
	now = now.AddDate(0, 0, 200)
	return st
}

func fp(f float64) *float64 { return &f }

func dp(d time.Duration) *time.Duration { return &d }

func highlightsOf(t *testing.T, st *store.Store, o FindOptions) []string {
	t.Helper()
	o.Query = "kites"
	res, err := wrap(st).Find(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, h := range res.Hits {
		for _, a := range h.Hit.Highlights {
			out = append(out, a.Text)
		}
	}
	return out
}

func TestDecayPolicy(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	both := []string{"fair guess", "weak guess"}
	for _, tc := range []struct {
		name   string
		stored *spec.DecayPolicy // nil: none stored
		opt    DecayOptions
		want   []string
	}{
		{"default policy: both below 0.5 and older than 90d", nil, DecayOptions{}, []string{}},
		{"off for the call", nil, DecayOptions{Off: true}, both},
		{"below 0 for the call", nil, DecayOptions{Below: fp(0)}, both},
		{"below 0.4 for the call, after from the default", nil, DecayOptions{Below: fp(0.4)}, []string{"fair guess"}},
		{"after 300d for the call", nil, DecayOptions{After: dp(300 * 24 * time.Hour)}, both},
		{"stored below 0.2", &spec.DecayPolicy{Below: 0.2, After: 90 * 24 * time.Hour}, DecayOptions{}, both},
		{"stored below 0.4", &spec.DecayPolicy{Below: 0.4, After: 90 * 24 * time.Hour}, DecayOptions{}, []string{"fair guess"}},
		{"stored off", &spec.DecayPolicy{}, DecayOptions{}, both},
		{"stored off, below 0.4 for the call: after from the default", &spec.DecayPolicy{}, DecayOptions{Below: fp(0.4)}, []string{"fair guess"}},
		{"stored below 0.4, both flags", &spec.DecayPolicy{Below: 0.4, After: 90 * 24 * time.Hour}, DecayOptions{Below: fp(0.5), After: dp(24 * time.Hour)}, []string{}},
	} {
		if _, err := st.ResetSetting(ctx, store.SettingDecay); err != nil {
			t.Fatal(err)
		}
		if tc.stored != nil {
			if err := st.SetDecay(ctx, *tc.stored, spec.ActorHuman); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(tc.want, highlightsOf(t, st, FindOptions{Decay: tc.opt})); diff != "" {
			t.Errorf("%s: highlights (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestResolveDecayKeepsDefaultWeights(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	// zero weights mean the defaults, with or without decay set
	o, err := wrap(st).ResolveDecay(ctx, FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := spec.DefaultWeights
	want.DecayBelow, want.DecayAfter = store.DefaultDecay.Below, store.DefaultDecay.After
	if diff := cmp.Diff(want, o.Weights); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	// resolving again changes nothing, even after the stored policy changes
	if err := st.SetDecay(ctx, spec.DecayPolicy{}, spec.ActorHuman); err != nil {
		t.Fatal(err)
	}
	again, err := wrap(st).ResolveDecay(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(o.Weights, again.Weights); diff != "" {
		t.Errorf("resolved twice (-first +second):\n%s", diff)
	}
	// the scores with zero weights are the scores with the defaults
	a, err := wrap(st).Find(ctx, FindOptions{Query: "kites", Decay: DecayOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := wrap(st).Find(ctx, FindOptions{Query: "kites", Weights: spec.DefaultWeights, Decay: DecayOptions{Off: true}})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Hits) != 1 || len(b.Hits) != 1 || a.Hits[0].Hit.Score != b.Hits[0].Hit.Score || a.Hits[0].Hit.Score == 0 {
		t.Errorf("zero weights scored %v, defaults %v", a.Hits, b.Hits)
	}
}

func TestReviewQueueDecayMarks(t *testing.T) {
	ctx := context.Background()
	st := decayStore(t)
	list := func(o ReviewQueueOptions) []string {
		recs, err := wrap(st).ReviewQueue(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			a := r.Annotations[0]
			out = append(out, a.Text+map[bool]string{true: " decayed"}[a.Decayed])
		}
		return out
	}
	if diff := cmp.Diff([]string{"fair guess decayed", "weak guess decayed"}, list(ReviewQueueOptions{})); diff != "" {
		t.Errorf("queue under the default policy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"weak guess decayed"}, list(ReviewQueueOptions{Decayed: true, Decay: DecayOptions{Below: fp(0.4)}})); diff != "" {
		t.Errorf("decayed under below 0.4 (-want +got):\n%s", diff)
	}
	// a citation keeps the item's annotations counting
	if _, err := st.AddCitation(ctx, record.ItemID("https://decay.test/kites"), "essay", spec.ActorHuman); err != nil {
		t.Fatal(err)
	}
	if got := list(ReviewQueueOptions{Decayed: true}); len(got) != 0 {
		t.Errorf("decayed after a citation: %v", got)
	}
	if diff := cmp.Diff([]string{"fair guess", "weak guess"}, highlightsOf(t, st, FindOptions{})); diff != "" {
		t.Errorf("highlights of a cited item (-want +got):\n%s", diff)
	}
}
