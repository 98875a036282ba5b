package store

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEmbedSettingPrefixes: stored task prefixes round-trip, "" (an
// explicit none) stays apart from none stored (the model's default); a
// bad prefix, or one on an off setting, is refused and nothing stored.
func TestEmbedSettingPrefixes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	p := func(v string) *string { return &v }
	const u = "http://127.0.0.1:11434/v1"
	for _, bad := range []EmbedSetting{
		{URL: u, Model: "m", DocPrefix: p("a\x01")},
		{URL: u, Model: "m", QueryPrefix: p(strings.Repeat("x", 257))},
		{URL: u, Model: "m", DocPrefix: p("\xff")},
		{Off: true, DocPrefix: p("")},
	} {
		if err := s.SetEmbed(ctx, bad, "human"); err == nil {
			t.Errorf("SetEmbed(%+v): no error", bad)
		}
	}
	if _, row, _ := s.StoredEmbed(ctx); row != nil {
		t.Fatalf("a refused setting was stored: %+v", row)
	}
	for _, tc := range []struct {
		set        EmbedSetting
		doc, query string
	}{
		{EmbedSetting{URL: u, Model: "nomic-embed-text"}, "search_document: ", "search_query: "},
		{EmbedSetting{URL: u, Model: "nomic-embed-text", DocPrefix: p("")}, "", "search_query: "},
		{EmbedSetting{URL: u, Model: "m", DocPrefix: p("Instruct: x\nDoc: "), QueryPrefix: p("q: ")}, "Instruct: x\nDoc: ", "q: "},
	} {
		if err := s.SetEmbed(ctx, tc.set, "human"); err != nil {
			t.Fatal(err)
		}
		got, _, err := s.StoredEmbed(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.set, got); diff != "" {
			t.Errorf("StoredEmbed (-want +got):\n%s", diff)
		}
		if doc, query := got.Prefixes(); doc != tc.doc || query != tc.query {
			t.Errorf("%+v: Prefixes = %q, %q; want %q, %q", tc.set, doc, query, tc.doc, tc.query)
		}
	}
}
