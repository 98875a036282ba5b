package brief

import (
	"fmt"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/chunk"
)

// leadInItem is an item whose sentence with the query's words is a
// lead-in and whose next sentence (with none of them) gives the figure,
// among filler sentences.
func leadInItem() Item {
	var ss []string
	for k := 0; k < 60; k++ {
		ss = append(ss, fmt.Sprintf("Filler sentence %d says little of note.", k))
	}
	answer := []string{"Tide pool anemones were counted along the whole coast.", "The count came to 4,812 in the spring of 2019."}
	ss = append(ss[:30], append(answer, ss[30:]...)...)
	return Item{Rank: 1, ID: "ll_0000000000000001", URL: "https://example.com/a", Title: "A survey", Score: 5,
		Text: []Chunk{{Index: 0, Text: strings.Join(ss, " ")}}}
}

func TestContextSentenceWithUnusedBudget(t *testing.T) {
	items := []Item{leadInItem()}
	p, text, err := Build(items, Options{Query: "tide pool anemones", MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	checkPassages(t, items, p)
	if !strings.Contains(text, "The count came to 4,812 in the spring of 2019.") {
		t.Errorf("the sentence after the chosen one is not in a pack with budget left:\n%s", text)
	}
	if n := chunk.CountTokens(text); n != p.Tokens || n > 2000 {
		t.Errorf("tokens %d, counted %d, budget 2000", p.Tokens, n)
	}
	// context leaves the slack unused: it never fills the budget
	if limit := 2000 - int(ContextSlack*2000); p.Tokens > limit {
		t.Errorf("tokens %d: context went past %d", p.Tokens, limit)
	}
}

func TestContextStaysInBudget(t *testing.T) {
	// a budget that the passages alone nearly fill: context goes in only
	// as far as it fits, and the pack is exact
	for _, max := range []int{250, 300, 400, 600, 900} {
		items := []Item{leadInItem()}
		p, text, err := Build(items, Options{Query: "tide pool anemones", MaxTokens: max})
		if err != nil {
			t.Fatalf("%d: %v", max, err)
		}
		if n := chunk.CountTokens(text); n != p.Tokens || n > max {
			t.Errorf("%d: tokens %d, counted %d", max, p.Tokens, n)
		}
		checkPassages(t, items, p)
	}
}

func TestNotProse(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"The Doobie Brothers Tour Dates", true},
		{"HD THE HOME DEPOT INC. 225.86 -12.99 -5.44%", true},
		{"2019 12.5 13.1 14.0 rev", true},
		{"CO-FOUNDER 'PROUD' OF HOME DEPOT EMPLOYEES", true},
		{"Stadia launched Tuesday.", false},
		{"Comparable sales rose 3.6 percent, missing the 4.8 percent gain that was expected.", false},
		{"Singer-guitarists Tom Johnston and Patrick Simmons will tour together for the first time in nearly 25 years", false},
		{"“Meth is IN SD.”", false},
	} {
		if got := notProse(tt.text); got != tt.want {
			t.Errorf("notProse(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestHeadingNotChosen(t *testing.T) {
	// a heading holds every query word; the prose sentence holds one
	var ss []string
	for k := 0; k < 40; k++ {
		ss = append(ss, fmt.Sprintf("Filler sentence %d says little of note.", k))
	}
	text := strings.Join(ss[:20], " ") + "\n\nTide Pool Anemones Dates\n\n" +
		"The anemones close when the water drops, the survey found. " + strings.Join(ss[20:], " ")
	items := []Item{{Rank: 1, ID: "ll_0000000000000001", URL: "https://example.com/a", Title: "A survey", Score: 5,
		Text: []Chunk{{Index: 0, Text: text}}}}
	p, out, err := Build(items, Options{Query: "tide pool anemones", MaxTokens: 2000})
	if err != nil {
		t.Fatal(err)
	}
	checkPassages(t, items, p)
	for _, ps := range p.Items[0].Passages {
		if strings.Contains(ps.Text, "Tide Pool Anemones Dates") {
			t.Errorf("a heading alone was given as a passage: %q", ps.Text)
		}
	}
	if !strings.Contains(out, "The anemones close when the water drops") {
		t.Errorf("the prose sentence is missing:\n%s", out)
	}
}
