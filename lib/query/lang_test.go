package query

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseLang(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Lang
	}{
		{`agent memory`, Lang{Text: "agent memory"}},
		{`"exact phrase" other`, Lang{Text: "exact phrase other", Phrases: []string{"exact phrase"}}},
		{`memory -vector -"word embeddings"`, Lang{Text: "memory", Exclude: []string{"vector", "word embeddings"}}},
		{`tag:AI tag:papers site:https://www.Example.com/x type:pdf`, Lang{Tags: []string{"ai", "papers"}, Sites: []string{"example.com"}, Types: []string{"pdf"}}},
		{`after:2w before:2026-01-01 sqlite`, Lang{Text: "sqlite", After: "2w", Before: "2026-01-01"}},
		{`is:pinned is:archived is:failed has:highlights has:notes`, Lang{Pinned: true, Archived: true, Failed: true, HasHighlights: true, HasNotes: true}},
		{`is:starred IS:Read is:unread essay`, Lang{Text: "essay", Starred: true, Read: true, Unread: true}},
		{`is:star`, Lang{Starred: true}},
		{`by:agent:Reader by:human by:robot`, Lang{Text: "by:robot", Actors: []string{"agent:Reader", "human"}}},
		// unknown qualifiers, values a qualifier does not take, empty values: words
		{`title:zebra is:blue type:movie tag: has:cake`, Lang{Text: "title:zebra is:blue type:movie tag: has:cake"}},
		// an unbalanced quote runs to the end; a quote inside a word ends it
		{`"running late`, Lang{Text: "running late", Phrases: []string{"running late"}}},
		{`don"t stop`, Lang{Text: "don t stop"}},
		{`by:"agent:x y"`, Lang{Actors: []string{"agent:x y"}}},
		{`- -- "" -"" run* OR (`, Lang{Text: "- -- run* OR ("}},
		{"“smart quotes”", Lang{Text: "smart quotes", Phrases: []string{"smart quotes"}}},
		{`-café`, Lang{Exclude: []string{"café"}}},
		{`E2f-1, -2, -3 cells`, Lang{Text: "E2f-1, -2, -3 cells"}},
		{"", Lang{}},
	} {
		got := ParseLang(c.in)
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("ParseLang(%q) (-want +got):\n%s", c.in, d)
		}
	}
}

func TestParseLangBounded(t *testing.T) {
	l := ParseLang(strings.Repeat("tag:x ", 1000) + `"` + strings.Repeat("long ", 1000))
	if len(l.Tags) != maxLangItems || len(l.Phrases) != 1 || len(l.Phrases[0]) > maxValueBytes {
		t.Errorf("not bounded: %d tags, phrases %d (%d bytes)", len(l.Tags), len(l.Phrases), len(l.Phrases[0]))
	}
}

// FuzzParseLang: no input is a syntax error or a panic; what comes out is
// valid UTF-8 and bounded, and every phrase, exclusion and the text's
// words reach FTS5 only as quoted strings.
func FuzzParseLang(f *testing.F) {
	for _, s := range append(seeds, `"a b" -c tag:x site:y.com type:pdf after:2w before:2026-01-01 is:pinned has:notes by:agent:z`,
		`-"`, `tag:"`, `""""`, `a:b:c`, "\u201c\u201d-\u201c", "by:agent:") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l := ParseLang(s)
		var vals []string
		vals = append(vals, l.Text, l.After, l.Before)
		for _, list := range [][]string{l.Phrases, l.Exclude, l.Tags, l.Sites, l.Types, l.Actors} {
			if len(list) > maxLangItems {
				t.Fatalf("ParseLang(%q): %d values", s, len(list))
			}
			vals = append(vals, list...)
		}
		for _, v := range vals {
			if !utf8.ValidString(v) {
				t.Fatalf("ParseLang(%q): invalid UTF-8 %q", s, v)
			}
		}
		for _, p := range append(append([]string{}, l.Phrases...), l.Exclude...) {
			if p == "" || len(p) > maxValueBytes {
				t.Fatalf("ParseLang(%q): value %q", s, p)
			}
			if err := checkQuoted(Quote(p)); err != nil {
				t.Fatalf("ParseLang(%q): %q: %v", s, p, err)
			}
		}
		if err := checkQuoted(Parse(l.Text, Options{}).Match()); err != nil {
			t.Fatalf("ParseLang(%q): text %q: %v", s, l.Text, err)
		}
	})
}

// TestMentionsCapped: phrases and exclusions together are capped at
// MaxMentions (each is a full-text search of its own; 32 negated common
// phrases took 20× a plain query, issue 27); the rest are counted in
// DroppedMentions, and a dropped phrase's words still rank.
func TestMentionsCapped(t *testing.T) {
	var q []string
	for i := 0; i < 30; i++ {
		q = append(q, fmt.Sprintf(`-"the w%d"`, i))
	}
	q = append(q, `"kept words"`, "-last", "plain")
	l := ParseLang(strings.Join(q, " "))
	if len(l.Exclude) != MaxMentions || len(l.Phrases) != 0 || l.DroppedMentions != 32-MaxMentions {
		t.Errorf("exclude %d, phrases %d, dropped %d: want %d, 0, %d", len(l.Exclude), len(l.Phrases), l.DroppedMentions, MaxMentions, 32-MaxMentions)
	}
	if l.Exclude[0] != "the w0" || l.Exclude[MaxMentions-1] != fmt.Sprintf("the w%d", MaxMentions-1) {
		t.Errorf("exclude %q: want the first %d in order", l.Exclude, MaxMentions)
	}
	if l.Text != "kept words plain" {
		t.Errorf("text %q: a dropped phrase's words still rank", l.Text)
	}
	// at the cap, nothing is dropped
	l = ParseLang(strings.Join(q[:MaxMentions], " "))
	if len(l.Exclude) != MaxMentions || l.DroppedMentions != 0 {
		t.Errorf("at the cap: exclude %d, dropped %d", len(l.Exclude), l.DroppedMentions)
	}
}
