package ledger

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

func TestCanonicalize(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in        string
		canonical string // "" when an error is wanted
		code      string
		cause     error
	}{
		{"https://EXAMPLE.com/post?utm_source=x#top", "https://example.com/post", "", nil},
		{"example.com/post", "https://example.com/post", "", nil},
		{"./notes.txt", "file://" + file, "", nil},
		{"./missing.txt", "", record.CodeNotFound, canon.ErrNoSuchFile},
		{"ftp://example.com/x", "", record.CodeUnsupported, canon.ErrUnsupportedScheme},
		{"not a url, just words", "", record.CodeBadInput, canon.ErrNotInput},
		{"", "", record.CodeBadInput, nil},
	} {
		var rec record.Record
		err := Canonicalize(&rec, tc.in, ResolveOptions{Cwd: dir})
		if tc.canonical != "" {
			if err != nil || rec.CanonicalURL != tc.canonical || rec.ID != record.ItemID(tc.canonical) || rec.URL != tc.in || rec.SourceType == "" {
				t.Errorf("Canonicalize(%q) = %+v, %v; want %s", tc.in, rec, err, tc.canonical)
			}
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.Code != tc.code || (tc.cause != nil && !errors.Is(err, tc.cause)) {
			t.Errorf("Canonicalize(%q) error %v, want code %s (%v)", tc.in, err, tc.code, tc.cause)
		}
		if rec.ID != "" || rec.CanonicalURL != "" {
			t.Errorf("Canonicalize(%q) failed but set %+v", tc.in, rec)
		}
	}
	// an item id is taken as it is
	var rec record.Record
	if err := Canonicalize(&rec, "ll_0123456789abcdef", ResolveOptions{}); err != nil || rec.ID != "ll_0123456789abcdef" || rec.URL != "" {
		t.Errorf("Canonicalize(id) = %+v, %v", rec, err)
	}
}

func TestSaveAnnotateTagPin(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	opt := SaveOptions{Actor: "agent:test"}
	rec, err := wrap(st).Save(ctx, &record.Record{URL: "https://example.com/post?utm_source=feed", Note: "why", Tags: []string{"ai"}}, opt)
	if err != nil {
		t.Fatal(err)
	}
	id := record.ItemID("https://example.com/post")
	if rec.ID != id || rec.CanonicalURL != "https://example.com/post" || rec.New == nil || !*rec.New || rec.Save == nil || !rec.Save.NoteAdded {
		t.Fatalf("Save: %+v", rec)
	}
	if _, err := wrap(st).Save(ctx, &record.Record{URL: "gopher://x"}, opt); !errors.As(err, new(*InputError)) {
		t.Errorf("Save of a bad URL: %v, want an InputError", err)
	}

	conf := 0.9
	rec, err = wrap(st).Annotate(ctx, "example.com/post", []record.Annotation{{Type: record.AnnHighlight, Text: "the claim", Confidence: &conf}}, opt)
	if err != nil || rec.ID != id || len(rec.Save.AnnotationIDs) != 1 {
		t.Fatalf("Annotate: %+v %v", rec, err)
	}
	ann := rec.Save.AnnotationIDs[0]
	if _, err := wrap(st).Annotate(ctx, id, nil, opt); !errors.As(err, new(*InputError)) {
		t.Errorf("Annotate with nothing: %v", err)
	}
	if _, err := wrap(st).Pin(ctx, id, ann, true, opt); err != nil {
		t.Fatal(err)
	}
	rec, err = wrap(st).Tag(ctx, id, []string{"memory"}, []string{"ai"}, opt)
	if err != nil || !cmp.Equal(rec.Save.TagsAdded, []string{"memory"}) || !cmp.Equal(rec.Save.TagsRemoved, []string{"ai"}) {
		t.Fatalf("Tag: %+v %v", rec.Save, err)
	}
	if _, err := wrap(st).Tag(ctx, id, nil, nil, opt); !errors.As(err, new(*InputError)) {
		t.Errorf("Tag with nothing: %v", err)
	}
	// every verb names an unknown item the same way
	for name, fn := range map[string]func() error{
		"annotate": func() error {
			_, err := wrap(st).Annotate(ctx, "https://example.com/other", []record.Annotation{{Type: record.AnnNote, Text: "x"}}, opt)
			return err
		},
		"tag": func() error {
			_, err := wrap(st).Tag(ctx, "https://example.com/other", []string{"x"}, nil, opt)
			return err
		},
		"pin": func() error { _, err := wrap(st).Pin(ctx, "https://example.com/other", ann, true, opt); return err },
		"status": func() error {
			_, err := wrap(st).Status(ctx, "https://example.com/other", ResolveOptions{})
			return err
		},
		"related": func() error {
			_, err := wrap(st).Related(ctx, "https://example.com/other", FindOptions{}, ResolveOptions{})
			return err
		},
	} {
		var ne *NoItemError
		if err := fn(); !errors.As(err, &ne) || ne.Arg != "https://example.com/other" {
			t.Errorf("%s of an unknown item: %v", name, err)
		}
	}

	got, err := wrap(st).Show(ctx, id, ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []record.Annotation{
		{Type: record.AnnNote, Text: "why", Actor: "agent:test"},
		{Type: record.AnnHighlight, Text: "the claim", Actor: "agent:test", Confidence: &conf, Pinned: true, Anchor: record.AnchorPending}, // not ingested: checked when it is
	}
	if d := cmp.Diff(want, got.Annotations, cmp.FilterPath(func(p cmp.Path) bool {
		f := p.Last().String()
		return f == ".ID" || f == ".CreatedAt"
	}, cmp.Ignore())); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
}

func TestFindAndBrief(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	for _, p := range []struct{ url, title, text string }{
		{"https://example.com/a", "Quokkas of Rottnest", "quokkas smile for photographs on the island"},
		{"https://example.com/b", "Lighthouse keeping", "the keeper trims the wick every evening"},
		{"https://example.com/c", "More quokkas", "quokkas drink little water in summer"},
	} {
		text := p.text
		rec := &record.Record{URL: p.url, CanonicalURL: p.url, ID: record.ItemID(p.url), SourceType: record.SourceArticle, Title: p.title,
			Text: &text, Checksum: "sha256:" + p.url, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 10}}}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := wrap(st).Tag(ctx, "https://example.com/c", []string{"animals"}, nil, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	ids := func(recs []*record.Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.CanonicalURL)
		}
		return out
	}
	res, err := wrap(st).Find(ctx, FindOptions{Query: "quokkas"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(res.Hits); len(got) != 2 || !cmp.Equal(slices.Sorted(slices.Values(got)), []string{"https://example.com/a", "https://example.com/c"}) {
		t.Errorf("Find quokkas: %v", got)
	}
	res, err = wrap(st).Find(ctx, FindOptions{Query: "quokkas", Tags: []string{"animals"}})
	if err != nil || !cmp.Equal(ids(res.Hits), []string{"https://example.com/c"}) {
		t.Errorf("Find quokkas --tags animals: %v %v", ids(res.Hits), err)
	}
	res, err = wrap(st).Find(ctx, FindOptions{Limit: 2})
	if err != nil || len(res.Hits) != 2 || res.Hits[0].Hit.Rank != 1 {
		t.Errorf("Find with no query (newest first): %v %v", ids(res.Hits), err)
	}
	// archived items are left out unless asked for
	if _, err := wrap(st).Archive(ctx, "https://example.com/a", true, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	res, _ = wrap(st).Find(ctx, FindOptions{Query: "quokkas"})
	if !cmp.Equal(ids(res.Hits), []string{"https://example.com/c"}) {
		t.Errorf("Find leaves archived items out: %v", ids(res.Hits))
	}
	res, _ = wrap(st).Find(ctx, FindOptions{Query: "quokkas", Archived: spec.AnyArchived, ArchivedSet: true})
	if len(res.Hits) != 2 {
		t.Errorf("Find with archived items: %v", ids(res.Hits))
	}

	b, err := wrap(st).Brief(ctx, BriefOptions{Find: FindOptions{Query: "quokkas water"}, MaxTokens: 300})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Pack.Items) != 1 || b.Pack.Items[0].URL != "https://example.com/c" || b.Pack.Tokens > 300 || b.Pack.MaxTokens != 300 || b.Text == "" {
		t.Errorf("Brief: %+v", b.Pack)
	}
	if _, err := wrap(st).Brief(ctx, BriefOptions{Find: FindOptions{Query: "quokkas"}, MaxTokens: 3}); !errors.Is(err, brief.ErrBudget) {
		t.Errorf("Brief in 3 tokens: %v, want ErrBudget", err)
	}
}

// TestWritesSentTwice: the writes a remote front command's outbox
// replays (docs/several-machines.md, "Offline: the outbox") leave the
// ledger as one did: a second identical save (same canonical URL, note,
// tags), annotation (same item, type, text, actor) and tag add nothing.
// An identical note by another actor, or on another chunk, is its own.
func TestWritesSentTwice(t *testing.T) {
	ctx := context.Background()
	st := openTest(t)
	opt := SaveOptions{Actor: "agent:laptop"}
	for range 2 {
		if _, err := wrap(st).Save(ctx, &record.Record{URL: "https://example.com/twice?utm_source=x", Note: "kept once", Tags: []string{"a"}}, opt); err != nil {
			t.Fatal(err)
		}
		if _, err := wrap(st).Annotate(ctx, "https://example.com/twice", []record.Annotation{
			{Type: record.AnnNote, Text: "a note sent twice"},
			{Type: record.AnnHighlight, Text: "a quote sent twice"},
			{Type: record.AnnLowlight, Text: "a lowlight sent twice"},
		}, opt); err != nil {
			t.Fatal(err)
		}
		if _, err := wrap(st).Tag(ctx, "https://example.com/twice", []string{"b"}, nil, opt); err != nil {
			t.Fatal(err)
		}
	}
	// the same words by another actor are another note
	if _, err := wrap(st).Annotate(ctx, "https://example.com/twice", []record.Annotation{{Type: record.AnnNote, Text: "a note sent twice"}}, SaveOptions{Actor: "human"}); err != nil {
		t.Fatal(err)
	}
	got, err := wrap(st).Show(ctx, "https://example.com/twice", ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	type ann struct{ Type, Text, Actor string }
	var anns []ann
	for _, a := range got.Annotations {
		anns = append(anns, ann{a.Type, a.Text, a.Actor})
	}
	want := []ann{
		{record.AnnNote, "kept once", "agent:laptop"},
		{record.AnnNote, "a note sent twice", "agent:laptop"},
		{record.AnnHighlight, "a quote sent twice", "agent:laptop"},
		{record.AnnLowlight, "a lowlight sent twice", "agent:laptop"},
		{record.AnnNote, "a note sent twice", "human"},
	}
	if d := cmp.Diff(want, anns); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
	if !cmp.Equal(got.Tags, []string{"a", "b"}) {
		t.Errorf("tags: %v, want [a b]", got.Tags)
	}
}
