package store

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// TestReadingState stars, reads and archives items and finds them again
// with the reading filters, in searches and in the newest-first listing;
// starring and marking read are journalled, progress is not, and
// archiving marks an item read (it stays read once unarchived).
func TestReadingState(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a, b, c := "https://example.com/starred", "https://example.com/read", "https://example.com/archived"
	addDocs(t, s,
		doc{url: a, title: "Heron field notes", chunks: []string{"heron wading at dawn in the reeds"}},
		doc{url: b, title: "Heron migration", chunks: []string{"heron flocks fly south in autumn"}},
		doc{url: c, title: "Heron nests", chunks: []string{"heron nests sit high in the trees"}},
	)
	addFiller(t, s, 12)
	ida, idb, idc := record.ItemID(a), record.ItemID(b), record.ItemID(c)

	ch, err := s.SetStarred(ctx, ida, true, "human")
	if err != nil || !ch.Changed || ch.Action != "star" || ch.At == "" {
		t.Fatalf("star: %+v %v", ch, err)
	}
	if again, err := s.SetStarred(ctx, ida, true, "human"); err != nil || again.Changed || again.At != ch.At {
		t.Errorf("star again: %+v %v, want unchanged at %s", again, err, ch.At)
	}
	became, err := s.SetProgress(ctx, idb, 2, 0.4, "human")
	if err != nil || !became {
		t.Fatalf("progress: became read %v, %v", became, err)
	}
	if became, err := s.SetProgress(ctx, idb, 2, 1.7, "human"); err != nil || became {
		t.Errorf("progress again: became read %v, %v; want already read", became, err)
	}
	if _, err := s.SetProgress(ctx, idb, 0, math.NaN(), "human"); err == nil {
		t.Errorf("progress NaN: no error")
	}
	if _, err := s.SetArchived(ctx, idc, true, "human"); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		f    Filter
		want []string
	}{
		{"starred", Filter{Starred: true, Archived: NotArchived}, []string{ida}},
		{"read", Filter{Read: true, Archived: NotArchived}, []string{idb}},
		{"read with archived", Filter{Read: true}, []string{idb, idc}},
		{"unread", Filter{Unread: true, Archived: NotArchived}, []string{ida}},
		{"unread with archived", Filter{Unread: true}, []string{ida}},
		{"starred and read", Filter{Starred: true, Read: true}, nil},
	} {
		got := searchIDs(t, s, "heron", tc.f)
		if d := cmp.Diff(tc.want, got, sortedIDs); d != "" {
			t.Errorf("search %s (-want +got):\n%s", tc.name, d)
		}
		res, err := s.Recent(ctx, SearchOptions{Filter: tc.f, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range res.Hits {
			if h.Title != "" && h.Title[:5] == "Heron" {
				ids = append(ids, h.ID)
			}
		}
		if d := cmp.Diff(tc.want, ids, sortedIDs); d != "" {
			t.Errorf("recent %s (-want +got):\n%s", tc.name, d)
		}
	}
	// the filler is unread too
	res, err := s.Recent(ctx, SearchOptions{Filter: Filter{Unread: true, Archived: NotArchived}, Limit: 50})
	if err != nil || len(res.Hits) != 13 {
		t.Errorf("unread listing: %d hits, %v; want 13 (1 + 12 filler)", len(res.Hits), err)
	}

	// hits carry the reading state and archived_at
	res, err = s.Search(ctx, SearchOptions{Text: "heron", Filter: Filter{}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*record.Record{}
	for _, h := range res.Hits {
		got[h.ID] = h
	}
	if r := got[ida].Reading; r == nil || r.StarredAt != ch.At || r.ReadAt != "" || r.Minutes != 1 {
		t.Errorf("starred hit's reading: %+v", r)
	}
	if r := got[idb].Reading; r == nil || r.ReadAt == "" || r.Progress != 1 || r.Part != 2 {
		t.Errorf("read hit's reading: %+v, want read, progress 1 (clamped), part 2", r)
	}
	if h := got[idc]; h.ArchivedAt == "" || h.Reading == nil || h.Reading.ReadAt == "" {
		t.Errorf("archived hit: archived_at %q reading %+v, want both", h.ArchivedAt, h.Reading)
	}

	// archived means read: still read once unarchived; unread clears it and the progress
	if _, err := s.SetArchived(ctx, idc, false, "human"); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, "heron", Filter{Read: true, Archived: NotArchived}); !cmp.Equal(got, []string{idb, idc}, sortedIDs) {
		t.Errorf("read after unarchive: %v", got)
	}
	un, err := s.SetRead(ctx, idb, false, "human")
	if err != nil || !un.Changed || un.Action != "unread" {
		t.Fatalf("unread: %+v %v", un, err)
	}
	if r, err := s.Reading(ctx, idb); err != nil || r == nil || r.ReadAt != "" || r.Progress != 0 || r.Part != 0 {
		t.Errorf("after unread: %+v %v, want no read_at, progress or part", r, err)
	}
	if _, err := s.SetStarred(ctx, ida, false, "human"); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, s, "heron", Filter{Starred: true}); len(got) != 0 {
		t.Errorf("starred after unstar: %v", got)
	}

	// the history: star and read are journalled, progress only once (read)
	events := func(id string) []string {
		var actions []string
		if err := s.DB().Select(&actions, `SELECT action FROM events WHERE item_id = ? AND entity = 'item' AND action != 'created' ORDER BY id`, id); err != nil {
			t.Fatal(err)
		}
		return actions
	}
	if d := cmp.Diff([]string{"starred", "unstarred"}, events(ida)); d != "" {
		t.Errorf("events of the starred item (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"read", "unread"}, events(idb)); d != "" {
		t.Errorf("events of the read item (-want +got):\n%s", d)
	}

	for _, f := range []func() error{
		func() error { _, err := s.SetStarred(ctx, "ll_0000000000000000", true, "human"); return err },
		func() error { _, err := s.SetRead(ctx, "ll_0000000000000000", true, "human"); return err },
		func() error { _, err := s.SetProgress(ctx, "ll_0000000000000000", 0, 0.5, "human"); return err },
		func() error { _, err := s.Reading(ctx, "ll_0000000000000000"); return err },
	} {
		if err := f(); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown item: %v, want ErrNotFound", err)
		}
	}
	// deleting the item deletes its reading row
	if _, err := s.Delete(ctx, ida, "human"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.DB().Get(&n, `SELECT count(*) FROM item_reading WHERE item_id = ?`, ida); err != nil || n != 0 {
		t.Errorf("reading rows of a deleted item: %d %v", n, err)
	}
	integrityOK(t, s)
}

func TestReadingMinutes(t *testing.T) {
	for _, tc := range []struct{ tokens, chunks, want int }{
		{0, 0, 0},
		{10, 1, 1},            // a short text still takes a minute
		{3067, 1, 10},         // 3067 × 0.75 / 230 = 10.0
		{3067 + 40*9, 10, 10}, // the overlap repeated between chunks is not read twice
		{100, 10, 1},          // tiny chunks: not below half the tokens
	} {
		if got := ReadingMinutes(tc.tokens, tc.chunks); got != tc.want {
			t.Errorf("ReadingMinutes(%d, %d) = %d, want %d", tc.tokens, tc.chunks, got, tc.want)
		}
	}
}
