package store

import (
	"context"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// TestAnnotationIDsNeverReused: the newest annotation merged away,
// removed, or gone with its item leaves its id given for good: the next
// annotation gets a new one (issue 30: an id was reused after a merge). A
// ledger from before the rule starts from the ids its history names.
func TestAnnotationIDsNeverReused(t *testing.T) {
	ctx := context.Background()
	s := openAt(t, time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC))
	url := "https://ids.test/x"
	reindex(t, s, url, "Agents need a memory of links they read. The levain is fed daily.", "Second paragraph about rye and salt and water.")
	given := map[int64]bool{}
	add := func(u string, a record.Annotation) int64 {
		t.Helper()
		r := item(u)
		r.Annotations = []record.Annotation{a}
		mustSave(t, s, r)
		var id int64
		if err := s.DB().GetContext(ctx, &id, `SELECT max(CAST(entity_id AS INTEGER)) FROM events WHERE entity = 'annotation' AND action = 'created'`); err != nil {
			t.Fatal(err)
		}
		if given[id] {
			t.Fatalf("annotation %q got id %d, given before", a.Text, id)
		}
		given[id] = true
		return id
	}
	hl := func(text, actor string) record.Annotation {
		return record.Annotation{Type: record.AnnHighlight, Text: text, Actor: actor}
	}
	add(url, hl("Agents need a memory of links they read", "human"))
	// a near duplicate, newest: merged away at once
	second := add(url, hl("a memory of links", "human"))
	var left int
	s.DB().GetContext(ctx, &left, `SELECT count(*) FROM annotations WHERE id = ?`, second)
	if left != 0 {
		t.Fatalf("annotation %d was not merged away (the test needs a merge)", second)
	}
	add(url, hl("The levain is fed daily", "human"))
	// the newest removed
	newest := add(url, hl("rye and salt", "human"))
	if _, err := s.RemoveAnnotations(ctx, record.ItemID(url), []int64{newest}, "human"); err != nil {
		t.Fatal(err)
	}
	add(url, hl("salt and water", "human"))
	// the newest gone with its item
	other := "https://ids.test/other"
	reindex(t, s, other, "Another text with a sentence to highlight.")
	add(other, hl("a sentence to highlight", "human"))
	if _, err := s.Delete(ctx, record.ItemID(other), "human"); err != nil {
		t.Fatal(err)
	}
	last := add(url, hl("Second paragraph", "human"))

	// a ledger from before the rule: no record of the highest id, the
	// newest annotation deleted; its history still names it
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM settings WHERE key = ?`, settingAnnotationIDHigh); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `DELETE FROM annotations WHERE id = ?`, last); err != nil {
		t.Fatal(err)
	}
	if id := add(url, hl("rye", "human")); id != last+1 {
		t.Errorf("after an upgrade: id %d, want %d", id, last+1)
	}
}
