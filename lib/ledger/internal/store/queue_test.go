package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func TestQueueViews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := openTest(t)
	s.now = func() time.Time { return now }
	save := func(url string) {
		if _, err := s.Save(ctx, item(url), SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	fail := func(url string, retryable bool) {
		f := item(url)
		f.Fail(record.StageFetch, record.CodeHTTPStatus, "503", retryable)
		if _, err := s.Index(ctx, f, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	save("https://q.test/saved")
	save("https://q.test/retry")
	fail("https://q.test/retry", true) // next retry in a minute
	save("https://q.test/dead")
	fail("https://q.test/dead", false)
	addDocs(t, s, doc{url: "https://q.test/old", title: "Old", chunks: []string{"old text"}})
	s.DB().MustExec(`UPDATE items SET etag = '"v1"' WHERE canonical_url = 'https://q.test/old'`)
	now = now.Add(40 * 24 * time.Hour)
	addDocs(t, s, doc{url: "https://q.test/fresh", title: "Fresh", chunks: []string{"new text"}})

	list := func(o QueueOptions) []string {
		recs, err := s.Queue(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, r.CanonicalURL[len("https://q.test/"):])
		}
		return out
	}
	tests := []struct {
		name string
		o    QueueOptions
		want []string
	}{
		{"pending", QueueOptions{Queue: QueuePending}, []string{"saved", "retry"}},
		{"pending, attempts exhausted", QueueOptions{Queue: QueuePending, MaxAttempts: 1}, []string{"saved"}},
		{"failed", QueueOptions{Queue: QueueFailed}, []string{"retry", "dead"}},
		{"stale", QueueOptions{Queue: QueueStale, OlderThan: DefaultStaleAfter}, []string{"old"}},
		{"stale 0s", QueueOptions{Queue: QueueStale}, []string{"old", "fresh"}},
		{"limit", QueueOptions{Queue: QueueFailed, Limit: 1, Offset: 1}, []string{"dead"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, list(tt.o)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	stale, _ := s.Queue(ctx, QueueOptions{Queue: QueueStale, OlderThan: DefaultStaleAfter})
	if stale[0].Fetch == nil || stale[0].Fetch.ETag != `"v1"` || stale[0].URL == "" || stale[0].ID == "" {
		t.Errorf("stale record %+v", stale[0])
	}

	st, err := s.Status(ctx, record.ItemID("https://q.test/retry"))
	if err != nil {
		t.Fatal(err)
	}
	var info IngestInfo
	if err := json.Unmarshal(st.Extra["ingest"], &info); err != nil {
		t.Fatal(err)
	}
	if info.Status != "failed" || info.Attempts != 1 || info.LastError == nil || info.LastError.Code != record.CodeHTTPStatus || *info.Chunks != 0 {
		t.Errorf("status %+v", info)
	}
	if _, err := s.Status(ctx, "ll_0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

func TestRelated(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12)
	addDocs(t, s,
		doc{url: "https://t.test/me", title: "Sourdough bread baking", chunks: []string{"Sourdough starter needs flour and water. Levain fermentation makes sourdough rise."}, tags: []string{"baking"}},
		doc{url: "https://t.test/content", title: "Levain and starter care", chunks: []string{"Feed the sourdough starter daily; levain fermentation takes hours."}},
		doc{url: "https://t.test/tagged", title: "Cake recipes", chunks: []string{"Sugar, eggs, butter."}, tags: []string{"baking"}},
		doc{url: "https://t.test/other", title: "Databases", chunks: []string{"SQLite stores data."}},
	)
	res, err := s.Related(context.Background(), record.ItemID("https://t.test/me"), RelatedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := urls(res)
	if diff := cmp.Diff([]string{"content", "tagged"}, got); diff != "" {
		t.Fatalf("related (-want +got):\n%s", diff)
	}
	r0, r1 := res.Hits[0].Hit.Related, res.Hits[1].Hit.Related
	if r0.To != record.ItemID("https://t.test/me") || len(r0.Terms) == 0 {
		t.Errorf("content why %+v", r0)
	}
	if diff := cmp.Diff([]string{"baking"}, r1.SharedTags); diff != "" {
		t.Errorf("shared tags (-want +got):\n%s", diff)
	}
	if _, err := s.Related(context.Background(), "ll_0000000000000000", RelatedOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// TestRelatedBounded: related items use Search's bounds, so terms of the
// item that are common in the library find no candidates (they are left
// out, and say so) while its rare terms still find the related item.
func TestRelatedBounded(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addFiller(t, s, 12) // "lorem ipsum" in every chunk
	addDocs(t, s,
		doc{url: "https://t.test/me", title: "Kiwi notes", chunks: []string{"lorem ipsum lorem ipsum kiwi orchard"}},
		doc{url: "https://t.test/kiwi", title: "Orchards", chunks: []string{"a kiwi orchard in spring"}},
	)
	res, err := s.Related(context.Background(), record.ItemID("https://t.test/me"), RelatedOptions{SearchOptions: SearchOptions{ScanRows: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got := urls(res); len(got) == 0 || got[0] != "kiwi" {
		t.Errorf("related %v, want kiwi first", got)
	}
	dropped := strings.Join(res.Dropped, " ")
	if !strings.Contains(dropped, "lorem") || !strings.Contains(dropped, "ipsum") {
		t.Errorf("dropped %q, want the common terms lorem and ipsum", dropped)
	}
}

// TestRelatedCJK: an item written in Japanese relates to others through
// the distinctive three-character pieces of its text (trigram side index).
func TestRelatedCJK(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	addDocs(t, s,
		doc{url: "https://t.test/ml", title: "機械学習の本", chunks: []string{"東京で機械学習を学ぶ。"}},
		doc{url: "https://t.test/cook", title: "料理", chunks: []string{"東京で料理を学ぶ。"}},
		doc{url: "https://t.test/sky", title: "天気", chunks: []string{"今日は晴れです。"}},
	)
	res, err := s.Related(context.Background(), record.ItemID("https://t.test/ml"), RelatedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"cook"}, urls(res)); diff != "" {
		t.Fatalf("related (-want +got):\n%s", diff)
	}
	if terms := res.Hits[0].Hit.Related.Terms; len(terms) == 0 {
		t.Errorf("no matched terms in %+v", res.Hits[0].Hit.Related)
	}
}
