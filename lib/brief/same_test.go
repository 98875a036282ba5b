package brief

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func TestSamePassage(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"The crust should be dark.", "the crust  should be DARK", true},
		{"…the crust should be dark and the crumb open…", "The crust should be dark.", true},
		{"The crust should be dark and the crumb open, the loaf tall, the oven hot and the kitchen warm.", "the crust should be dark", false},
		{"the crust should be darker", "the crust should be dark", false}, // word boundaries
		{"", "", false},
	} {
		if got := samePassage(wordForm(c.a), wordForm(c.b)); got != c.want {
			t.Errorf("samePassage(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// TestFromRecordOnePassageOnce: a summary, key claim and snippet of the
// highlighted sentence become the highlight with its provenance; an
// agent's unanchored quote is left out, a person's is their note.
func TestFromRecordOnePassageOnce(t *testing.T) {
	c := 0.9
	r := &record.Record{ID: "ll_1", URL: "https://x.test/a", Hit: &record.Hit{
		Highlights: []record.Annotation{
			{Text: "Levain must be ripe before mixing.", Actor: "human"},
			{Text: "an agent's paraphrase", Actor: "agent:a", Confidence: &c, Anchor: record.AnchorUnanchored},
			{Text: "my own words", Actor: "human", Anchor: record.AnchorUnanchored},
		},
		Snippets: []record.Snippet{{Text: "…levain must be ripe before mixing…"}, {Text: "Bake hot and long for a dark crust."}},
		Artifact: &record.Artifact{Summary: "Bake hot and long for a dark crust.", KeyClaims: []string{"Levain must be ripe before mixing.", "Salt slows the levain."}},
	}}
	it := FromRecord(r)
	want := Item{ID: "ll_1", URL: "https://x.test/a",
		Highlights:  []Evidence{{Text: "Levain must be ripe before mixing.", Actor: "human", Also: []string{"key_claim", "snippet"}}},
		Notes:       []Evidence{{Text: "my own words", Actor: "human", Anchor: record.AnchorUnanchored}},
		Summary:     "Bake hot and long for a dark crust.",
		SummaryAlso: []string{"snippet"},
		KeyClaims:   []string{"Salt slows the levain."},
		Unanchored:  1,
	}
	if d := cmp.Diff(want, it); d != "" {
		t.Errorf("item (-want +got):\n%s", d)
	}
	p, _, err := Build([]Item{it}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Dropped{{What: "unanchored_quotes", Count: 1}}, p.Dropped); d != "" {
		t.Errorf("dropped (-want +got):\n%s", d)
	}
}
