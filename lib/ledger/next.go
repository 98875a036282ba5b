package ledger

import (
	"context"
	"strconv"
	"strings"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// Next steps: after a result with an obvious next step, every face names
// it in one line (MCP's "next" field, the CLI's hint at a terminal; see
// docs/agents.md and docs/output.md). Which step it is is decided here,
// once, so the faces agree; each says it in its own terms (a tool call
// for an agent, a command for a person).

// Step is the kind of a next step.
type Step int

// The next steps.
const (
	// StepNone: no obvious next step.
	StepNone Step = iota
	// StepSave: the ledger is empty; save a link worth keeping.
	StepSave
	// StepRephrase: nothing matched; other or fewer words, or the
	// overview of what the ledger holds.
	StepRephrase
	// StepNarrow: weak matches (the best item has fewer than half of
	// the query's words); a narrower query, with the overview's words.
	StepNarrow
	// StepPage: more items than the face could show; narrow or page.
	StepPage
	// StepRead: read the text of Next.Item (the best item).
	StepRead
	// StepIngest: Next.Item is not fetched yet; the worker ingests it.
	StepIngest
	// StepFailed: Next.Item's ingest failed; its status says why.
	StepFailed
	// StepPastEnd: a page past the last result (an offset beyond the
	// matches); the earlier pages hold them.
	StepPastEnd
)

// Next is the next step after a result.
type Next struct {
	Step Step
	// Item is the item the step is about (StepRead, StepIngest,
	// StepFailed).
	Item string
	// Matched and Words (StepNarrow): the best item matched Matched of
	// the query's Words searched words.
	Matched, Words int
}

// Best is what SearchNext reads of a result's best item.
type Best struct {
	ID      string
	Why     *record.WhyRanked
	Pending bool // not fetched yet: found by URL, note and tags only
}

// BestHit is what SearchNext reads of a search hit.
func BestHit(rec *record.Record) Best {
	b := Best{ID: rec.ID}
	if h := rec.Hit; h != nil {
		b.Why, b.Pending = h.WhyRanked, h.IngestState == record.StateSaved
	}
	return b
}

// BestPacked is what SearchNext reads of a brief's item.
func BestPacked(it brief.Item) Best {
	return Best{ID: it.ID, Why: it.WhyRanked, Pending: it.NotFetched()}
}

// SearchNext is the next step after a search for q (find, related, a
// brief) whose result shows n items, best first; truncated says items
// were left out to fit the result's size. An empty query (a listing)
// is never weak.
func SearchNext(q string, n int, best Best, truncated bool) Next {
	return SearchNextAt(q, 0, n, best, truncated)
}

// SearchNextAt is SearchNext for a page that starts offset items in: an
// empty page past the first is the end of the results (StepPastEnd), not
// a query to rephrase.
func SearchNextAt(q string, offset, n int, best Best, truncated bool) Next {
	switch {
	case n == 0 && offset > 0:
		return Next{Step: StepPastEnd}
	case n == 0 && q != "":
		return Next{Step: StepRephrase}
	case n == 0:
		return Next{Step: StepSave}
	}
	if matched, words, weak := Weak(q, best.Why); weak {
		return Next{Step: StepNarrow, Matched: matched, Words: words}
	}
	switch {
	case truncated:
		return Next{Step: StepPage}
	case best.Pending:
		return Next{Step: StepIngest, Item: best.ID}
	}
	return Next{Step: StepRead, Item: best.ID}
}

// Weak says the best item of a query of several words matched fewer
// than half of them, with how many it matched of how many. The words
// counted are those searched (SearchedWords: not the qualifiers, the
// stopwords or the task wording). A word counts as matched when one of
// why's matched terms is a form of it (sameWord): the terms are the
// text's words, "quokkas" and "quokka" for the one word quokka.
func Weak(q string, why *record.WhyRanked) (matched, words int, weak bool) {
	searched := SearchedWords(q)
	words = len(searched)
	if words < 2 || why == nil {
		return 0, words, false
	}
	for _, w := range searched {
		if matchedWord(w, why) {
			matched++
		}
	}
	return matched, words, 2*matched < words
}

// SearchedWords are the words of q a search looks for, as find, related
// and brief read them (lib/query): the query language's qualifiers
// (tag:, site:, …) are filters, not words, and stopwords, task wording
// ("draft a paragraph on") and the pieces of contractions are not
// searched.
func SearchedWords(q string) []string {
	var out []string
	for _, w := range query.Parse(query.ParseLang(q).Text, query.Options{}).Terms {
		if !query.IsStopword(w) {
			out = append(out, w)
		}
	}
	return out
}

// matchedWord says one of why's matched terms is a form of the word w.
func matchedWord(w string, why *record.WhyRanked) bool {
	if why == nil {
		return false
	}
	for _, t := range why.MatchedTerms {
		if sameWord(w, strings.ToLower(t)) {
			return true
		}
	}
	return false
}

// Absent returns the words of q that no item holds (store.Absent), among
// those the best item did not match, so a face can say `no item contains
// "quokka"` instead of dropping the word silently. It looks only when a
// searched word is unmatched and the best item is fetched (a pending
// item matches on its URL, note and tags, which the word index does not
// hold); nil when the look-up fails (a hint is never worth an error).
func (l *Ledger) Absent(ctx context.Context, q string, n int, best Best) []string {
	st := l.st
	if st == nil || (n > 0 && best.Pending) {
		return nil
	}
	var unmatched []string
	for _, w := range SearchedWords(q) {
		if n == 0 || !matchedWord(w, best.Why) {
			unmatched = append(unmatched, w)
		}
	}
	if len(unmatched) == 0 {
		return nil
	}
	out, err := st.Absent(ctx, unmatched)
	if err != nil {
		return nil
	}
	return out
}

// AbsentLine says which words no item holds: `no item contains "quokka"`,
// or "" for none.
func AbsentLine(words []string) string {
	if len(words) == 0 {
		return ""
	}
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) == 1 {
		return "no item contains " + q[0]
	}
	return "no item contains " + strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// sameWord says a and b are likely forms of one word, as the search's
// stemming matches them: one is the other with an ending (quokka,
// quokkas), or they differ in their last letter or two (study,
// studies). It reads runes, so any script works; it need not be exact,
// since it only chooses a hint.
func sameWord(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	n := 0
	for n < len(ra) && ra[n] == rb[n] {
		n++
	}
	if n == len(ra) {
		return true
	}
	return len(ra) >= 4 && n >= len(ra)-1
}

// SaveNext is the next step after saving an item whose ingest status is
// status: read it when it is parsed, see why when its ingest failed,
// else the worker ingests it.
func SaveNext(id, status string) Next {
	switch status {
	case record.StateParsed, record.StateEnriched:
		return Next{Step: StepRead, Item: id}
	case record.StateFailed:
		return Next{Step: StepFailed, Item: id}
	}
	return Next{Step: StepIngest, Item: id}
}

// PendingNext is how many saved items wait for the worker, for the line
// a face adds to its next step; 0 when the count fails (a hint is never
// worth an error).
func (l *Ledger) PendingNext(ctx context.Context) int {
	n, err := l.CountPending(ctx, 0)
	if err != nil {
		return 0
	}
	return n
}
