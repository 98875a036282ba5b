// Package enrich is the offline, deterministic enricher of ll-enrich: from
// an item's chunks it picks an extractive summary, key claims and
// highlight suggestions, each an exact sentence of the item's text with
// the index of the chunk it came from. No model, no network: the same
// chunks always give the same output.
package enrich

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
)

// Actor is the actor of everything the offline enricher suggests.
const Actor = "agent:linkledger"

// Defaults and bounds of Options.
const (
	DefaultMaxClaims        = 5
	DefaultMaxHighlights    = 3
	DefaultSummarySentences = 3
	MaxCount                = 20
	// minSentenceRunes and maxSentenceRunes bound a claim or highlight:
	// shorter sentences are headings and captions, longer ones are run-on
	// text the splitter could not cut.
	minSentenceRunes = 30
	maxSentenceRunes = 600
)

// Options are the caps of one enrichment.
type Options struct {
	MaxClaims        int
	MaxHighlights    int
	SummarySentences int
}

// Sentence is one sentence of the item: its exact text, the chunk it was
// found in and its position in reading order.
type Sentence struct {
	Text       string
	ChunkIndex int
	Pos        int
	// Centrality is the TF-IDF cosine of the sentence to the item's
	// centroid, scaled so the most central sentence has 1.
	Centrality float64
	// Features counts the claim features: digits, a multiword name, a
	// comparison, a causal word (0..4).
	Features int
}

// Result is what Enrich found.
type Result struct {
	Summary    []Sentence
	Claims     []Scored
	Highlights []Scored
}

// Scored is a sentence with its confidence (0..1).
type Scored struct {
	Sentence
	Confidence float64
}

// Split cuts the chunks into sentences, in reading order. A sentence that
// appears again (chunk overlap repeats the end of the previous chunk) is
// kept once, at its first chunk.
func Split(chunks []record.Chunk) []Sentence {
	var out []Sentence
	seen := map[string]bool{}
	for _, c := range chunks {
		for _, s := range splitText(c.Text) {
			if seen[s] {
				continue
			}
			seen[s] = true
			out = append(out, Sentence{Text: s, ChunkIndex: c.Index, Pos: len(out)})
		}
	}
	return out
}

// splitText cuts text at line breaks and after . ! ? (with closing quotes
// and brackets) followed by a space and an upper-case letter, digit or
// opening quote. Each piece is trimmed, so it is a substring of text.
func splitText(text string) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		start := 0
		for i := 0; i < len(line); {
			r, n := utf8.DecodeRuneInString(line[i:])
			i += n
			if r != '.' && r != '!' && r != '?' {
				continue
			}
			j := i
			for j < len(line) {
				q, m := utf8.DecodeRuneInString(line[j:])
				if !strings.ContainsRune(`"')]”’»`, q) {
					break
				}
				j += m
			}
			if j >= len(line) || line[j] != ' ' {
				continue
			}
			k := j
			for k < len(line) && line[k] == ' ' {
				k++
			}
			if k >= len(line) {
				continue
			}
			next, _ := utf8.DecodeRuneInString(line[k:])
			if !unicode.IsUpper(next) && !unicode.IsDigit(next) && !strings.ContainsRune(`"'“‘«(`, next) {
				continue
			}
			if abbreviation(line[start:i]) {
				continue
			}
			add(line[start:j])
			start, i = k, k
		}
		add(line[start:])
	}
	return out
}

// abbreviation reports whether s ends in a short abbreviation (Dr., e.g.,
// U.S.) after which a full stop does not end the sentence.
func abbreviation(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	w := strings.ToLower(strings.TrimSuffix(f[len(f)-1], "."))
	switch w {
	case "mr", "mrs", "ms", "dr", "prof", "st", "vs", "etc", "e.g", "i.e", "no", "fig", "inc", "ltd", "jr", "sr":
		return true
	}
	// U.S., a.m.: dots inside the word; J. (an initial): one capital
	return strings.Contains(w, ".") || utf8.RuneCountInString(w) == 1 && unicode.IsUpper([]rune(f[len(f)-1])[0])
}

var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the and or but if of to in on at by for with from as is are was were be been being
		it its this that these those there their they them he she his her we our you your i not no so than then
		do does did has have had will would can could should may might must about into over after before
		which who whom what when where why how all any each more most some such only own same very just also`) {
		m[w] = true
	}
	return m
}()

func words(s string) []string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := f[:0]
	for _, w := range f {
		if !stopwords[w] && utf8.RuneCountInString(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// centrality sets each sentence's Centrality: the cosine of its TF-IDF
// vector (sentences as documents) to the sum of all vectors, scaled to
// the maximum.
func centrality(ss []Sentence) {
	df := map[string]int{}
	tfs := make([]map[string]float64, len(ss))
	for i, s := range ss {
		tf := map[string]float64{}
		for _, w := range words(s.Text) {
			tf[w]++
		}
		for w := range tf {
			df[w]++
		}
		tfs[i] = tf
	}
	n := float64(len(ss))
	centroid := map[string]float64{}
	for _, tf := range tfs {
		for w, c := range tf {
			tf[w] = c * (1 + math.Log(n/float64(df[w])))
			centroid[w] += tf[w]
		}
	}
	var cn float64
	for _, v := range centroid {
		cn += v * v
	}
	cn = math.Sqrt(cn)
	best := 0.0
	for i, tf := range tfs {
		var dot, sn float64
		// sorted keys: float sums in a fixed order give the same bits every run
		keys := make([]string, 0, len(tf))
		for w := range tf {
			keys = append(keys, w)
		}
		sort.Strings(keys)
		for _, w := range keys {
			dot += tf[w] * centroid[w]
			sn += tf[w] * tf[w]
		}
		if sn > 0 && cn > 0 {
			ss[i].Centrality = dot / (math.Sqrt(sn) * cn)
		}
		best = math.Max(best, ss[i].Centrality)
	}
	if best > 0 {
		for i := range ss {
			ss[i].Centrality /= best
		}
	}
}

var (
	comparatives = set(`more less fewer greater smaller larger higher lower better worse faster slower cheaper than most least best worst outperform outperforms outrank outranks twice half double triple versus`)
	causals      = set(`because cause causes caused causing lead leads led result results resulted due therefore thus hence so consequently since reduce reduces increase increases multiplies prevents enables drives driven`)
)

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// features counts the claim features of s: a digit or number word, a
// multiword capitalised name after the first word, a comparison, a
// causal word.
func features(s string) int {
	n := 0
	if strings.ContainsFunc(s, unicode.IsDigit) || hasNumberWord(s) {
		n++
	}
	if hasName(s) {
		n++
	}
	low := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
	var cmp, cause bool
	for _, w := range low {
		cmp = cmp || comparatives[w]
		cause = cause || causals[w]
	}
	if cmp {
		n++
	}
	if cause {
		n++
	}
	return n
}

var numberWords = set(`two three four five six seven eight nine ten eleven twelve twenty thirty forty fifty hundred hundreds thousand thousands million millions billion percent`)

func hasNumberWord(s string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if numberWords[w] {
			return true
		}
	}
	return false
}

// hasName reports two capitalised words in a row, not counting the
// sentence's first word (capitalised anyway).
func hasName(s string) bool {
	f := strings.Fields(s)
	run := 0
	for i, w := range f {
		w = strings.TrimLeft(w, `"'“‘(`)
		r, _ := utf8.DecodeRuneInString(w)
		if i > 0 && unicode.IsUpper(r) {
			run++
			if run >= 2 {
				return true
			}
		} else {
			run = 0
		}
		if strings.ContainsAny(w, ".,;:!?") {
			run = 0
		}
	}
	return false
}

// round2 keeps two decimals, so confidences print short and compare equal
// across runs.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// Analyze scores the sentences of chunks and picks the summary, claims
// and highlights within opts. Confidence:
//
//	claim:     0.30 + 0.15×features + 0.20×centrality, at most 0.95
//	highlight: 0.25 + 0.50×centrality + 0.05×features, at most 0.90
//
// so a claim's confidence mostly says how checkable it is, a highlight's
// how central it is. Ties are broken by reading order.
//
// Grounding: when text is not empty, a sentence of a chunk that is not a
// substring of text (a chunker that re-joined words of an over-long
// sentence) is left out, so every quote exists in the item's text as well
// as in its chunk.
func Analyze(text string, chunks []record.Chunk, opts Options) Result {
	ss := Split(chunks)
	if text != "" {
		kept := ss[:0]
		for _, s := range ss {
			if strings.Contains(text, s.Text) {
				s.Pos = len(kept)
				kept = append(kept, s)
			}
		}
		ss = kept
	}
	if len(ss) == 0 {
		return Result{}
	}
	centrality(ss)
	for i := range ss {
		ss[i].Features = features(ss[i].Text)
	}
	var res Result
	// summary: the most central sentences, in reading order
	byC := append([]Sentence(nil), ss...)
	sort.SliceStable(byC, func(i, j int) bool { return byC[i].Centrality > byC[j].Centrality })
	for _, s := range byC {
		if len(res.Summary) == opts.SummarySentences {
			break
		}
		if fits(s) {
			res.Summary = append(res.Summary, s)
		}
	}
	if len(res.Summary) == 0 && opts.SummarySentences > 0 {
		res.Summary = append(res.Summary, byC[0])
	}
	sort.SliceStable(res.Summary, func(i, j int) bool { return res.Summary[i].Pos < res.Summary[j].Pos })

	var claims, hls []Scored
	for _, s := range ss {
		if !fits(s) {
			continue
		}
		if s.Features > 0 {
			claims = append(claims, Scored{s, round2(math.Min(0.95, 0.30+0.15*float64(s.Features)+0.20*s.Centrality))})
		}
		hls = append(hls, Scored{s, round2(math.Min(0.90, 0.25+0.50*s.Centrality+0.05*float64(s.Features)))})
	}
	res.Claims = top(claims, opts.MaxClaims)
	res.Highlights = top(hls, opts.MaxHighlights)
	return res
}

func fits(s Sentence) bool {
	n := utf8.RuneCountInString(s.Text)
	return n >= minSentenceRunes && n <= maxSentenceRunes
}

func top(in []Scored, n int) []Scored {
	sort.SliceStable(in, func(i, j int) bool { return in[i].Confidence > in[j].Confidence })
	if len(in) > n {
		in = in[:n]
	}
	return in
}

// Enrich adds to rec an artifact (summary, key_claims, claims, created_by
// agent:linkledger) and highlight suggestions (annotations of actor
// agent:linkledger with confidence and chunk_index), replacing any that
// an earlier run of the enricher left on the record. It reports false,
// leaving rec as it was, when the record has no sentence to work with.
func Enrich(rec *record.Record, opts Options) bool {
	chunks := rec.Chunks
	if len(chunks) == 0 && rec.TextValue() != "" {
		chunks = []record.Chunk{{Index: 0, Text: rec.TextValue()}}
	}
	res := Analyze(rec.TextValue(), chunks, opts)
	if len(res.Summary) == 0 && len(res.Claims) == 0 {
		return false
	}
	var sum []string
	for _, s := range res.Summary {
		sum = append(sum, s.Text)
	}
	a := &record.Artifact{Summary: strings.Join(sum, " "), CreatedBy: Actor, Method: "offline"}
	for _, c := range res.Claims {
		a.KeyClaims = append(a.KeyClaims, c.Text)
		a.Claims = append(a.Claims, record.Claim{Text: c.Text, ChunkIndex: c.ChunkIndex, Confidence: c.Confidence})
	}
	rec.Artifact = a
	anns := rec.Annotations[:0:0]
	for _, x := range rec.Annotations {
		if x.Actor != Actor {
			anns = append(anns, x)
		}
	}
	for _, h := range res.Highlights {
		conf, ci := h.Confidence, h.ChunkIndex
		anns = append(anns, record.Annotation{Type: record.AnnHighlight, Text: h.Text, Actor: Actor, Confidence: &conf, ChunkIndex: &ci})
	}
	rec.Annotations = anns
	return true
}
