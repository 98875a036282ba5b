package brief

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Context: budget a pack leaves unused goes to the sentences around the
// chosen ones. An answer often sits in the sentence next to the one that
// holds the query's words (the lead-in names the subject, the next
// sentence gives the figure), so once every entry has its passages,
// nothing had to be dropped and the pointers have their tail, the
// budget still unused, less a slack of ContextSlack of the budget, goes
// to the sentences right after and right before each chosen sentence:
// the strongest entry's first, then the other strong entries' (best
// sentence at least half as good as the first entry's); then the
// strongest entry's next rings (two, three sentences away). Context
// never displaces a pointer or evidence, and a pack that already uses
// most of its budget gets none. A sentence that is not prose (a heading
// alone, a row of numbers: notProse) is never added as context.

// maxContextRing is how far from a chosen sentence context is taken
// for the strongest entry (the others: one sentence).
const maxContextRing = 3

// ContextSlack is the share of the budget left unused before context is
// added: a pack within it of its budget gets no context.
const ContextSlack = 0.25

// newPassageTokens is a guess of what a passage's own fields cost in
// the JSON pack (its locator), beyond its text.
const newPassageTokens = 20

// withContext returns the items with context sentences added to their
// Chosen, as many as fit in the budget (the pack is n tokens now), and
// whether any were added.
func withContext(items []Item, ptrs []Pointer, opts Options, n int) ([]Item, bool) {
	left := opts.MaxTokens - int(ContextSlack*float64(opts.MaxTokens)) - n
	if left <= 0 {
		return items, false
	}
	top := 0.0
	if len(items) > 0 && len(items[0].Chosen) > 0 {
		top = items[0].Chosen[0].score
	}
	type add struct {
		item int
		s    sent
	}
	var adds []add
	have := make([]map[int]bool, len(items))
	for i := range items {
		have[i] = map[int]bool{}
		for _, s := range items[i].Chosen {
			have[i][s.seq] = true
		}
	}
	est := 0
	full := false
	for d := 1; d <= maxContextRing && !full; d++ {
		for i := range items {
			it := &items[i]
			if it.Whole || len(it.Pool) == 0 || len(it.Chosen) == 0 {
				continue
			}
			if i > 0 && (d > 1 || it.Chosen[0].score < top/2) {
				continue
			}
			for _, c := range it.Chosen {
				for _, seq := range []int{c.seq + d, c.seq - d} {
					if seq < 0 || seq >= len(it.Pool) || have[i][seq] {
						continue
					}
					s := it.Pool[seq]
					if notProse(it.sentenceText(s)) {
						continue
					}
					cost := s.tokens + 2
					if !have[i][seq-1] && !have[i][seq+1] {
						cost += newPassageTokens
					}
					if est+cost > left {
						full = true
						continue
					}
					est += cost
					have[i][seq] = true
					adds = append(adds, add{i, s})
				}
			}
		}
	}
	if len(adds) == 0 {
		return items, false
	}
	with := func(m int) []Item {
		out := append([]Item(nil), items...)
		for i := range out {
			out[i].Chosen = append([]sent(nil), out[i].Chosen...)
		}
		for _, a := range adds[:m] {
			out[a.item].Chosen = append(out[a.item].Chosen, a.s)
		}
		return out
	}
	fits := func(m int) bool {
		_, _, c := render(with(m), nil, ptrs, opts, true)
		return c <= opts.MaxTokens
	}
	m := len(adds)
	if !fits(m) {
		// the guess was over: the most additions that fit
		m = sort.Search(len(adds), func(k int) bool { return !fits(k + 1) })
	}
	if m == 0 {
		return items, false
	}
	return with(m), true
}

// notProse reports whether a sentence is not one a reader can use as
// evidence on its own: it has no word with a lower-case letter (a ticker
// row "HD THE HOME DEPOT INC. 225.86 -12.99", a shouted heading), half or
// more of its words are numbers or symbols (a table row), or it is a
// short line with no terminator (a heading or label: "The Doobie
// Brothers Tour Dates").
func notProse(text string) bool {
	words := strings.Fields(text)
	if len(words) == 0 {
		return true
	}
	lower, numeric := false, 0
	for _, w := range words {
		letters := false
		for _, r := range w {
			if unicode.IsLower(r) {
				lower = true
			}
			if unicode.IsLetter(r) {
				letters = true
			}
		}
		if !letters {
			numeric++
		}
	}
	if !lower || 2*numeric >= len(words) {
		return true
	}
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(text, `"'”’)]»`))
	ends := strings.ContainsRune(".!?…。", last)
	return !ends && len(words) < shortLineWords
}

// shortLineWords: a line with no terminator and fewer words than this is
// a heading or label, not a sentence.
const shortLineWords = 8
