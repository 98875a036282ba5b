package store

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// TestAllowedFiles: only a file item saved with NamedByUser is listed for
// the worker; a stdin-saved file item and web items are not.
func TestAllowedFiles(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	for _, tt := range []struct {
		url   string
		named bool
	}{
		{"file:///home/u/named.pdf", true},
		{"file:///etc/shadow", false},
		{"https://example.com/named", true},
		{"file:///home/u/a%20b.md", true},
	} {
		if _, err := s.Save(ctx, item(tt.url), SaveOptions{NamedByUser: tt.named}); err != nil {
			t.Fatal(err)
		}
	}
	// Saving again from a stream takes nothing away; naming it again adds
	// no second grant.
	if _, err := s.Save(ctx, item("file:///home/u/named.pdf"), SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(ctx, item("file:///home/u/named.pdf"), SaveOptions{NamedByUser: true}); err != nil {
		t.Fatal(err)
	}
	got, err := s.AllowedFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/home/u/a b.md", "/home/u/named.pdf"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AllowedFiles (-want +got):\n%s", diff)
	}
	var grants int
	if err := s.db.Get(&grants, `SELECT count(*) FROM events WHERE action = 'file_allowed'`); err != nil {
		t.Fatal(err)
	}
	if grants != 2 {
		t.Errorf("%d file_allowed events, want 2", grants)
	}
}

// TestRecordChecks: Save and Index refuse a forged id, an unknown
// source_type and negative token counts with bad_input, and store nothing.
func TestRecordChecks(t *testing.T) {
	t.Parallel()
	s := openTest(t)
	ctx := context.Background()
	victim := item("https://example.com/victim")
	victim.Text = trustStr("the real text")
	victim.Chunks = []record.Chunk{{Index: 0, Text: "the real text", Tokens: 3}}
	if _, err := s.Index(ctx, victim, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	forged := func(r *record.Record) *record.Record { r.ID = victim.ID; return r }
	text := func(r *record.Record) *record.Record {
		r.Text = trustStr("vandalised")
		r.Chunks = []record.Chunk{{Text: "vandalised", Tokens: 1}}
		return r
	}
	for _, tt := range []struct {
		name  string
		rec   *record.Record
		index bool
	}{
		{"index: another item's id", text(forged(item("https://evil.example/"))), true},
		{"index: made-up id", text(func() *record.Record { r := item("https://example.com/new"); r.ID = "ll_0000000000000000"; return r }()), true},
		{"index: unknown source_type", text(func() *record.Record { r := item("https://example.com/vid"); r.SourceType = "video"; return r }()), true},
		{"index: negative tokens", func() *record.Record {
			r := text(item("https://example.com/neg"))
			r.Chunks[0].Tokens = -5
			return r
		}(), true},
		{"save: another item's id", forged(item("https://evil.example/")), false},
		{"save: unknown source_type", func() *record.Record { r := item("https://example.com/vid"); r.SourceType = "video"; return r }(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.index {
				_, err = s.Index(ctx, tt.rec, IndexOptions{})
			} else {
				_, err = s.Save(ctx, tt.rec, SaveOptions{})
			}
			var re *record.Error
			if !errors.As(err, &re) || re.Code != record.CodeBadInput {
				t.Fatalf("error %v, want bad_input", err)
			}
		})
	}
	var n int
	if err := s.db.Get(&n, `SELECT count(*) FROM items`); err != nil {
		t.Fatal(err)
	}
	var txt string
	if err := s.db.Get(&txt, `SELECT text FROM content_chunks WHERE item_id = ?`, victim.ID); err != nil {
		t.Fatal(err)
	}
	if n != 1 || txt != "the real text" {
		t.Errorf("%d items, victim text %q: want 1 and the real text", n, txt)
	}
	// The URL of a refused forged id can still be saved under its own id.
	res, err := s.Save(ctx, item("https://example.com/new"), SaveOptions{})
	if err != nil || res.ID != record.ItemID("https://example.com/new") {
		t.Fatalf("save after a forged id: %v %+v", err, res)
	}
}

func trustStr(s string) *string { return &s }

// TestRestoreDropsGrants: a file_allowed event in a restored history (an
// export record from anyone) is written inert as file_grant_dropped, so
// AllowedFiles does not list the file; naming the file grants it.
func TestRestoreDropsGrants(t *testing.T) {
	t.Parallel()
	src, dst := openTest(t), openTest(t)
	ctx := context.Background()
	const u = "file:///home/u/secret.txt"
	if _, err := src.Save(ctx, item(u), SaveOptions{NamedByUser: true}); err != nil {
		t.Fatal(err)
	}
	exp, err := src.Export(ctx, record.ItemID(u), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, created, err := dst.Restore(ctx, exp); err != nil || !created {
		t.Fatalf("Restore = %v, %v", created, err)
	}
	if got, err := dst.AllowedFiles(ctx); err != nil || len(got) != 0 {
		t.Errorf("AllowedFiles after a restore = %v, %v; want none", got, err)
	}
	var detail string
	if err := dst.db.Get(&detail, `SELECT detail_json FROM events WHERE action = 'file_grant_dropped'`); err != nil {
		t.Fatal(err)
	}
	want := `{"reason":"` + droppedGrantReason + `","url":"` + u + `"}`
	if detail != want {
		t.Errorf("file_grant_dropped detail = %s, want %s", detail, want)
	}
	if _, err := dst.Save(ctx, item(u), SaveOptions{NamedByUser: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := dst.AllowedFiles(ctx); err != nil || !cmp.Equal(got, []string{"/home/u/secret.txt"}) {
		t.Errorf("AllowedFiles after naming the file = %v, %v", got, err)
	}
}
