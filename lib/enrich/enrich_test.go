package enrich

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

// article is real article text in the shape ll-parse gives it: paragraphs
// separated by blank lines.
const article = `An agent that researches a question reads ten pages, pulls three facts out of them, and writes an answer. The next day a related task arrives and it reads the same ten pages again. Nothing kept the sources, the passages that mattered, or the reasons they mattered.

The waste is easy to measure. A typical article is four to eight thousand tokens of text once the navigation and comments are stripped. The passages an agent actually cites are a few hundred tokens. Re-reading whole pages to recover a few sentences multiplies the cost of every follow-up task by ten or more.

What a memory of links needs

A useful memory of links stores the clean text of each source in small chunks, keeps who highlighted which passage and how confident they were, and answers a question with ranked, traceable evidence: the passage, the link, and why it was chosen. Determinism matters: the same question over the same store should give the same evidence, so that an agent's work can be checked.

Highlights by people should outrank guesses by agents. An agent highlight with low confidence is a hint, not a fact, and the ranking should say so openly.`

func chunked(t testing.TB, text string, tokens int) []record.Chunk {
	t.Helper()
	var ps []chunk.Piece
	for _, p := range strings.Split(text, "\n\n") {
		if strings.TrimSpace(p) != "" {
			ps = append(ps, chunk.Piece{Text: p})
		}
	}
	cs := chunk.Split(ps, chunk.Options{TargetTokens: tokens, OverlapTokens: 10})
	if len(cs) == 0 {
		t.Fatal("no chunks")
	}
	return cs
}

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two three.", []string{"One.", "Two three."}},
		{"Dr. Smith came. He left.", []string{"Dr. Smith came.", "He left."}},
		{"It rose 3.5 percent. Then fell.", []string{"It rose 3.5 percent.", "Then fell."}},
		{"“Go,” she said. “Now!” He went.", []string{"“Go,” she said.", "“Now!”", "He went."}},
		{"the U.S. Army won. ok", []string{"the U.S. Army won. ok"}},
		{"Heading\n\nBody text here.", []string{"Heading", "Body text here."}},
	}
	for _, tt := range tests {
		got := splitText(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitText(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestFeatures(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"The cat sat on the mat quietly all day.", 0},
		{"Sales rose 12 percent in March.", 1},
		{"The report by Field Notes was read widely.", 1},
		{"Trains are faster than buses.", 1},
		{"Prices rose because demand grew.", 1},
		{"Since 2019, Night Trains Europe carries more people than planes.", 4},
	}
	for _, tt := range tests {
		if got := features(tt.in); got != tt.want {
			t.Errorf("features(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestEnrichGrounded checks, on real article text in several chunkings,
// that every quote is a substring of the text and of the chunk it names,
// that caps hold and that the output does not change between runs.
func TestEnrichGrounded(t *testing.T) {
	texts := map[string]string{"field-notes": article}
	for _, name := range []string{"../../e2e/testdata/site/field-notes.md", "../../README.md"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(b)
	}
	caps := []Options{{1, 1, 1}, {5, 3, 3}, {20, 20, 20}, {0, 0, 1}}
	for name, text := range texts {
		for _, tokens := range []int{40, 400} {
			for _, o := range caps {
				t.Run(fmt.Sprintf("%s/%d/%v", name, tokens, o), func(t *testing.T) {
					cs := chunked(t, text, tokens)
					rec := &record.Record{Text: &text, Chunks: cs}
					if !Enrich(rec, o) {
						t.Fatal("Enrich: nothing found")
					}
					a := rec.Artifact
					if len(a.Claims) > o.MaxClaims || len(rec.Annotations) > o.MaxHighlights {
						t.Errorf("%d claims, %d highlights: over caps %+v", len(a.Claims), len(rec.Annotations), o)
					}
					byIndex := map[int]string{}
					for _, c := range cs {
						byIndex[c.Index] = c.Text
					}
					check := func(what, q string, ci int, conf float64) {
						if !strings.Contains(text, q) {
							t.Errorf("%s %q: not in the text", what, q)
						}
						if !strings.Contains(byIndex[ci], q) {
							t.Errorf("%s %q: not in chunk %d", what, q, ci)
						}
						if conf <= 0 || conf > 1 {
							t.Errorf("%s %q: confidence %v", what, q, conf)
						}
					}
					for i, c := range a.Claims {
						check("claim", c.Text, c.ChunkIndex, c.Confidence)
						if a.KeyClaims[i] != c.Text {
							t.Errorf("key_claims[%d] = %q, want %q", i, a.KeyClaims[i], c.Text)
						}
					}
					for _, h := range rec.Annotations {
						if h.Actor != Actor || h.Type != record.AnnHighlight {
							t.Errorf("suggestion %+v: want a highlight by %s", h, Actor)
						}
						check("highlight", h.Text, *h.ChunkIndex, *h.Confidence)
					}
					for _, s := range Analyze(text, cs, o).Summary {
						check("summary sentence", s.Text, s.ChunkIndex, 1)
						if !strings.Contains(a.Summary, s.Text) {
							t.Errorf("summary %q lacks %q", a.Summary, s.Text)
						}
					}
					again := &record.Record{Text: &text, Chunks: chunked(t, text, tokens)}
					Enrich(again, o)
					if diff := cmp.Diff(rec, again); diff != "" {
						t.Errorf("second run differs (-first +second):\n%s", diff)
					}
				})
			}
		}
	}
}

// TestEnrichReplacesOwnSuggestions: a record enriched twice carries one
// set of suggestions, and annotations by others stay.
func TestEnrichReplacesOwnSuggestions(t *testing.T) {
	text := article
	rec := &record.Record{Text: &text, Chunks: chunked(t, text, 400),
		Annotations: []record.Annotation{{Type: record.AnnNote, Text: "mine", Actor: "human"}}}
	o := Options{MaxClaims: 3, MaxHighlights: 2, SummarySentences: 2}
	Enrich(rec, o)
	first := append([]record.Annotation(nil), rec.Annotations...)
	Enrich(rec, o)
	if diff := cmp.Diff(first, rec.Annotations); diff != "" {
		t.Errorf("second run (-first +second):\n%s", diff)
	}
	if len(first) != 3 || first[0].Text != "mine" {
		t.Errorf("annotations %+v: want the human note then 2 suggestions", first)
	}
}

func TestEnrichNothing(t *testing.T) {
	empty := ""
	for _, rec := range []*record.Record{{}, {Text: &empty}, {Chunks: []record.Chunk{{Text: "  \n "}}}} {
		if Enrich(rec, Options{MaxClaims: 5, MaxHighlights: 3, SummarySentences: 3}) || rec.Artifact != nil {
			t.Errorf("Enrich(%+v) found something", rec)
		}
	}
}

// BenchmarkEnrich measures the offline enricher on a few KB of article
// text (records/s; docs/enrich.md).
func BenchmarkEnrich(b *testing.B) {
	text := strings.Repeat(article+"\n\n", 3) // about 4.5 KB
	cs := chunked(b, text, 400)
	o := Options{MaxClaims: DefaultMaxClaims, MaxHighlights: DefaultMaxHighlights, SummarySentences: DefaultSummarySentences}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec := &record.Record{Text: &text, Chunks: cs}
		Enrich(rec, o)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}
