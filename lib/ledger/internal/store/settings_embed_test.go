package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
)

// TestEmbedSetting: the stored embeddings endpoint round-trips; a URL
// with user info, another scheme, a missing model or a control character
// is refused and nothing is stored.
func TestEmbedSetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	if e, row, err := s.StoredEmbed(ctx); err != nil || row != nil || e != (embed.Endpoint{}) {
		t.Fatalf("fresh store: %+v %+v %v", e, row, err)
	}
	for _, bad := range []embed.Endpoint{
		{URL: "http://user:secret@127.0.0.1:11434/v1", Model: "m"},
		{URL: "ftp://127.0.0.1/v1", Model: "m"},
		{URL: "http://127.0.0.1:11434/v1"},
		{URL: "http://127.0.0.1:11434/v1", Model: "a\nb"},
		{URL: "http://127.0.0.1/" + strings.Repeat("x", embed.MaxEndpointURL), Model: "m"},
		{Off: true, Model: "m"},
	} {
		if err := s.SetEmbed(ctx, bad, "human"); err == nil {
			t.Errorf("SetEmbed(%+v): no error", bad)
		}
	}
	if _, row, _ := s.StoredEmbed(ctx); row != nil {
		t.Fatalf("a refused setting was stored: %+v", row)
	}
	for _, want := range []embed.Endpoint{{URL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"}, {Off: true}} {
		if err := s.SetEmbed(ctx, want, "agent:x"); err != nil {
			t.Fatal(err)
		}
		got, row, err := s.StoredEmbed(ctx)
		if err != nil || row == nil || got != want || row.UpdatedBy != "agent:x" {
			t.Errorf("StoredEmbed = %+v %+v %v, want %+v", got, row, err, want)
		}
	}
}

// TestEmbedReadAtOpen: a store opened with ReadPolicies reads the stored
// embeddings endpoint in open's one check statement (with the decay
// policy) and hands it to its first StoredEmbed; later ones read the
// table, so a change made after the open is seen.
func TestEmbedReadAtOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "ll.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := embed.Endpoint{URL: "http://127.0.0.1:11434/v1", Model: "m1"}
	if err := s.SetEmbed(ctx, want, "human"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for _, policies := range []bool{false, true} {
		r, err := Open(ctx, path, Options{MustExist: true, ReadPolicies: policies})
		if err != nil {
			t.Fatal(err)
		}
		if (r.openedEmbed != nil) != policies || policies && (r.openedEmbed.row == nil || r.openedEmbed.row.Key != SettingEmbed) {
			t.Errorf("ReadPolicies %v: read at open %+v", policies, r.openedEmbed)
		}
		got, row, err := r.StoredEmbed(ctx)
		if err != nil || row == nil || got != want || row.UpdatedBy != "human" {
			t.Errorf("ReadPolicies %v: %+v %+v %v", policies, got, row, err)
		}
		if err := s2(t, path).SetEmbed(ctx, embed.Endpoint{Off: true}, "agent:x"); err != nil {
			t.Fatal(err)
		}
		got, row, err = r.StoredEmbed(ctx)
		if err != nil || row == nil || !got.Off || row.UpdatedBy != "agent:x" {
			t.Errorf("ReadPolicies %v, after a change: %+v %+v %v", policies, got, row, err)
		}
		if err := r.SetEmbed(ctx, want, "human"); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
}
