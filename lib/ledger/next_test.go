package ledger

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func TestWeak(t *testing.T) {
	why := func(terms ...string) *record.WhyRanked { return &record.WhyRanked{MatchedTerms: terms} }
	for _, tc := range []struct {
		q    string
		why  *record.WhyRanked
		want bool
	}{
		{"quokka", why(), false}, // one word: never weak
		{"quokka island rangers", why("quokka"), true},
		{"quokka island rangers", why("quokka", "island"), false},
		{"quokka island rangers water", why("quokka"), true},
		{"quokka island rangers water", why("quokka", "island"), false},
		{"quokka island", nil, false},                                       // no why_ranked (newest items)
		{"the history of the quokka", why("quokka"), false},                 // stopwords are not searched
		{"quokkas zebras unicorns dragons", why("quokka", "quokkas"), true}, // two forms of one word
		{"Quokkas Island rangers", why("quokka", "islands"), false},
		{"studies of islands rangers", why("study"), true},
		{"studies rangers", why("study"), false},
		// qualifiers are filters, not words (issue 28)
		{"quokka tag:travel site:example.com", why("quokka"), false},
		{"quokka island tag:travel tag:animals site:example.com", why("quokka", "island"), false},
		// task wording and contractions are not searched words
		{"Draft a paragraph on why we're seeing Klein's results", why("klein", "results"), false},
		{"summarize what the sources say about quokka islands", why("quokka", "islands"), false},
	} {
		if _, _, got := Weak(tc.q, tc.why); got != tc.want {
			t.Errorf("Weak(%q, %v) = %v, want %v", tc.q, tc.why, got, tc.want)
		}
	}
}

func TestSearchedWords(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"quokka tag:travel site:example.com type:article", []string{"quokka"}},
		{"Draft a paragraph on why we're seeing Klein's results", []string{"seeing", "klein", "results"}},
		{"tag:travel", nil},
		{`"quokka island" -zebra`, []string{"quokka", "island"}},
	} {
		if diff := cmp.Diff(tc.want, SearchedWords(tc.q)); diff != "" {
			t.Errorf("SearchedWords(%q) (-want +got):\n%s", tc.q, diff)
		}
	}
}

func TestAbsentLine(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"quokka"}, `no item contains "quokka"`},
		{[]string{"quokka", "zebra", "dragon"}, `no item contains "quokka", "zebra" or "dragon"`},
	} {
		if got := AbsentLine(tc.in); got != tc.want {
			t.Errorf("AbsentLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearchNext(t *testing.T) {
	strong := Best{ID: "ll_1", Why: &record.WhyRanked{MatchedTerms: []string{"quokka", "island"}}}
	for _, tc := range []struct {
		name      string
		q         string
		n         int
		best      Best
		truncated bool
		want      Next
	}{
		{"nothing matched", "quokka", 0, Best{}, false, Next{Step: StepRephrase}},
		{"empty listing", "", 0, Best{}, false, Next{Step: StepSave}},
		{"read the best", "quokka island", 3, strong, false, Next{Step: StepRead, Item: "ll_1"}},
		{"a listing reads the newest", "", 3, Best{ID: "ll_2"}, false, Next{Step: StepRead, Item: "ll_2"}},
		{"weak", "quokka island rangers water tides", 3, strong, true, Next{Step: StepNarrow, Matched: 2, Words: 5}},
		{"weak, forms of one word", "quokkas zebras unicorns", 3, Best{ID: "ll_1", Why: &record.WhyRanked{MatchedTerms: []string{"quokka", "quokkas"}}}, false, Next{Step: StepNarrow, Matched: 1, Words: 3}},
		{"truncated", "quokka island", 3, strong, true, Next{Step: StepPage}},
		{"best pending", "quokka", 1, Best{ID: "ll_3", Pending: true}, false, Next{Step: StepIngest, Item: "ll_3"}},
	} {
		if d := cmp.Diff(tc.want, SearchNext(tc.q, tc.n, tc.best, tc.truncated)); d != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, d)
		}
	}
	for status, want := range map[string]Step{record.StateSaved: StepIngest, record.StateFetched: StepIngest, record.StateParsed: StepRead, record.StateEnriched: StepRead, record.StateFailed: StepFailed} {
		if got := SaveNext("ll_1", status); got != (Next{Step: want, Item: "ll_1"}) {
			t.Errorf("SaveNext(%s) = %+v, want step %v", status, got, want)
		}
	}
}
