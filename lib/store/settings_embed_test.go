package store

import (
	"context"
	"strings"
	"testing"
)

// TestEmbedSetting: the stored embeddings endpoint round-trips; a URL
// with user info, another scheme, a missing model or a control character
// is refused and nothing is stored.
func TestEmbedSetting(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if e, row, err := s.StoredEmbed(ctx); err != nil || row != nil || e != (EmbedSetting{}) {
		t.Fatalf("fresh store: %+v %+v %v", e, row, err)
	}
	for _, bad := range []EmbedSetting{
		{URL: "http://user:secret@127.0.0.1:11434/v1", Model: "m"},
		{URL: "ftp://127.0.0.1/v1", Model: "m"},
		{URL: "http://127.0.0.1:11434/v1"},
		{URL: "http://127.0.0.1:11434/v1", Model: "a\nb"},
		{URL: "http://127.0.0.1/" + strings.Repeat("x", maxEmbedURL), Model: "m"},
		{Off: true, Model: "m"},
	} {
		if err := s.SetEmbed(ctx, bad, "human"); err == nil {
			t.Errorf("SetEmbed(%+v): no error", bad)
		}
	}
	if _, row, _ := s.StoredEmbed(ctx); row != nil {
		t.Fatalf("a refused setting was stored: %+v", row)
	}
	for _, want := range []EmbedSetting{{URL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text"}, {Off: true}} {
		if err := s.SetEmbed(ctx, want, "agent:x"); err != nil {
			t.Fatal(err)
		}
		got, row, err := s.StoredEmbed(ctx)
		if err != nil || row == nil || got != want || row.UpdatedBy != "agent:x" {
			t.Errorf("StoredEmbed = %+v %+v %v, want %+v", got, row, err, want)
		}
	}
}
