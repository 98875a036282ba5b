package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

func TestPackDiff(t *testing.T) {
	m := func(rank int, url, as string) record.PackMember {
		return record.PackMember{Rank: rank, URL: url, As: as}
	}
	before := []record.PackMember{m(1, "https://a/", "item"), m(2, "https://b/", "item"), m(3, "https://c/", "pointer")}
	after := []record.PackMember{m(1, "https://d/", "item"), m(2, "https://a/", "item"), m(3, "https://b/", "pointer")}
	entered, left := diff(before, after)
	if d := cmp.Diff([]record.PackMember{m(1, "https://d/", "item")}, entered); d != "" {
		t.Errorf("entered (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]record.PackMember{m(3, "https://c/", "pointer")}, left); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	// the first version: everything entered, nothing left (never null)
	entered, left = diff(nil, after)
	if len(entered) != 3 || left == nil || len(left) != 0 {
		t.Errorf("first version: entered %v, left %#v", entered, left)
	}
}

func TestMembers(t *testing.T) {
	p := &brief.Pack{Items: []brief.Item{{Rank: 1, URL: "https://a/", Title: "A"}}, Pointers: []brief.Pointer{{Rank: 2, URL: "https://b/", Title: "B"}}}
	want := []record.PackMember{{Rank: 1, URL: "https://a/", Title: "A", As: "item"}, {Rank: 2, URL: "https://b/", Title: "B", As: "pointer"}}
	if d := cmp.Diff(want, Members(p)); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"weekly-retrieval", true},
		{"answer 42", true},
		{"", false},
		{"   ", false},
		{"two\nlines", false},
		{strings.Repeat("x", MaxNameLen), true},
		{strings.Repeat("x", MaxNameLen+1), false},
	} {
		err := CheckName("task", tc.name)
		var ne *NameError
		if tc.ok != (err == nil) || (err != nil && !errors.As(err, &ne)) {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestPackKeepsRanking: a pack saved with a mode is refreshed with it; a
// semantic side that cannot be had is lexical ranking with a warning; a
// pack saved lexical never asks the endpoint; a pack saved with no mode
// stores none.
func TestPackKeepsRanking(t *testing.T) {
	ctx := context.Background()
	fake := &embedfake.Server{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	indexEmbedded(t, st, "hash-64",
		embedDoc{URL: "https://m.test/nac", Text: "Acetylcysteine lowers oxidative stress."},
		embedDoc{URL: "https://m.test/rye", Text: "Rye bread needs a sour starter."})
	ok := &embed.Client{URL: srv.URL + "/v1", Model: "hash-64", Attempts: 1}
	items := func(p *record.PackInfo) []string {
		t.Helper()
		var bp brief.Pack
		if err := json.Unmarshal(p.Brief, &bp); err != nil {
			t.Fatal(err)
		}
		var urls []string
		for _, it := range bp.Items {
			urls = append(urls, it.URL)
		}
		return urls
	}
	o := DefaultPackOptions()
	o.MaxItems, o.MaxPointers = 1, 0
	w := 0.7
	hybrid := o
	hybrid.Mode, hybrid.SemanticWeight = spec.ModeHybrid, &w

	p, err := wrap(st).SavePack(ctx, "h", "NAC", hybrid, PackWriteOptions{Embedder: ok})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"https://m.test/nac"}, items(p)); d != "" || p.Mode != "hybrid" || p.Warnings != nil {
		t.Errorf("save hybrid: mode %q warnings %q items (-want +got):\n%s", p.Mode, p.Warnings, d)
	}
	if p.Options.Mode != "hybrid" || p.Options.SemanticWeight == nil || *p.Options.SemanticWeight != 0.7 {
		t.Errorf("stored options = %+v", p.Options)
	}
	p, err = wrap(st).RefreshPack(ctx, "h", PackWriteOptions{Embedder: ok})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"https://m.test/nac"}, items(p)); d != "" || p.Mode != "hybrid" || len(p.Left) != 0 {
		t.Errorf("refresh hybrid: mode %q left %v items (-want +got):\n%s", p.Mode, p.Left, d)
	}
	// no endpoint now: lexical, with the reason, not an error
	p, err = wrap(st).RefreshPack(ctx, "h", PackWriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items(p)) != 0 || p.Mode != "lexical" || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "no embeddings endpoint configured") {
		t.Errorf("refresh without endpoint: mode %q warnings %q items %v", p.Mode, p.Warnings, items(p))
	}
	// the endpoint failing: the same
	bad := &embed.Client{URL: srv.URL + "/500/v1", Model: "hash-64", Attempts: 1}
	p, err = wrap(st).RefreshPack(ctx, "h", PackWriteOptions{Embedder: bad})
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode != "lexical" || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "embeddings endpoint: upstream") {
		t.Errorf("refresh with a failing endpoint: mode %q warnings %q", p.Mode, p.Warnings)
	}

	// saved lexical: never asks the endpoint, says nothing of its ranking
	lexical := o
	lexical.Mode = spec.ModeLexical
	asked := fake.Requests()
	if p, err = wrap(st).SavePack(ctx, "l", "NAC", lexical, PackWriteOptions{Embedder: ok}); err != nil {
		t.Fatal(err)
	}
	if p, err = wrap(st).RefreshPack(ctx, "l", PackWriteOptions{Embedder: ok}); err != nil {
		t.Fatal(err)
	}
	if len(items(p)) != 0 || p.Mode != "" || p.Warnings != nil || fake.Requests() != asked {
		t.Errorf("lexical pack: mode %q warnings %q items %v, endpoint asked %d times", p.Mode, p.Warnings, items(p), fake.Requests()-asked)
	}

	// saved with no mode: the default of each build, nothing stored
	if p, err = wrap(st).SavePack(ctx, "d", "NAC", o, PackWriteOptions{Embedder: ok}); err != nil {
		t.Fatal(err)
	}
	if p.Mode != "hybrid" || p.Options.Mode != "" || p.Options.SemanticWeight != nil {
		t.Errorf("default pack: mode %q options %+v", p.Mode, p.Options)
	}
	if p, err = wrap(st).RefreshPack(ctx, "d", PackWriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(items(p)) != 0 || p.Mode != "" || p.Warnings != nil {
		t.Errorf("default pack without endpoint: mode %q warnings %q items %v", p.Mode, p.Warnings, items(p))
	}
	// a mode stored by hand that is none: an error that says so, no version
	fuzzy := o
	fuzzy.Mode = "fuzzy"
	if _, err := st.SavePack(ctx, "f", "NAC", fuzzy, store.PackVersion{Brief: `{"items":[],"tokens":1,"max_tokens":2000}`}, spec.ActorHuman, false); err != nil {
		t.Fatal(err)
	}
	if _, err := wrap(st).RefreshPack(ctx, "f", PackWriteOptions{Embedder: ok}); err == nil || !strings.Contains(err.Error(), `pack "f": stored options: mode "fuzzy"`) {
		t.Errorf("refresh of a stored bad mode: %v", err)
	}
	if p, err := wrap(st).ShowPack(ctx, "f", 0); err != nil || p.Version != 1 {
		t.Errorf("after a failed refresh: %v %+v", err, p)
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"max_tokens":2000,"max_items":1,"max_pointers":0}`; string(b) != want {
		t.Errorf("options without a mode = %s, want %s", b, want)
	}
}

// TestCheckPackOptions: the one rule of a pack's brief settings, with the
// words every face repeats.
func TestCheckPackOptions(t *testing.T) {
	w := func(v float64) *float64 { return &v }
	def := DefaultPackOptions()
	with := func(f func(*record.PackOptions)) record.PackOptions {
		o := def
		f(&o)
		return o
	}
	for _, tc := range []struct {
		o    record.PackOptions
		want string
	}{
		{def, ""},
		{with(func(o *record.PackOptions) { o.Mode, o.SemanticWeight = "semantic", w(0) }), ""},
		{with(func(o *record.PackOptions) { o.Mode, o.SemanticWeight = "hybrid", w(1) }), ""},
		{with(func(o *record.PackOptions) {
			o.Type, o.PointerWords, o.MaxPointers = "pdf", brief.MaxPointerWords, brief.MaxPointers
		}), ""},
		{with(func(o *record.PackOptions) { o.Mode = "fuzzy" }), `mode "fuzzy": want lexical, semantic or hybrid`},
		{with(func(o *record.PackOptions) { o.SemanticWeight = w(1.5) }), "semantic_weight 1.5: want 0..1"},
		{with(func(o *record.PackOptions) { o.SemanticWeight = w(math.NaN()) }), "semantic_weight NaN: want 0..1"},
		{with(func(o *record.PackOptions) { o.MaxTokens = 0 }), "max_tokens 0: want 1 or more"},
		{with(func(o *record.PackOptions) { o.MaxItems = brief.MaxItems + 1 }), fmt.Sprintf("max_items %d: want 1..%d", brief.MaxItems+1, brief.MaxItems)},
		{with(func(o *record.PackOptions) { o.MaxPointers = -1 }), fmt.Sprintf("max_pointers -1: want 0..%d", brief.MaxPointers)},
		{with(func(o *record.PackOptions) { o.PointerWords = brief.MaxPointerWords + 1 }), fmt.Sprintf("pointer_words %d: want 0..%d", brief.MaxPointerWords+1, brief.MaxPointerWords)},
		{with(func(o *record.PackOptions) { o.Type = "podcast" }), `type "podcast": want article, x, youtube, pdf or text`},
	} {
		got := ""
		err := CheckPackOptions(tc.o)
		if err != nil {
			got = err.Error()
			var re *RequestError
			if !errors.As(err, &re) {
				t.Errorf("CheckPackOptions(%+v) = %T, want a *RequestError", tc.o, err)
			}
		}
		if got != tc.want {
			t.Errorf("CheckPackOptions(%+v) = %q, want %q", tc.o, got, tc.want)
		}
	}
}
