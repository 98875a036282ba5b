package store

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{"Hello  World", "hello world"},
		{"a\n\t b", "a b"},
		{"“Quoted” — it’s", "\"quoted\" - it's"},
		{"soft\u00adhyphen", "softhyphen"},
		{"ÉCOLE", "école"},
		{"", ""},
	}
	for _, c := range cases {
		n := normalize(c.in)
		if n.s != c.want {
			t.Errorf("normalize(%q) = %q, want %q", c.in, n.s, c.want)
		}
		if len(n.off) != len(n.s)+1 || n.off[len(n.s)] != len(c.in) {
			t.Errorf("normalize(%q): %d offsets ending at %d, want %d ending at %d", c.in, len(n.off), n.off[len(n.off)-1], len(n.s)+1, len(c.in))
		}
	}
}

func TestAnchorFind(t *testing.T) {
	t.Parallel()
	para1 := "Sourdough needs a levain. The levain is fed with flour and water every day."
	para2 := "Bake at a high heat. The crust should be dark and the crumb open."
	para3 := "A levain is fed with flour and water every day, said the baker, twice in summer."
	type want struct {
		ok      bool
		chunk   int
		matched string
		method  string
		edits   int
	}
	cases := []struct {
		name   string
		chunks []string
		q      quoteAnchor
		want   want
	}{
		{"exact", []string{para1, para2}, quoteAnchor{Quote: "The crust should be dark", Hint: -1},
			want{true, 1, "The crust should be dark", anchorExact, 0}},
		{"moved paragraph", []string{para2, "new intro", para1}, quoteAnchor{Quote: "fed with flour and water", Hint: 1},
			want{true, 2, "fed with flour and water", anchorExact, 0}},
		{"case and white space", []string{"Intro.", "THE CRUST\n  should be DARK and"}, quoteAnchor{Quote: "the crust should be dark", Hint: -1},
			want{true, 1, "THE CRUST\n  should be DARK", anchorNormalized, 0}},
		{"typographic quotes", []string{"He said “it’s done” today"}, quoteAnchor{Quote: `said "it's done"`, Hint: -1},
			want{true, 0, "said “it’s done”", anchorNormalized, 0}},
		{"several: context decides", []string{para1, para3},
			quoteAnchor{Quote: "fed with flour and water every day", Prefix: "hungry starter. A levain is ", Suffix: ", said the baker", HasContext: true, Hint: 0},
			want{true, 1, "fed with flour and water every day", anchorExact, 0}},
		{"several: context decides within a chunk", []string{"x fed y. then z fed w."},
			quoteAnchor{Quote: "fed", Prefix: "then z ", Suffix: " w.", HasContext: true, Hint: -1},
			want{true, 0, "fed", anchorExact, 0}},
		{"several, no context: hinted chunk", []string{para1, para3}, quoteAnchor{Quote: "with flour and water", Hint: 1},
			want{true, 1, "with flour and water", anchorExact, 0}},
		{"several, no context, no hint: first", []string{para1, para3}, quoteAnchor{Quote: "with flour and water", Hint: -1},
			want{true, 0, "with flour and water", anchorExact, 0}},
		{"slightly edited quote", []string{para2, "The levain is fed with rye flour and water every day."},
			quoteAnchor{Quote: "The levain is fed with flour and water every day", Hint: -1},
			want{true, 1, "The levain is fed with rye flour and water every day", anchorFuzzy, 4}},
		{"one letter changed", []string{"Bake at a high heat. The crust should be dork and the crumb open."},
			quoteAnchor{Quote: "The crust should be dark", Hint: -1},
			want{true, 0, "The crust should be dork", anchorFuzzy, 1}},
		{"too edited", []string{"The loaf must have a pale crust, soft and closed."},
			quoteAnchor{Quote: "The crust should be dark and the crumb open", Hint: -1}, want{}},
		{"short quote never fuzzy", []string{"The crust should be dork"}, quoteAnchor{Quote: "be dark", Hint: -1}, want{}},
		{"removed", []string{para2}, quoteAnchor{Quote: "fed with flour and water", Hint: 0}, want{}},
		{"no chunks", nil, quoteAnchor{Quote: "anything", Hint: -1}, want{}},
		{"empty quote", []string{para1}, quoteAnchor{Quote: "  ", Hint: -1}, want{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			at := newAnchorText(c.chunks)
			m, ok := at.find(c.q)
			var got want
			if ok {
				got = want{true, m.Chunk, c.chunks[m.Chunk][m.Start:m.End], m.Method, m.Edits}
			}
			if d := cmp.Diff(c.want, got, cmp.AllowUnexported(want{})); d != "" {
				t.Errorf("find (-want +got):\n%s", d)
			}
		})
	}
}

func TestAnchorContext(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("a", 60) + "QUOTE" + strings.Repeat("é", 60)
	at := newAnchorText([]string{text})
	m, ok := at.find(quoteAnchor{Quote: "QUOTE", Hint: -1})
	if !ok {
		t.Fatal("not found")
	}
	p, s := at.context(m)
	if p != strings.Repeat("a", anchorContextRunes) || s != strings.Repeat("é", anchorContextRunes) {
		t.Errorf("context %q, %q: want %d runes each side", p, s, anchorContextRunes)
	}
}

// TestAnchorFuzzyBounded: a quote longer than the fuzzy bound, or a text
// too large for the table budget, is not matched fuzzily.
func TestAnchorFuzzyBounded(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", fuzzyMaxRunes/5+1)
	at := newAnchorText([]string{strings.Replace(long, "word", "ward", 1)})
	if _, ok := at.find(quoteAnchor{Quote: long, Hint: -1}); ok {
		t.Error("a quote over fuzzyMaxRunes was matched fuzzily")
	}
	// every piece of this quote occurs everywhere in the text: the
	// windows to search cover it all
	quote := strings.Repeat("a", 29) + "b"
	at = newAnchorText([]string{strings.Repeat("a", fuzzyMaxCells/len(quote)+100)})
	if _, ok := at.find(quoteAnchor{Quote: quote, Hint: -1}); ok {
		t.Error("a text over the cell budget was searched fuzzily")
	}
	at = newAnchorText([]string{strings.Repeat("a", 100)})
	if m, ok := at.find(quoteAnchor{Quote: quote, Hint: -1}); !ok || m.Edits != 1 {
		t.Errorf("the same quote in a small text: %+v, %v; want a match with 1 edit", m, ok)
	}
	// none of the pieces occurs: nothing to search, however large
	at = newAnchorText([]string{strings.Repeat("x", 4*fuzzyMaxCells/len(quote))})
	if _, ok := at.find(quoteAnchor{Quote: "the crust should be dark and open", Hint: -1}); ok {
		t.Error("found in a text of x")
	}
}

func TestQuoteOverlap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		a, b  string
		union string
		ok    bool
	}{
		{"the key claim", "the key claim", "the key claim", true},
		{"The  Key claim", "the key claim", "The  Key claim", true},
		{"the key claim of the post", "key claim", "the key claim of the post", true},
		{"key claim", "the key claim of the post", "the key claim of the post", true},
		{"agents need a memory of links", "need a memory of links they read", "agents need a memory of links they read", true},
		{"need a memory of links they read", "agents need a memory of links", "agents need a memory of links they read", true},
		{"agents need a memory", "memory of links they read", "", false}, // overlap under 3/4
		{"bread", "cake", "", false},
		{"", "x", "", false},
	}
	for _, c := range cases {
		u, ok := quoteOverlap(c.a, c.b)
		if u != c.union || ok != c.ok {
			t.Errorf("quoteOverlap(%q, %q) = %q, %v; want %q, %v", c.a, c.b, u, ok, c.union, c.ok)
		}
	}
}

// BenchmarkAnchorFindOrphan is re-anchoring an annotation whose quote is
// gone (about 100 KB of text, a quote of 150 characters): the text is
// folded and scanned for the quote's pieces, none of which occurs, so no
// edit-distance table is filled.
func BenchmarkAnchorFindOrphan(b *testing.B) {
	words := strings.Fields("the levain is fed with flour and water every day while the crust should be dark and the crumb open")
	var chunks []string
	for i := 0; i < 50; i++ {
		var sb strings.Builder
		for j := 0; sb.Len() < 2000; j++ {
			sb.WriteString(words[(i+j)%len(words)])
			sb.WriteByte(' ')
		}
		chunks = append(chunks, sb.String())
	}
	quote := strings.Repeat("zebra quagga okapi ", 8)[:150]
	q := quoteAnchor{Quote: quote, Hint: -1}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok := newAnchorText(chunks).find(q); ok {
			b.Fatal("found")
		}
	}
}

// BenchmarkAnchorFindExact is the common case: the quote is in the text.
func BenchmarkAnchorFindExact(b *testing.B) {
	chunks := make([]string, 50)
	for i := range chunks {
		chunks[i] = strings.Repeat("filler words of a long article ", 65)
	}
	chunks[37] += " the one quote we look for."
	q := quoteAnchor{Quote: "the one quote we look for", Hint: 3}
	for i := 0; i < b.N; i++ {
		if _, ok := newAnchorText(chunks).find(q); !ok {
			b.Fatal("not found")
		}
	}
}

// BenchmarkAnchorFindEdited: the quote was edited a little (a fuzzy
// match) in about 100 KB of text made of the quote's own words.
func BenchmarkAnchorFindEdited(b *testing.B) {
	words := strings.Fields("the levain is fed with flour and water every day while the crust should be dark and the crumb open")
	var chunks []string
	for i := 0; i < 50; i++ {
		var sb strings.Builder
		for j := 0; sb.Len() < 2000; j++ {
			sb.WriteString(words[(i+j)%len(words)])
			sb.WriteByte(' ')
		}
		chunks = append(chunks, sb.String())
	}
	chunks[41] += "Our starter, a rye levain, is fed with warm water at dawn."
	q := quoteAnchor{Quote: "Our starter, a rye levain, is fed with water at dawn.", Hint: -1}
	for i := 0; i < b.N; i++ {
		if m, ok := newAnchorText(chunks).find(q); !ok || m.Method != anchorFuzzy || m.Chunk != 41 {
			b.Fatalf("%+v %v", m, ok)
		}
	}
}

func TestHeldBy(t *testing.T) {
	t.Parallel()
	texts := []string{"The Crust should be dark and the crumb open", "a note"}
	cases := []struct {
		q      string
		folded bool
		want   bool
	}{
		{"a note", false, true},
		{"the crust should be dark", true, true},
		{"the crust should be dark", false, false},
		{"the crumb closed", true, false},
		{"a", false, false},
	}
	for _, c := range cases {
		if got := heldBy(texts, c.q, c.folded); got != c.want {
			t.Errorf("heldBy(%q, %v) = %v, want %v", c.q, c.folded, got, c.want)
		}
	}
}

// TestFuzzyTextBudget: once one text's fuzzy searches have filled
// fuzzyMaxTextCells, an edited quote is no longer looked for fuzzily (it
// is orphaned), so re-anchoring very many changed quotes stays bounded.
func TestFuzzyTextBudget(t *testing.T) {
	t.Parallel()
	chunks := []string{"The lighthouse keeper logged every passing ship in a leather book for forty years."}
	q := quoteAnchor{Quote: "logged every pasing ship in a lether book", Hint: -1}
	fresh := newAnchorText(chunks)
	if m, ok := fresh.find(q); !ok || m.Method != anchorFuzzy {
		t.Fatalf("fresh text: %+v, %v; want a fuzzy match", m, ok)
	}
	if fresh.fuzzyCells == 0 {
		t.Errorf("a fuzzy search filled no cells")
	}
	spent := newAnchorText(chunks)
	spent.fuzzyCells = fuzzyMaxTextCells
	if m, ok := spent.find(q); ok {
		t.Errorf("spent budget: %+v; want no match", m)
	}
}
