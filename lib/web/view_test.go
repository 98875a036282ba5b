package web

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

func TestMark(t *testing.T) {
	tests := []struct {
		text  string
		terms []string
		want  []seg
	}{
		{"Agent memory, agents.", []string{"agent"}, []seg{{"Agent", true}, {" memory, agents.", false}}},
		{"no terms", nil, []seg{{"no terms", false}}},
		{"<b>memory</b>", []string{"memory", "b"}, []seg{{"<", false}, {"b", true}, {">", false}, {"memory", true}, {"</", false}, {"b", true}, {">", false}}},
		{"café CAFÉ", []string{"Café"}, []seg{{"café", true}, {" ", false}, {"CAFÉ", true}}},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, mark(tt.text, tt.terms)); d != "" {
			t.Errorf("mark(%q, %q) (-want +got)\n%s", tt.text, tt.terms, d)
		}
	}
}

func TestMarkParagraphs(t *testing.T) {
	ps := []ledger.Paragraph{{Text: "One two three. Four five."}, {Text: "Six seven."}}
	anns := []record.Annotation{
		{ID: 1, Type: record.AnnHighlight, Text: "Four five.", Actor: "human"},
		{ID: 2, Type: record.AnnLowlight, Text: "two three", Actor: "agent:a"},
		{ID: 3, Type: record.AnnHighlight, Text: "three. Four", Actor: "agent:a"}, // overlaps both: listed only
		{ID: 4, Type: record.AnnHighlight, Text: "Six", Actor: "agent:a", Review: "rejected"},
		{ID: 5, Type: record.AnnNote, Text: "Six", Actor: "human"},
		{ID: 6, Type: record.AnnHighlight, Text: "five. Six", Actor: "human"}, // spans paragraphs: listed only
	}
	out, placed := markParagraphs(ps, anns)
	if d := cmp.Diff(map[int64]bool{1: true, 2: true}, placed); d != "" {
		t.Errorf("placed (-want +got)\n%s", d)
	}
	var got [][]string
	for _, p := range out {
		var row []string
		for _, s := range p.Segs {
			if s.Ann != nil {
				row = append(row, "["+s.Text+"]")
			} else {
				row = append(row, s.Text)
			}
		}
		got = append(got, row)
	}
	want := [][]string{{"One ", "[two three]", ". ", "[Four five.]"}, {"Six seven."}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("segments (-want +got)\n%s", d)
	}
}

// TestCountWords: counts read "1 attempt", "2 attempts", and the inbox's
// failed list uses it (it said "1 attempts").
func TestCountWords(t *testing.T) {
	for n, want := range map[int]string{0: "0 attempts", 1: "1 attempt", 2: "2 attempts"} {
		if got := count(n, "attempt"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
	home, err := templateFS.ReadFile("templates/home.html")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(home), "}} attempts") {
		t.Error("home.html counts attempts without count")
	}
}
