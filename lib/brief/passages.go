package brief

// Passages: the sentences of an entry that answer the query, whole, with
// where they stand.
//
// Every sentence of an item's stored text (its chunks, the overlap
// between chunks counted once) is scored: the query's distinct terms it
// holds, each weighted by its rarity (Options.Rarity, else by how few of
// the pack's sentences hold it), as a share of all the terms' weight; a
// sentence holding a person's highlight comes first, one holding an
// agent's by the agent's confidence; a sentence in a chunk the ranking
// found best (the hit's snippets' chunks: by words, or by meaning when
// vectors exist) gets a little more. Each entry gets a share of the text
// budget in proportion to its best sentence and its rank, and spends it
// on its best sentences; an entry whose whole text fits its share is
// given whole. An entry whose best sentence is weak (below
// Options.WeakSentence) becomes a pointer, unless it is the first (a
// brief with hits keeps one full entry) or holds a person's or agent's
// highlight or a note. Adjacent chosen sentences are
// one passage, cut from the chunk's text exactly, with its locator: the
// chunk's index and the byte range in that chunk's text.

import (
	"math"
	"sort"
	"strings"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// Defaults of the sentence choice, chosen on half A of SciFact's training
// claims and confirmed on half B (docs/retrieval.md, "Passages").
const (
	// DefaultTextShare is the share of the budget the passages of all
	// entries are planned to take (the rest: the entries' fields and the
	// pointers).
	DefaultTextShare = 0.2
	// DefaultRankDecay weighs entry k's share of the text budget by
	// DefaultRankDecay^k.
	DefaultRankDecay = 0.6
	// DefaultWeakSentence: an entry whose best sentence covers less of
	// the query's weight than this becomes a pointer.
	DefaultWeakSentence = 0.3
	// referenceWeight scales the score of a sentence of a reference list
	// (a chunk of kind record.ChunkReferences): a bibliography line that
	// names the query's words is not evidence when the body answers.
	referenceWeight = 0.25
	// maxSentenceBytes bounds one sentence: a longer run without a
	// terminator (a list, a table) is given in pieces cut at white space.
	maxSentenceBytes = 1200
	// MaxTextBytes bounds the text read per entry to choose sentences
	// from (whole chunks, a prefix of the item).
	MaxTextBytes = 256 << 10
)

// Chunk is one stored chunk of an item's text (as ll-find --with-chunks
// gives it).
type Chunk struct {
	Index int
	Text  string
	// Kind is the stored chunk's kind: record.ChunkReferences for a
	// page's reference list, whose sentences rank below the body's.
	Kind string
}

// Passage is a run of adjacent whole sentences of an item's text, as
// written, and where it stands: Text is exactly the bytes Start..End of
// the text of chunk ChunkIndex.
type Passage struct {
	Text       string `json:"text"`
	ChunkIndex int    `json:"chunk_index"`
	Start      int    `json:"start"`
	End        int    `json:"end"`
	// Continues is true when this passage follows the one before with
	// nothing between (a run of sentences split where a chunk ends).
	Continues bool `json:"continues,omitempty"`
}

// sent is one sentence of an item's text: where it stands (its chunk, an
// index into Item.Text, and byte range), where else it stands (a chunk's
// overlap repeats the previous chunk's last sentences), its score and
// its size.
type sent struct {
	seq    int // its place in the item's sentences: seq+1 follows it
	at     place
	also   []place
	score  float64
	ref    bool // in a reference list
	tokens int
	value  float64 // score weighed by the entry's rank: the order of removal
}

type place struct{ chunk, start, end int }

// QueryTerms are the words of a query that a sentence can hold: the
// query language's plain words and phrases (no qualifiers, no excluded
// words), stopwords dropped as the search drops them.
func QueryTerms(q string) []string {
	return query.Parse(query.ParseLang(q).Text, query.Options{}).Terms
}

// sentencesOf splits an item's chunks into sentences, each counted once:
// the first sentences of a chunk that repeat the last of the chunk before
// (the chunker's overlap) are the same sentences, seen in two places.
func sentencesOf(chunks []Chunk) []sent {
	var out []sent
	for c, ch := range chunks {
		spans := chunk.SentenceSpans(ch.Text, maxSentenceBytes)
		skip := 0
		if c > 0 {
			// the longest run of this chunk's first sentences that the
			// previous chunk ends with
			prev := 0
			for len(out) > prev && out[len(out)-1-prev].at.chunk == c-1 {
				prev++
			}
			for k := min(len(spans), prev); k > 0; k-- {
				same := true
				for j := 0; j < k && same; j++ {
					s := out[len(out)-k+j]
					same = chunks[s.at.chunk].Text[s.at.start:s.at.end] == ch.Text[spans[j].Start:spans[j].End]
				}
				if same {
					for j := 0; j < k; j++ {
						s := &out[len(out)-k+j]
						s.also = append(s.also, place{c, spans[j].Start, spans[j].End})
					}
					skip = k
					break
				}
			}
		}
		for _, sp := range spans[skip:] {
			out = append(out, sent{seq: len(out), at: place{c, sp.Start, sp.End}})
		}
	}
	return out
}

func (it *Item) sentenceText(s sent) string {
	return it.Text[s.at.chunk].Text[s.at.start:s.at.end]
}

// stem folds a word to the form a query term is compared in: plural and
// verb endings off (a light stemmer of our own; the index's porter
// stemmer is not at hand here).
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		w = w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		w = w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		w = w[:len(w)-2]
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// matches reports whether a sentence's word (stemmed) is the query term
// (stemmed): the same, or one a longer form of the other sharing at least
// five letters (vaccine, vaccination).
func matches(word, term string) bool {
	if word == term {
		return true
	}
	if len(word) >= 5 && len(term) >= 5 {
		return strings.HasPrefix(word, term) || strings.HasPrefix(term, word)
	}
	return false
}

// termSet is which of the query's terms a text holds.
func termSet(text string, terms []string) []bool {
	has := make([]bool, len(terms))
	for _, w := range query.Words(text) {
		w = stem(w)
		for i, t := range terms {
			if !has[i] && matches(w, t) {
				has[i] = true
			}
		}
	}
	return has
}

// choosePassages scores the sentences of the items that have text, gives
// each such item its passages (the chosen sentences kept in it.Chosen,
// best first) and returns the items whose best sentence is weak (to
// become pointers), by index.
func choosePassages(items []Item, opts Options) (weak map[int]bool) {
	terms := QueryTerms(opts.Query)
	stems := make([]string, len(terms))
	for i, t := range terms {
		stems[i] = stem(t)
	}
	// every item's sentences and the terms each holds
	type scored struct {
		sents []sent
		has   [][]bool
	}
	all := make([]scored, len(items))
	df := make([]int, len(terms))
	n := 0
	for i := range items {
		it := &items[i]
		if len(it.Text) == 0 {
			continue
		}
		ss := sentencesOf(it.Text)
		all[i].sents = ss
		for _, s := range ss {
			h := termSet(it.sentenceText(s), stems)
			all[i].has = append(all[i].has, h)
			for k, ok := range h {
				if ok {
					df[k]++
				}
			}
			n++
		}
	}
	weight := make([]float64, len(terms))
	total := 0.0
	for k, t := range terms {
		if w, ok := opts.Rarity[t]; ok {
			weight[k] = max(w, 0.1)
		} else {
			weight[k] = math.Log(float64(n+1) / (float64(df[k]) + 0.5))
			weight[k] = max(weight[k], 0.1)
		}
		total += weight[k]
	}
	type entry struct {
		i        int
		best     float64
		bodyTop  float64 // the best sentence outside reference lists
		strength float64
		tokens   int
	}
	var entries []entry
	weak = map[int]bool{}
	meaning := foundByMeaning(items)
	for i := range items {
		it := &items[i]
		ss := all[i].sents
		if len(ss) == 0 {
			continue
		}
		best := map[int]bool{}
		for _, sn := range it.Snippets {
			best[sn.ChunkIndex] = true
		}
		top, bodyTop, size := 0.0, 0.0, 0
		for j := range ss {
			s := &ss[j]
			text := it.sentenceText(*s)
			sc := 0.0
			for k, ok := range all[i].has[j] {
				if ok {
					sc += weight[k]
				}
			}
			if total > 0 {
				sc /= total
			}
			if sc > 0 && best[it.Text[s.at.chunk].Index] {
				sc += 0.05
			}
			if meaning[i] && best[it.Text[s.at.chunk].Index] {
				// found by meaning, not by words: the best chunk's
				// sentences answer as well as the weakest kept ones
				sc = max(sc, opts.WeakSentence)
			}
			if it.Text[s.at.chunk].Kind == record.ChunkReferences {
				s.ref = true
				sc *= referenceWeight
			}
			sc += highlightBonus(it, text)
			if !s.ref {
				bodyTop = max(bodyTop, sc)
			}
			s.score = sc
			s.tokens = opts.Count(text) + 1
			size += s.tokens
			top = max(top, sc)
		}
		all[i].sents = ss
		if i > 0 && top < opts.WeakSentence && len(it.Highlights) == 0 && len(it.Notes) == 0 {
			weak[i] = true
			continue
		}
		entries = append(entries, entry{i: i, best: top, bodyTop: bodyTop, tokens: size})
	}
	// shares of the text budget: by best sentence and rank
	budget := float64(opts.MaxTokens) * opts.TextShare
	sum := 0.0
	for r := range entries {
		e := &entries[r]
		e.strength = max(e.best, 0.01) * math.Pow(opts.RankDecay, float64(r))
		sum += e.strength
	}
	for r, e := range entries {
		it := &items[e.i]
		ss := all[e.i].sents
		share := int(budget * e.strength / sum)
		decay := math.Pow(opts.RankDecay, float64(r))
		var chosen []sent
		if e.tokens <= share {
			// the whole text fits its share: all of it
			chosen = append(chosen, ss...)
			it.Whole = true
		} else {
			order := make([]int, len(ss))
			for j := range order {
				order[j] = j
			}
			sort.SliceStable(order, func(a, b int) bool { return ss[order[a]].score > ss[order[b]].score })
			left := share
			for k, j := range order {
				if k > 0 && (ss[j].tokens > left || ss[j].score <= 0 || ss[j].ref && e.bodyTop > 0) {
					// a reference line only when the body holds none of the query
					continue
				}
				chosen = append(chosen, ss[j])
				left -= ss[j].tokens
			}
		}
		for j := range chosen {
			chosen[j].value = chosen[j].score * decay
		}
		// best first: it.Chosen[0] is the entry's best sentence
		sort.SliceStable(chosen, func(a, b int) bool { return chosen[a].score > chosen[b].score })
		it.Chosen = chosen
		it.Snippets = nil // the passages say it, whole
	}
	return weak
}

// foundByMeaning tells, by index, the items the semantic side of a
// hybrid or semantic ranking found close to the query: a semantic rank
// and a similarity at least half the best item's. Their words may share
// nothing with the query ("NAC" finds a page on acetylcysteine), so the
// sentences of their best chunk are not judged by the query's words
// alone and the entry does not become a pointer for lacking them.
func foundByMeaning(items []Item) map[int]bool {
	sim := func(it *Item) float64 {
		if it.WhyRanked == nil || it.WhyRanked.Fusion == nil || it.WhyRanked.Fusion.SemanticRank == 0 || it.WhyRanked.Fusion.SemanticSimilarity == nil {
			return 0
		}
		return *it.WhyRanked.Fusion.SemanticSimilarity
	}
	top := 0.0
	for i := range items {
		top = max(top, sim(&items[i]))
	}
	out := map[int]bool{}
	if top <= 0 {
		return out
	}
	for i := range items {
		if s := sim(&items[i]); s > 0 && s >= top/2 {
			out[i] = true
		}
	}
	return out
}

// highlightBonus puts a sentence that holds (or lies in) a highlight
// first: a person's by 1, an agent's by its confidence.
func highlightBonus(it *Item, text string) float64 {
	bonus := 0.0
	w := wordForm(text)
	if w == "" {
		return 0
	}
	for _, h := range it.Highlights {
		hw := wordForm(h.Text)
		if hw == "" || !(strings.Contains(w, hw) || strings.Contains(hw, w)) {
			continue
		}
		b := 1.0
		if strings.HasPrefix(h.Actor, "agent:") {
			b = 0.5
			if h.Confidence != nil {
				b = *h.Confidence
			}
		}
		bonus = max(bonus, b)
	}
	return bonus
}

// passages makes the passages of the sentences kept: in text order,
// adjacent sentences joined, each cut from one chunk's text.
func passages(it *Item, kept []sent) []Passage {
	if len(kept) == 0 {
		return nil
	}
	ss := append([]sent(nil), kept...)
	sort.Slice(ss, func(a, b int) bool { return ss[a].seq < ss[b].seq })
	var out []Passage
	for i := 0; i < len(ss); {
		// the run of sentences that follow one another
		j := i + 1
		for j < len(ss) && ss[j].seq == ss[j-1].seq+1 {
			j++
		}
		out = append(out, runPassages(it, ss[i:j])...)
		i = j
	}
	return out
}

// runPassages cuts a run of adjacent sentences from one chunk's text
// when one chunk holds them all (the overlap), else one passage per chunk.
func runPassages(it *Item, run []sent) []Passage {
	last := run[len(run)-1]
	c := last.at.chunk
	start := -1
	if run[0].at.chunk == c {
		start = run[0].at.start
	} else {
		for _, p := range run[0].also {
			if p.chunk == c {
				start = p.start
			}
		}
	}
	if start >= 0 {
		return []Passage{cut(it, c, start, last.at.end)}
	}
	var out []Passage
	for i := 0; i < len(run); {
		j := i + 1
		for j < len(run) && run[j].at.chunk == run[i].at.chunk {
			j++
		}
		p := cut(it, run[i].at.chunk, run[i].at.start, run[j-1].at.end)
		p.Continues = i > 0
		out = append(out, p)
		i = j
	}
	return out
}

func cut(it *Item, c, start, end int) Passage {
	return Passage{Text: it.Text[c].Text[start:end], ChunkIndex: it.Text[c].Index, Start: start, End: end}
}
