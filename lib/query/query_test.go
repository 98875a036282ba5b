package query

import (
	"regexp"
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
		{name: "hyphen splits, a contraction is no term", in: "state-of-the-art don't", want: Query{Terms: []string{"state", "art"}, Dropped: []string{"of", "the"}}},
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

// TestUnderstand: the task wording, contractions and possessives of a
// request are not searched (docs/retrieval.md "Query understanding").
func TestUnderstand(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		terms []string
		task  []string
	}{
		{name: "the issue's example", in: "Draft a paragraph on why we're seeing Klein's results",
			terms: []string{"seeing", "klein", "results"}, task: []string{"draft", "a", "paragraph", "on"}},
		{name: "possessive keeps its word", in: "Klein's", terms: []string{"klein"}},
		{name: "curly apostrophe", in: "Klein’s replication", terms: []string{"klein", "replication"}},
		{name: "contractions alone", in: "we're don't can't I'm they've you'll", terms: nil},
		{name: "possessive of a function word", in: "it's that's let's sleep", terms: []string{"sleep"}},
		{name: "other apostrophes keep long parts", in: "O'Brien l'homme rock'n'roll", terms: []string{"brien", "homme", "rock", "roll"}},
		{name: "two-letter words stay words", in: "AI's effect on IQ", terms: []string{"ai", "effect", "iq"}},
		{name: "give me", in: "give me the evidence that vitamin D lowers mortality", terms: []string{"evidence", "vitamin", "d", "lowers", "mortality"}, task: []string{"give", "me"}},
		{name: "summarize", in: "Summarize the effect of aspirin on stroke", terms: []string{"effect", "aspirin", "stroke"}, task: []string{"summarize"}},
		{name: "write a short note about", in: "please write a short note about quokka habitats", terms: []string{"quokka", "habitats"}, task: []string{"please", "write", "a", "short", "note", "about"}},
		{name: "citing sources", in: "how sleep loss harms memory, citing sources", terms: []string{"sleep", "loss", "harms", "memory"}, task: []string{"citing", "sources"}},
		{name: "with citations", in: "effects of caffeine with citations", terms: []string{"effects", "caffeine"}, task: []string{"with", "citations"}},
		{name: "what does X say about", in: "What does Klein say about replication?", terms: []string{"klein", "replication"}, task: []string{"what", "does", "say", "about"}},
		{name: "what do the sources say", in: "what do the sources say about microplastics", terms: []string{"microplastics"}, task: []string{"what", "do", "the", "sources", "say", "about"}},
		{name: "in a paragraph", in: "explain transformers in two paragraphs", terms: []string{"transformers"}, task: []string{"explain", "in", "two", "paragraphs"}},
		{name: "according to", in: "according to Smith tariffs raise prices", terms: []string{"smith", "tariffs", "raise", "prices"}, task: []string{"according", "to"}},
		{name: "look up", in: "look up rust borrow checker", terms: []string{"rust", "borrow", "checker"}, task: []string{"look", "up"}},
		{name: "a task word elsewhere is searched", in: "the draft treaty on sources of water", terms: []string{"draft", "treaty", "sources", "water"}},
		{name: "a claim is all evidence", in: "Vitamin D deficiency increases the risk of sepsis", terms: []string{"vitamin", "d", "deficiency", "increases", "risk", "sepsis"}},
		{name: "only task wording is searched", in: "summarize", terms: []string{"summarize"}},
		{name: "repeated task word once", in: "write about write-ahead logs", terms: []string{"write", "ahead", "logs"}, task: []string{"about"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.in, Options{})
			if diff := cmp.Diff(tt.terms, got.Terms); diff != "" {
				t.Errorf("Parse(%q).Terms (-want +got):\n%s", tt.in, diff)
			}
			if diff := cmp.Diff(tt.task, got.Task); diff != "" {
				t.Errorf("Parse(%q).Task (-want +got):\n%s", tt.in, diff)
			}
			for _, term := range got.Terms {
				if len([]rune(term)) < 3 && !containsWord(tt.in, term) {
					t.Errorf("Parse(%q): term %q is a fragment, not a word of the text", tt.in, term)
				}
			}
		})
	}
}

// containsWord says w (lower case) is a word of s, not the piece after
// an apostrophe ("re" of "we're", "s" of "Klein's").
func containsWord(s, w string) bool {
	return regexp.MustCompile(`(?i)(^|[^\p{L}\p{N}'\x{2019}])` + regexp.QuoteMeta(w) + `($|[^\p{L}\p{N}])`).MatchString(s)
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
