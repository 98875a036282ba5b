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
	t.Parallel()
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

// TestNeverAnchoredQuoteTakesSourceWords: a quote never found in its
// item's text (pending, or orphaned by the first text) found later only
// with edits is stored as the text spells it when an agent wrote it (the
// event annotation:anchored keeps the words given), so an invented word
// is never served as the source's; a quote that was anchored once and
// follows a changed text keeps its own words (issue 27).
func TestNeverAnchoredQuoteTakesSourceWords(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	url := "https://quote.test/never"
	r := item(url)
	invented := "The treatment never reduced mortality among older patients"
	r.Annotations = []record.Annotation{{Type: "highlight", Text: invented, Actor: "agent:a"}}
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	// the first text does not hold it: unanchored, with no context kept
	reindex(t, s, url, "Nothing about any treatment here at all.")
	if d := cmp.Diff(map[string]string{"agent:a: " + invented: record.AnchorUnanchored}, anchors(t, s, url)); d != "" {
		t.Fatalf("first text (-want +got):\n%s", d)
	}
	// the next holds it with the word left out: the source's words
	source := "The treatment reduced mortality among older patients"
	reindex(t, s, url, source+" in the second trial.")
	if d := cmp.Diff(map[string]string{"agent:a: " + source: "anchored"}, anchors(t, s, url)); d != "" {
		t.Fatalf("second text (-want +got):\n%s", d)
	}
	hist, err := s.History(ctx, record.ItemID(url))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range hist {
		var d struct {
			Text, Given, Method string
		}
		if e.Entity == "annotation" && e.Action == annotationAnchoredEventName && json.Unmarshal(e.Detail, &d) == nil {
			got = append(got, d.Method+"|"+d.Text+"|"+d.Given)
		}
	}
	if d := cmp.Diff([]string{"fuzzy|" + source + "|" + invented}, got); d != "" {
		t.Errorf("anchored events (-want +got):\n%s", d)
	}
	// anchored once, it follows an edited text keeping its words
	reindex(t, s, url, "The treatment reduced the mortality among older patients in the second trial.")
	if d := cmp.Diff(map[string]string{"agent:a: " + source: "anchored"}, anchors(t, s, url)); d != "" {
		t.Errorf("third text (-want +got):\n%s", d)
	}

	// a person's words not in the text (unanchored at once) found later
	// with a typo take the text's words too (no one sees that check; a
	// capture window's highlight is prefilled by the page)
	url2 := "https://quote.test/person"
	reindex(t, s, url2, "Nothing to see.")
	r = item(url2)
	mine := "Patients who slept eight hours recoverd faster"
	r.Annotations = []record.Annotation{{Type: "highlight", Text: mine, Actor: "human"}}
	if _, err := s.Save(ctx, r, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	reindex(t, s, url2, "Patients who slept eight hours recovered faster than others.")
	if d := cmp.Diff(map[string]string{"human: Patients who slept eight hours recovered faster": "anchored"}, anchors(t, s, url2)); d != "" {
		t.Errorf("person (-want +got):\n%s", d)
	}
}
