package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// anchors returns each annotation's text and anchor state as show reads them.
func anchors(t *testing.T, s *Store, url string) map[string]string {
	t.Helper()
	rec, err := s.Show(context.Background(), record.ItemID(url), ShowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range rec.Annotations {
		st := a.Anchor
		if st == "" {
			st = "anchored"
		}
		out[a.Actor+": "+a.Text] = st
	}
	return out
}

// TestQuoteChecked: a highlight or lowlight is checked against the text
// when stored. An agent's quote not in it is refused (quote_not_found,
// the closest passage as hint, nothing saved); a person's is kept
// unanchored; an agent's quote found folded is stored as the text spells
// it; on an item without text both wait (pending) and are
// checked when it is indexed, where an unfound quote is unanchored.
func TestQuoteChecked(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	url := "https://quote.test/a"
	reindex(t, s, url, "Sourdough needs a ripe levain.", "The crust should be dark — not pale.")
	save := func(actor, typ, text string) error {
		r := item(url)
		r.Annotations = []record.Annotation{{Type: typ, Text: text, Actor: actor}}
		_, err := s.Save(ctx, r, SaveOptions{})
		return err
	}
	// normalized: case, white space, dashes, quotes, soft hyphens
	for _, q := range []string{"the CRUST should be dark - not pale", "sour\u00addough  needs a ripe levain"} {
		if err := save("agent:a", "highlight", q); err != nil {
			t.Fatalf("%q: %v", q, err)
		}
	}
	err := save("agent:a", "highlight", "the crumb should be open and pale")
	var re *record.Error
	if !errors.As(err, &re) || re.Code != record.CodeQuoteNotFound {
		t.Fatalf("agent quote not in the text: %v, want quote_not_found", err)
	}
	if !strings.Contains(re.Hint, `"The crust should be dark — not pale."`) {
		t.Errorf("hint %q: want the closest passage", re.Hint)
	}
	if err := save("agent:a", "lowlight", "nothing like this"); err == nil {
		t.Errorf("agent lowlight not in the text was saved")
	}
	if err := save("human", "highlight", "my own words about bread"); err != nil {
		t.Fatal(err)
	}
	if err := save("agent:a", "note", "a note is the agent's own words"); err != nil {
		t.Fatal(err)
	}
	// an agent's quote found other than as written is stored as the text
	// spells it (it is served as evidence)
	want := map[string]string{
		"agent:a: The crust should be dark — not pale": "anchored",
		"agent:a: Sourdough needs a ripe levain":       "anchored",
		"human: my own words about bread":              record.AnchorUnanchored,
		"agent:a: a note is the agent's own words":     "anchored",
	}
	if d := cmp.Diff(want, anchors(t, s, url)); d != "" {
		t.Errorf("annotations (-want +got):\n%s", d)
	}
	// the history keeps the quote as the agent gave it
	hist, err := s.History(ctx, record.ItemID(url))
	if err != nil {
		t.Fatal(err)
	}
	var given []string
	for _, e := range hist {
		var d struct {
			Given string `json:"given"`
		}
		if e.Entity == "annotation" && json.Unmarshal(e.Detail, &d) == nil && d.Given != "" {
			given = append(given, d.Given)
		}
	}
	if d := cmp.Diff([]string{"the CRUST should be dark - not pale", "sour\u00addough  needs a ripe levain"}, given); d != "" {
		t.Errorf("given (-want +got):\n%s", d)
	}
	orphans, err := s.Orphans(ctx, 0)
	if err != nil || len(orphans) != 1 || orphans[0].Annotations[0].Text != "my own words about bread" {
		t.Errorf("orphans %+v %v: want the person's unanchored highlight only", orphans, err)
	}

	// an item not ingested yet: pending, checked at index time
	pend := "https://quote.test/pending"
	r := item(pend)
	r.Annotations = []record.Annotation{
		{Type: "highlight", Text: "found later", Actor: "agent:a"},
		{Type: "highlight", Text: "never in the page", Actor: "agent:a"},
	}
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]string{"agent:a: found later": record.AnchorPending, "agent:a: never in the page": record.AnchorPending}, anchors(t, s, pend)); d != "" {
		t.Errorf("pending (-want +got):\n%s", d)
	}
	reindex(t, s, pend, "This sentence was found later, once fetched.")
	if d := cmp.Diff(map[string]string{"agent:a: found later": "anchored", "agent:a: never in the page": record.AnchorUnanchored}, anchors(t, s, pend)); d != "" {
		t.Errorf("after indexing (-want +got):\n%s", d)
	}
	// a search hit marks it, and it is not evidence
	res := search(t, s, SearchOptions{Text: "sentence fetched"})
	if len(res.Hits) != 1 {
		t.Fatalf("hits %d", len(res.Hits))
	}
	var got []string
	for _, a := range res.Hits[0].Hit.Highlights {
		got = append(got, a.Text+"|"+a.Anchor)
	}
	if d := cmp.Diff([]string{"found later|", "never in the page|unanchored"}, got); d != "" {
		t.Errorf("hit highlights (-want +got):\n%s", d)
	}
}
