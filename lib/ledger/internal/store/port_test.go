package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

// TestBackupWhileWriting takes copies while another connection saves:
// every copy opens, passes Check, and has each item with its created
// event and tag (one moment, not a mix).
func TestBackupWhileWriting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	s := openTest(t)
	w, err := Open(ctx, s.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 400; i++ {
			r := item(fmt.Sprintf("https://w.example/%d", i))
			r.Tags = []string{"w"}
			if _, err := w.Save(ctx, r, SaveOptions{}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for n := 0; n < 5; n++ {
		dest := filepath.Join(dir, fmt.Sprintf("b%d.db", n))
		if _, err := s.Backup(ctx, dest); err != nil {
			t.Fatal(err)
		}
		b, err := Open(ctx, dest, Options{MustExist: true})
		if err != nil {
			t.Fatal(err)
		}
		probs, err := b.Check(ctx)
		if err != nil || len(probs) > 0 {
			t.Errorf("copy %d: check %v %+v", n, err, probs)
		}
		var items, created, tags int
		b.DB().Get(&items, `SELECT count(*) FROM items`)
		b.DB().Get(&created, `SELECT count(*) FROM events WHERE entity = 'item' AND action = 'created'`)
		b.DB().Get(&tags, `SELECT count(*) FROM tags`)
		if items != created || items != tags {
			t.Errorf("copy %d: %d items, %d created events, %d tags", n, items, created, tags)
		}
		b.Close()
	}
	wg.Wait()
}

func TestCheckRepair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	r := item("https://example.com/a")
	r.Note = "octopus"
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("fresh: %v %+v", err, p)
	}
	s.DB().MustExec(`DELETE FROM search WHERE rowid < 0`)
	p, err := s.Check(ctx)
	if err != nil || len(p) != 1 || p[0].Check != "fts" {
		t.Fatalf("after damage: %v %+v", err, p)
	}
	if _, items, err := s.Repair(ctx); err != nil || items != 1 {
		t.Fatalf("repair: %d %v", items, err)
	}
	if p, err := s.Check(ctx); err != nil || len(p) != 0 {
		t.Fatalf("after repair: %v %+v", err, p)
	}
}
