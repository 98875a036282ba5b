// Package brief builds evidence packs: the best items of a search, with
// their highlights, lowlights, notes, summaries and snippets, cut to a token
// budget counted with the real tokenizer (cl100k_base).
//
// When the pack is over budget, evidence is dropped lowest value first:
// snippets (lowest-ranked items first), then lowlights, then low-confidence
// agent highlights, then whole items from the bottom. The pack says what
// was dropped. The budget counts the pack exactly as written: the one JSON
// line (format json) or the Markdown text (format md).
//
// After the full items, the budget that is left holds a tail of pointers:
// further candidates in one line each (rank, URL, title; the best
// sentence on request),
// so a pack names more distinct sources per token. Pointers only use what
// the full items leave; they never displace evidence.
package brief

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

// Formats.
const (
	FormatJSON = "json"
	FormatMD   = "md"
)

// Defaults.
const (
	DefaultMaxTokens = 2000
	DefaultMaxItems  = 5
	MaxItems         = 20
	// DefaultMaxPointers is the tail's default length in ll-brief (the
	// library's zero value means no tail).
	DefaultMaxPointers = 24
	MaxPointers        = 100
	// MaxPointerWords bounds Options.PointerWords.
	MaxPointerWords = 60
	// DefaultLowConfidence: agent highlights below it are dropped before
	// whole items.
	DefaultLowConfidence = 0.5
)

// Options are the settings of Build.
type Options struct {
	Query     string
	MaxTokens int
	MaxItems  int
	// MaxPointers is the most candidates past MaxItems shown as pointers
	// (0: none).
	MaxPointers int
	// PointerWords is the most words of a pointer's sentence (0: no
	// sentence, the default: a sentence costs more names than it is worth,
	// see docs/retrieval.md).
	PointerWords  int
	Format        string
	LowConfidence float64
	// Count counts tokens (default chunk.CountTokens).
	Count func(string) int
	// Rarity weighs each query term (QueryTerms) by how rare it is in the
	// ledger (store.TermRarity); a term not in it is weighed by how few
	// of the pack's sentences hold it.
	Rarity map[string]float64
	// TextShare is the share of MaxTokens the entries' passages are
	// planned to take (DefaultTextShare when 0).
	TextShare float64
	// RankDecay weighs entry k's share of that by RankDecay^k
	// (DefaultRankDecay when 0).
	RankDecay float64
	// WeakSentence: an entry with text whose best sentence scores below
	// it becomes a pointer (DefaultWeakSentence when 0; negative: never).
	WeakSentence float64
}

// Pack is the evidence pack (one JSON document).
type Pack struct {
	Query     string    `json:"query,omitempty"`
	Items     []Item    `json:"items"`
	Pointers  []Pointer `json:"pointers,omitempty"`
	Tokens    int       `json:"tokens"`
	MaxTokens int       `json:"max_tokens"`
	Dropped   []Dropped `json:"dropped,omitempty"`
}

// Item is one item's evidence.
type Item struct {
	Rank        int               `json:"rank"`
	ID          string            `json:"id"`
	URL         string            `json:"url"`
	Title       string            `json:"title,omitempty"`
	SourceType  string            `json:"source_type,omitempty"`
	Author      string            `json:"author,omitempty"`
	SiteName    string            `json:"site_name,omitempty"`
	PublishedAt string            `json:"published_at,omitempty"`
	SavedAt     string            `json:"saved_at,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Score       float64           `json:"score"`
	WhyRanked   *record.WhyRanked `json:"why_ranked,omitempty"`
	Summary     string            `json:"summary,omitempty"`
	// SummaryAlso names what else said the summary's passage (key_claim,
	// snippet): written once (see same.go).
	SummaryAlso []string         `json:"summary_also,omitempty"`
	KeyClaims   []string         `json:"key_claims,omitempty"`
	Highlights  []Evidence       `json:"highlights,omitempty"`
	Lowlights   []Evidence       `json:"lowlights,omitempty"`
	Notes       []Evidence       `json:"notes,omitempty"`
	Snippets    []record.Snippet `json:"snippets,omitempty"`
	// Passages are the item's sentences that answer the query, whole,
	// with their locators (passages.go); they take the snippets' place
	// when the item's text is known. Whole says they are its whole text.
	Passages   []Passage            `json:"passages,omitempty"`
	Whole      bool                 `json:"whole,omitempty"`
	Revalidate *record.Revalidation `json:"revalidate,omitempty"`
	FetchedAt  string               `json:"fetched_at,omitempty"`
	// Unanchored counts the agents' highlights and lowlights left out
	// because their quote is not in the text (Pack.Dropped).
	Unanchored int `json:"-"`
	// Text is the item's stored text, chunk by chunk (a prefix of it at
	// most MaxTextBytes long), for its passages; none: snippets.
	Text []Chunk `json:"-"`
	// Chosen are the sentences chosen for the passages, best first.
	Chosen []sent `json:"-"`
}

// NotFetched says the item is not fetched yet (found by its URL, note or
// tags only): it has neither a title nor a fetch time. Its views say
// "pending: not fetched yet".
func (it Item) NotFetched() bool { return it.Title == "" && it.FetchedAt == "" }

// Pointer is a candidate past the full items, in one line: where it is,
// what it is called and, when asked for, its best sentence (from its best
// snippet, else its summary), at most Options.PointerWords words.
type Pointer struct {
	Rank     int    `json:"rank"`
	URL      string `json:"url"`
	Title    string `json:"title,omitempty"`
	Sentence string `json:"sentence,omitempty"`
}

// PointerOf makes the pointer of an item, with a sentence of at most
// words words (0: none).
func PointerOf(it Item, words int) Pointer {
	text := it.Summary
	if len(it.Snippets) > 0 {
		text = it.Snippets[0].Text
	}
	return Pointer{Rank: it.Rank, URL: it.URL, Title: oneLine(it.Title), Sentence: sentence(text, words)}
}

// sentence cuts a snippet to its first n words, without the ellipses a
// snippet opens and closes with, and marks a cut with one.
func sentence(s string, n int) string {
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "…"))
	w := strings.Fields(s)
	if n <= 0 {
		return ""
	}
	if len(w) <= n {
		return strings.Join(w, " ")
	}
	return strings.Join(w[:n], " ") + "…"
}

// Evidence is an annotation as the pack shows it.
type Evidence struct {
	Text       string   `json:"text"`
	Actor      string   `json:"actor,omitempty"`
	Confidence *float64 `json:"confidence,omitempty"`
	Pinned     bool     `json:"pinned,omitempty"`
	// Also names what else said this passage (key_claim, summary,
	// snippet), each written once (see same.go).
	Also []string `json:"also,omitempty"`
	// Anchor is "unanchored" or "pending" on a note that was a person's
	// highlight or lowlight whose words are not (or not yet known to be)
	// in the text: the person's words, not a quote of the source.
	Anchor string `json:"anchor,omitempty"`
}

// Dropped says how much of one kind of evidence was left out.
type Dropped struct {
	What  string `json:"what"` // sentences, snippets, lowlights, low_confidence_highlights, items, unanchored_quotes
	Count int    `json:"count"`
}

// ErrBudget is returned when even an empty pack is over the budget.
var ErrBudget = errors.New("token budget too small")

func evidence(as []record.Annotation) []Evidence {
	var out []Evidence
	for _, a := range as {
		out = append(out, Evidence{Text: a.Text, Actor: a.Actor, Confidence: a.Confidence, Pinned: a.Pinned, Anchor: a.Anchor})
	}
	return out
}

// FromRecord makes a pack item of an ll-find record.
func FromRecord(r *record.Record) Item {
	it := Item{ID: r.ID, URL: r.CanonicalURL, Title: r.Title, SourceType: r.SourceType, Author: r.Author,
		SiteName: r.SiteName, PublishedAt: r.PublishedAt, Tags: r.Tags, Revalidate: r.Revalidate}
	if it.URL == "" {
		it.URL = r.URL
	}
	if h := r.Hit; h != nil {
		it.Rank, it.Score, it.WhyRanked, it.SavedAt, it.FetchedAt = h.Rank, h.Score, h.WhyRanked, h.SavedAt, h.FetchedAt
		// Only quotes found in the text are evidence from the source: a
		// person's other words are shown as their notes, an agent's are
		// left out (counted in dropped).
		var hs, ls, notes []record.Annotation
		for _, a := range h.Highlights {
			hs = appendQuote(hs, &notes, &it.Unanchored, a)
		}
		for _, a := range h.Lowlights {
			ls = appendQuote(ls, &notes, &it.Unanchored, a)
		}
		it.Highlights = evidence(hs)
		it.Lowlights = evidence(ls)
		it.Notes = evidence(append(notes, h.Notes...))
		it.Snippets = h.Snippets
		chunks := r.Chunks // ll-find --with-chunks: the item's text
		if len(chunks) == 0 {
			chunks = h.Chunks // --expand-chunks: the matching chunks
		}
		for _, c := range chunks {
			it.Text = append(it.Text, Chunk{Index: c.Index, Text: c.Text, Kind: c.Kind})
		}
		if a := h.Artifact; a != nil {
			it.Summary, it.KeyClaims = a.Summary, a.SupportedClaims()
		}
		dedupe(&it)
	}
	return it
}

// appendQuote appends a to quotes when it is anchored in the text; a
// person's unanchored words go to notes (marked), an agent's are counted
// in dropped.
func appendQuote(quotes []record.Annotation, notes *[]record.Annotation, dropped *int, a record.Annotation) []record.Annotation {
	switch {
	case a.Anchor == "":
		return append(quotes, a)
	case strings.HasPrefix(a.Actor, "agent:"):
		*dropped++
	default:
		*notes = append(*notes, a)
	}
	return quotes
}

// unit is one removable piece of evidence.
type unit struct {
	kind string
	item int // index in the items
	idx  int // index within its list (removed from the end)
}

// Build makes the pack of items (best first) within the budget and
// returns it rendered in the format (without a trailing newline).
func Build(items []Item, opts Options) (*Pack, string, error) {
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultMaxTokens
	}
	if opts.MaxItems <= 0 {
		opts.MaxItems = DefaultMaxItems
	}
	if opts.Format == "" {
		opts.Format = FormatJSON
	}
	if opts.LowConfidence == 0 {
		opts.LowConfidence = DefaultLowConfidence
	}
	if opts.Count == nil {
		opts.Count = chunk.CountTokens
	}
	if opts.TextShare == 0 {
		opts.TextShare = DefaultTextShare
	}
	if opts.RankDecay == 0 {
		opts.RankDecay = DefaultRankDecay
	}
	if opts.WeakSentence == 0 {
		opts.WeakSentence = DefaultWeakSentence
	}
	items = append([]Item(nil), items...)
	for i := range items {
		if items[i].Rank == 0 {
			items[i].Rank = i + 1
		}
	}
	var rest []Item
	if len(items) > opts.MaxItems {
		rest = items[opts.MaxItems:]
		items = items[:opts.MaxItems]
	}
	// An entry whose best sentence is weak becomes a pointer, ahead of
	// the candidates past the full items.
	var tail []Pointer
	weak := choosePassages(items, opts)
	if len(weak) > 0 {
		var strong []Item
		for i, it := range items {
			if weak[i] {
				rest = append([]Item{it}, rest...)
				continue
			}
			strong = append(strong, it)
		}
		sort.SliceStable(rest, func(a, b int) bool { return rest[a].Rank < rest[b].Rank })
		items = strong
	}
	for _, it := range rest {
		if len(tail) < opts.MaxPointers {
			tail = append(tail, PointerOf(it, opts.PointerWords))
		}
	}
	units := removable(items, opts.LowConfidence)
	// The smallest number of removals (in value order) that fits: output
	// size only shrinks as removals grow, so binary search on counts. The
	// search counts the JSON pack with max_tokens standing in for its own
	// size; the final render counts exactly and steps on if a digit more
	// tipped it over.
	fits := func(k int) bool {
		_, _, n := render(items, units[:k], nil, opts, false)
		return n <= opts.MaxTokens
	}
	k := 0
	if !fits(0) {
		// Guess from each unit's own size, then confirm with exact counts:
		// two counts when the guess is right, a binary search on the side
		// it was wrong on otherwise.
		k0 := estimate(items, units, opts)
		switch {
		case fits(k0) && (k0 == 0 || !fits(k0-1)):
			k = k0
		case fits(k0):
			k = sort.Search(k0, fits)
		default:
			k = k0 + 1 + sort.Search(len(units)-k0, func(i int) bool { return fits(k0 + 1 + i) })
		}
	}
	for ; k <= len(units); k++ {
		p, text, n := render(items, units[:k], nil, opts, true)
		if n <= opts.MaxTokens && len(p.Items) == 0 && len(items) > 0 {
			// evidence was found but none of it fits: the budget is
			// wrong, not the query (docs/agents.md, error budget)
			return nil, "", budgetForOne(items[0], opts)
		}
		if n <= opts.MaxTokens {
			return withTail(items, units[:k], tail, opts, p, text)
		}
	}
	if len(items) > 0 {
		return nil, "", budgetForOne(items[0], opts)
	}
	_, _, n := render(nil, nil, nil, opts, true)
	return nil, "", fmt.Errorf("%w: an empty pack takes %d tokens, over --max-tokens %d", ErrBudget, n, opts.MaxTokens)
}

// budgetForOne is the error of a budget too small for the best item
// even stripped of all it may lose: its size then, against the budget.
func budgetForOne(best Item, opts Options) error {
	one := []Item{best}
	var strip []unit
	for _, u := range removable(one, opts.LowConfidence) {
		if u.kind != "items" {
			strip = append(strip, u)
		}
	}
	_, _, n := render(one, strip, nil, opts, true)
	return fmt.Errorf("%w: a pack with the best item alone takes %d tokens, over the budget of %d (--max-tokens, max_tokens)", ErrBudget, n, opts.MaxTokens)
}

// withTail adds the most pointers that fit in what the full pack leaves.
// Sizes only grow with more pointers: a guess from each pointer's own size
// is confirmed with counts of the whole pack (a binary search on the side
// it was wrong on), then the pack is rendered exactly, one pointer fewer
// if a digit more of "tokens" tipped it over.
func withTail(items []Item, removed []unit, tail []Pointer, opts Options, p *Pack, text string) (*Pack, string, error) {
	if len(tail) == 0 || p.Tokens >= opts.MaxTokens {
		return p, text, nil
	}
	fits := func(n int) bool {
		_, _, t := render(items, removed, tail[:n], opts, false)
		return t <= opts.MaxTokens
	}
	// the guess: what is left, less the "pointers" key, spent in rank order
	left := opts.MaxTokens - p.Tokens - 6
	n := 0
	for n < len(tail) {
		b, _ := marshal(tail[n])
		if left -= opts.Count(string(b)) + 1; left < 0 {
			break
		}
		n++
	}
	switch {
	case fits(n) && (n == len(tail) || !fits(n+1)):
	case fits(n):
		n = n + 1 + sort.Search(len(tail)-n-1, func(i int) bool { return !fits(n + 2 + i) })
	default:
		n = sort.Search(n, func(i int) bool { return !fits(i + 1) })
	}
	for ; n > 0; n-- {
		q, t, c := render(items, removed, tail[:n], opts, true)
		if c <= opts.MaxTokens {
			return q, t, nil
		}
	}
	return p, text, nil
}

// estimate returns the number of removals that should fit, from the size
// of the whole pack and of each unit alone (sizes roughly add up).
func estimate(items []Item, units []unit, opts Options) int {
	_, _, over := render(items, nil, nil, opts, false)
	over -= opts.MaxTokens
	for k, u := range units {
		if over <= 0 {
			return k
		}
		var frag any
		it := items[u.item]
		switch u.kind {
		case "sentences":
			frag = Passage{Text: it.sentenceText(it.Chosen[u.idx])}
		case "snippets":
			frag = it.Snippets[u.idx]
		case "lowlights":
			frag = it.Lowlights[u.idx]
		case "low_confidence_highlights":
			frag = it.Highlights[u.idx]
		default:
			it.Snippets, it.Lowlights, it.Highlights = nil, nil, nil
			frag = it
		}
		b, _ := marshal(frag)
		over -= opts.Count(string(b)) + 1
	}
	return len(units)
}

// removable lists the removable units, lowest value first.
func removable(items []Item, low float64) []unit {
	var us []unit
	// every entry's sentences but its best, least value first
	var ss []unit
	for i := len(items) - 1; i >= 0; i-- {
		for j := len(items[i].Chosen) - 1; j >= 1; j-- {
			ss = append(ss, unit{"sentences", i, j})
		}
	}
	sort.SliceStable(ss, func(a, b int) bool {
		return items[ss[a].item].Chosen[ss[a].idx].value < items[ss[b].item].Chosen[ss[b].idx].value
	})
	us = append(us, ss...)
	for i := len(items) - 1; i >= 0; i-- {
		for j := len(items[i].Snippets) - 1; j >= 0; j-- {
			us = append(us, unit{"snippets", i, j})
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		for j := len(items[i].Lowlights) - 1; j >= 0; j-- {
			us = append(us, unit{"lowlights", i, j})
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		for j := len(items[i].Highlights) - 1; j >= 0; j-- {
			h := items[i].Highlights[j]
			if strings.HasPrefix(h.Actor, "agent:") && !h.Pinned && h.Confidence != nil && *h.Confidence < low {
				us = append(us, unit{"low_confidence_highlights", i, j})
			}
		}
	}
	// each entry's best sentence goes just before entries do
	for i := len(items) - 1; i >= 0; i-- {
		if len(items[i].Chosen) > 0 {
			us = append(us, unit{"sentences", i, 0})
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		us = append(us, unit{"items", i, 0})
	}
	return us
}

var kinds = []string{"sentences", "snippets", "lowlights", "low_confidence_highlights", "items"}

// render applies the removals, renders the pack and counts its tokens.
func render(items []Item, removed []unit, ptrs []Pointer, opts Options, exact bool) (*Pack, string, int) {
	gone := map[unit]bool{}
	counts := map[string]int{}
	for _, u := range removed {
		gone[u] = true
		counts[u.kind]++
	}
	p := &Pack{Query: opts.Query, MaxTokens: opts.MaxTokens, Items: []Item{}, Pointers: ptrs}
	for i, it := range items {
		if gone[unit{"items", i, 0}] {
			continue
		}
		kept := keep(it.Chosen, func(j int) bool { return !gone[unit{"sentences", i, j}] })
		it.Passages = passages(&it, kept)
		if len(kept) < len(it.Chosen) {
			it.Whole = false // some sentence went to fit the budget
		}
		it.Snippets = keep(it.Snippets, func(j int) bool { return !gone[unit{"snippets", i, j}] })
		it.Lowlights = keep(it.Lowlights, func(j int) bool { return !gone[unit{"lowlights", i, j}] })
		it.Highlights = keep(it.Highlights, func(j int) bool { return !gone[unit{"low_confidence_highlights", i, j}] })
		p.Items = append(p.Items, it)
	}
	for _, k := range kinds {
		if counts[k] > 0 {
			p.Dropped = append(p.Dropped, Dropped{What: k, Count: counts[k]})
		}
	}
	unanchored := 0
	for _, it := range p.Items {
		unanchored += it.Unanchored
	}
	if unanchored > 0 {
		p.Dropped = append(p.Dropped, Dropped{What: "unanchored_quotes", Count: unanchored})
	}
	if opts.Format == FormatMD {
		text := Markdown(p)
		n := opts.Count(text)
		p.Tokens = n
		return p, text, n
	}
	// The JSON pack states its own size: iterate until the number written
	// equals the count (it settles in a step or two).
	var text string
	if !exact {
		p.Tokens = opts.MaxTokens
		b, _ := marshal(p)
		text = string(b)
		return p, text, opts.Count(text)
	}
	n := 0
	for i := 0; i < 5; i++ {
		b, _ := marshal(p)
		text = string(b)
		if n = opts.Count(text); n == p.Tokens {
			break
		}
		p.Tokens = n
	}
	return p, text, n // n counts text
}

func keep[T any](xs []T, ok func(int) bool) []T {
	var out []T
	for j, x := range xs {
		if ok(j) {
			out = append(out, x)
		}
	}
	return out
}

func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimRight(b.String(), "\n")), nil
}
