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

func TestPacksVersions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	o := record.PackOptions{MaxTokens: 900, MaxItems: 2, MaxPointers: 3, Tags: []string{"ai"}}
	m := func(url string) []record.PackMember { return []record.PackMember{{Rank: 1, URL: url, As: "item"}} }
	p, err := s.SavePack(ctx, "weekly", "agent memory", o, PackVersion{Brief: `{"v":1}`, Entered: m("https://a.test/")}, "human", false)
	if err != nil {
		t.Fatal(err)
	}
	want := &record.PackInfo{Name: "weekly", Query: "agent memory", Options: &o, CreatedAt: "2026-11-01T09:00:00Z", CreatedBy: "human",
		Version: 1, BuiltAt: "2026-11-01T09:00:00Z", BuiltBy: "human", Entered: m("https://a.test/"), Left: []record.PackMember{}, Brief: []byte(`{"v":1}`)}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("saved (-want +got):\n%s", diff)
	}
	if _, err := s.SavePack(ctx, "weekly", "other", o, PackVersion{Brief: `{}`}, "human", false); !errors.Is(err, ErrPackExists) {
		t.Errorf("a second save: %v, want ErrPackExists", err)
	}
	now = now.Add(time.Hour)
	p, err = s.AddPackVersion(ctx, "weekly", PackVersion{Brief: `{"v":2}`, Left: m("https://a.test/")}, "agent:r")
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != 2 || p.BuiltBy != "agent:r" || p.BuiltAt != "2026-11-01T10:00:00Z" || p.CreatedAt != "2026-11-01T09:00:00Z" ||
		string(p.Brief) != `{"v":2}` || len(p.Entered) != 0 || len(p.Left) != 1 {
		t.Errorf("refreshed: %+v", p)
	}
	if _, err := s.AddPackVersion(ctx, "nope", PackVersion{Brief: `{}`}, "human"); !errors.Is(err, ErrNoPack) {
		t.Errorf("refresh of an unknown pack: %v", err)
	}
	if p, err := s.Pack(ctx, "weekly", 1); err != nil || string(p.Brief) != `{"v":1}` {
		t.Errorf("version 1: %v %+v", err, p)
	}
	if _, err := s.Pack(ctx, "weekly", 3); !errors.Is(err, ErrNoPack) {
		t.Errorf("version 3: %v", err)
	}
	// replace: new query, next version
	if p, err := s.SavePack(ctx, "weekly", "new query", o, PackVersion{Brief: `{"v":3}`}, "human", true); err != nil || p.Version != 3 || p.Query != "new query" {
		t.Errorf("replace: %v %+v", err, p)
	}
	if _, err := s.SavePack(ctx, "a-first", "q", o, PackVersion{Brief: `{}`}, "human", false); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Packs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range ps {
		if p.Brief != nil {
			t.Errorf("list holds a brief: %s", p.Brief)
		}
		got = append(got, p.Name+" "+p.Query+" "+string(rune('0'+p.Version)))
	}
	if diff := cmp.Diff([]string{"a-first q 1", "weekly new query 3"}, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if _, err := s.SavePack(ctx, "x", "q", o, PackVersion{Brief: `{}`}, "robot", false); err == nil {
		t.Error("a bad actor was accepted")
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	day := func(d float64) time.Time {
		return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(d * float64(24*time.Hour)))
	}
	now := day(1)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	save := func(url string) string {
		t.Helper()
		return mustSave(t, s, item(url)).ID
	}
	cite := func(id, task string) {
		t.Helper()
		if _, err := s.AddCitation(ctx, id, task, "agent:w"); err != nil {
			t.Fatal(err)
		}
	}
	a, b, d := save("https://a.test/"), save("https://b.test/"), save("https://d.test/")
	now = day(2)
	if _, err := s.SavePack(ctx, "p", "q", record.PackOptions{}, PackVersion{Brief: `{}`}, "human", false); err != nil {
		t.Fatal(err)
	}
	now = day(3)
	cite(a, "t1") // a was saved before t1 began: reuse
	c := save("https://c.test/")
	cite(c, "t2") // saved as t2 began: not reuse
	now = day(4)
	cite(c, "p")  // saved after the pack p began: not reuse
	cite(b, "t3") // reuse
	if _, err := s.AddCitation(ctx, "ll_0000000000000000", "t3", "human"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a citation of an unknown item: %v", err)
	}
	_ = d

	all, err := s.Usage(ctx, time.Time{}, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	src := func(id, url string, tasks, cites int) record.UsageSource {
		return record.UsageSource{ItemID: id, URL: url, Tasks: tasks, Citations: cites}
	}
	first := []record.UsageSource{src(c, "https://c.test/", 2, 2)}
	rest := []record.UsageSource{src(a, "https://a.test/", 1, 1), src(b, "https://b.test/", 1, 1)}
	if rest[0].ItemID > rest[1].ItemID {
		rest[0], rest[1] = rest[1], rest[0]
	}
	want := &record.UsageStats{Until: "2026-11-05T00:00:00Z", Tasks: 4, TasksReusing: 2, ReuseShare: 0.5, ReuseGoal: 0.3,
		Citations: 4, ItemsSaved: 4, ItemsNeverUsed: 1, MostReused: append(first, rest...)}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("all time (-want +got):\n%s", diff)
	}
	// The last day only: p (by its citation; its pack was built before)
	// and t3; t3 reused b.
	last, err := s.Usage(ctx, day(3.5), now, 1)
	if err != nil {
		t.Fatal(err)
	}
	want = &record.UsageStats{Since: "2026-11-04T12:00:00Z", Until: "2026-11-05T00:00:00Z", Tasks: 2, TasksReusing: 1, ReuseShare: 0.5, ReuseGoal: 0.3,
		Citations: 2, ItemsSaved: 0, ItemsNeverUsed: 0, MostReused: []record.UsageSource{src(b, "https://b.test/", 1, 1)}}
	if last.MostReused[0].ItemID == c {
		want.MostReused = []record.UsageSource{src(c, "https://c.test/", 1, 1)}
	}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("last day (-want +got):\n%s", diff)
	}
}

// TestUsageReuseIsLaterWork: a source saved and cited minutes later in a
// new task is not reuse; one saved in earlier work (over an hour before
// the task began) is (issue 28).
func TestUsageReuseIsLaterWork(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	old := mustSave(t, s, item("https://old.test/")).ID
	now = now.Add(3 * time.Hour)
	fresh := mustSave(t, s, item("https://fresh.test/")).ID
	now = now.Add(2 * time.Minute)
	if _, err := s.AddCitation(ctx, fresh, "draft", "agent:w"); err != nil {
		t.Fatal(err)
	}
	u, err := s.Usage(ctx, time.Time{}, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if u.Tasks != 1 || u.TasksReusing != 0 {
		t.Errorf("cited 2 minutes after its save: %d of %d tasks reusing, want 0 of 1", u.TasksReusing, u.Tasks)
	}
	if _, err := s.AddCitation(ctx, old, "draft", "agent:w"); err != nil {
		t.Fatal(err)
	}
	if u, err = s.Usage(ctx, time.Time{}, now, 10); err != nil {
		t.Fatal(err)
	}
	if u.Tasks != 1 || u.TasksReusing != 1 {
		t.Errorf("and a source saved 3 hours before: %d of %d tasks reusing, want 1 of 1", u.TasksReusing, u.Tasks)
	}
}
