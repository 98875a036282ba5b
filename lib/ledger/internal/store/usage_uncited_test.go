package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// TestUsagePackWithoutCitations: a pack names a task but records no
// citation; stats says how many such tasks there are (the web app's Reuse
// page showed 0% after a pack and said packs record citations: issue 30).
func TestUsagePackWithoutCitations(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	id := mustSave(t, s, item("https://a.test/")).ID
	now = now.Add(48 * time.Hour)
	if _, err := s.SavePack(ctx, "p", "q", record.PackOptions{}, PackVersion{Brief: `{}`}, "human", false); err != nil {
		t.Fatal(err)
	}
	u, err := s.Usage(ctx, time.Time{}, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if u.Tasks != 1 || u.TasksUncited != 1 || u.TasksReusing != 0 || u.Citations != 0 {
		t.Errorf("a pack alone: tasks %d, uncited %d, reusing %d, citations %d; want 1, 1, 0, 0", u.Tasks, u.TasksUncited, u.TasksReusing, u.Citations)
	}
	// its task cites a source saved two days before: reuse, and cited
	now = now.Add(time.Minute)
	if _, err := s.AddCitation(ctx, id, "p", "agent:w"); err != nil {
		t.Fatal(err)
	}
	if u, err = s.Usage(ctx, time.Time{}, now, 10); err != nil {
		t.Fatal(err)
	}
	if u.Tasks != 1 || u.TasksUncited != 0 || u.TasksReusing != 1 {
		t.Errorf("the pack's task cited: tasks %d, uncited %d, reusing %d; want 1, 0, 1", u.Tasks, u.TasksUncited, u.TasksReusing)
	}
}
