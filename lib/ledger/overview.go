package ledger

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/tokens"
)

// Overview budgets, in cl100k_base tokens of its text form.
const (
	DefaultOverviewTokens = 500
	MinOverviewTokens     = 100
	MaxOverviewTokens     = 4000
)

// overviewLimits bound the reading: at most 12 tags and 12 sites, 40 items
// of each and 200 of the whole ledger read (title, 5 highlights, 1,500
// bytes of the first chunk), 5 items per list; so an overview of 100,000
// items reads about as much as one of 1,000 (BenchmarkOverview).
var overviewLimits = store.OverviewLimits{Groups: 12, Sample: 40, Background: 200, BodyBytes: 1500, List: 5}

// wordsPerGroup is how many distinguishing words a tag or site shows
// before the budget cuts them.
const wordsPerGroup = 5

// OverviewOptions are the settings of Overview.
type OverviewOptions struct {
	MaxTokens int // budget of the text form (0: DefaultOverviewTokens)
}

// Overview is what the ledger holds, small enough to read before a
// search: counts by type and state, the largest tags and sites with the
// words that set each apart, pinned and most reused items, and what is
// pending or failed. The same ledger gives the same overview.
type Overview struct {
	Items       int             `json:"items"`
	Archived    int             `json:"archived,omitempty"`
	Pending     int             `json:"pending"`
	Failed      int             `json:"failed"`
	ByType      map[string]int  `json:"by_type"`
	ByState     map[string]int  `json:"by_state"`
	SavedFrom   string          `json:"saved_from,omitempty"`
	SavedTo     string          `json:"saved_to,omitempty"`
	Tags        []OverviewGroup `json:"tags,omitempty"`
	Sites       []OverviewGroup `json:"sites,omitempty"`
	Pinned      []OverviewItem  `json:"pinned,omitempty"`
	MostReused  []OverviewItem  `json:"most_reused,omitempty"`
	FailedItems []OverviewItem  `json:"failed_items,omitempty"`
	Tokens      int             `json:"tokens"`
	MaxTokens   int             `json:"max_tokens"`
	Truncated   bool            `json:"truncated,omitempty"`
}

// OverviewGroup is a tag or a site: how many items it has and the words
// that distinguish its items from the rest of the ledger.
type OverviewGroup struct {
	Name  string   `json:"name"`
	Items int      `json:"items"`
	Words []string `json:"words,omitempty"`
}

// OverviewItem names an item of a list: pinned (count: pinned
// highlights), most reused (count: tasks that cited it), failed (count:
// attempts; detail: the error code).
type OverviewItem struct {
	ID     string `json:"id"`
	URL    string `json:"url"`
	Title  string `json:"title,omitempty"`
	Count  int    `json:"count,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// BuildOverview reads the ledger and makes its overview within the
// budget: past it, groups keep 3 words, then the longest list loses its
// last entry, until the text form fits (truncated: true).
func (l *Ledger) BuildOverview(ctx context.Context, opt OverviewOptions) (*Overview, error) {
	st := l.st
	if opt.MaxTokens == 0 {
		opt.MaxTokens = DefaultOverviewTokens
	}
	if opt.MaxTokens < MinOverviewTokens || opt.MaxTokens > MaxOverviewTokens {
		return nil, fmt.Errorf("max tokens %d: want %d..%d", opt.MaxTokens, MinOverviewTokens, MaxOverviewTokens)
	}
	d, err := st.OverviewData(ctx, overviewLimits)
	if err != nil {
		return nil, err
	}
	o := &Overview{Items: d.Items, Archived: d.Archived, Pending: d.Pending, Failed: d.ByState["failed"],
		ByType: d.ByType, ByState: d.ByState, SavedFrom: day(d.Oldest), SavedTo: day(d.Newest), MaxTokens: opt.MaxTokens}
	o.Tags, o.Sites = distinguish(d)
	o.Pinned, o.MostReused, o.FailedItems = overviewItems(d.Pinned), overviewItems(d.Cited), overviewItems(d.Failed)
	fit(o)
	return o, nil
}

// day is the date of an RFC 3339 time.
func day(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

func overviewItems(refs []store.ItemRef) []OverviewItem {
	var out []OverviewItem
	for _, r := range refs {
		out = append(out, OverviewItem{ID: r.ID, URL: r.URL, Title: r.Title, Count: r.Count, Detail: r.Detail})
	}
	return out
}

// fit cuts o until its text form is within o.MaxTokens and sets Tokens.
func fit(o *Overview) {
	for {
		o.Tokens = tokens.Count(OverviewText(o))
		if o.Tokens <= o.MaxTokens {
			return
		}
		o.Truncated = true
		if cutWords(o.Tags, 3) || cutWords(o.Sites, 3) {
			continue
		}
		// the longest list gives up its last entry; ties: the least
		// useful list first
		lens := []int{len(o.FailedItems), len(o.MostReused), len(o.Pinned), len(o.Sites), len(o.Tags)}
		longest := 0
		for i, n := range lens {
			if n > lens[longest] {
				longest = i
			}
		}
		switch {
		case lens[longest] == 0:
			return // only the counts are left: they always fit the minimum budget
		case longest == 0:
			o.FailedItems = o.FailedItems[:len(o.FailedItems)-1]
		case longest == 1:
			o.MostReused = o.MostReused[:len(o.MostReused)-1]
		case longest == 2:
			o.Pinned = o.Pinned[:len(o.Pinned)-1]
		case longest == 3:
			o.Sites = o.Sites[:len(o.Sites)-1]
		default:
			o.Tags = o.Tags[:len(o.Tags)-1]
		}
	}
}

// cutWords leaves at most n words in each group; false when none had more.
func cutWords(gs []OverviewGroup, n int) bool {
	cut := false
	for i := range gs {
		if len(gs[i].Words) > n {
			gs[i].Words, cut = gs[i].Words[:n], true
		}
	}
	return cut
}

// Weights of an item's fields in the words of a group: a title or a
// highlight says what an item is about more than a sentence of its body.
const (
	titleWeight     = 3
	highlightWeight = 3
	bodyWeight      = 1
	// maxWordWeight caps one word's weight in one item, so a long item
	// that repeats a word does not speak for its whole group.
	maxWordWeight = 6
)

// itemWords is an item's weighted bag of word keys.
type itemWords map[string]float64

// vocabulary maps a word key to its surface forms and their counts.
type vocabulary map[string]map[string]int

// wordKey folds a word to its key: English plurals to the singular, so
// "agents" and "agent" are one word. "" for a word not worth showing
// (stopwords, numbers, words under 3 letters).
func wordKey(w string) string {
	if len([]rune(w)) < 3 || query.IsStopword(w) || !strings.ContainsFunc(w, unicode.IsLetter) {
		return ""
	}
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is") {
		return w[:len(w)-1]
	}
	return w
}

func wordsOf(t store.ItemText, vocab vocabulary) itemWords {
	bag := itemWords{}
	add := func(text string, weight float64) {
		for _, w := range query.Words(text) {
			k := wordKey(w)
			if k == "" {
				continue
			}
			bag[k] = min(bag[k]+weight, maxWordWeight)
			if vocab[k] == nil {
				vocab[k] = map[string]int{}
			}
			vocab[k][w]++
		}
	}
	add(t.Title, titleWeight)
	add(t.Highlights, highlightWeight)
	add(t.Body, bodyWeight)
	return bag
}

// distinguish finds the words of each tag and site: TF-IDF, a group's
// items together as its term frequency (weighted by field, capped per
// item), the document frequency over every item read (the groups'
// samples and the newest items of the ledger). A word in more than half
// of the items read says nothing about any group and is left out, as are
// the words of the group's own name.
func distinguish(d *store.OverviewData) (tags, sites []OverviewGroup) {
	vocab := vocabulary{}
	bags := map[int64]itemWords{}
	read := func(ts []store.ItemText) {
		for _, t := range ts {
			if _, ok := bags[t.Seq]; !ok {
				bags[t.Seq] = wordsOf(t, vocab)
			}
		}
	}
	for _, g := range d.Tags {
		read(g.Texts)
	}
	for _, g := range d.Sites {
		read(g.Texts)
	}
	read(d.Recent)
	df := map[string]int{}
	for _, bag := range bags {
		for k := range bag {
			df[k]++
		}
	}
	n := float64(len(bags))
	group := func(g store.GroupSample) OverviewGroup {
		own := map[string]bool{}
		for _, w := range query.Words(g.Name) {
			own[wordKey(w)] = true
		}
		score := map[string]float64{}
		in := map[string]int{}
		for _, t := range g.Texts {
			for k, w := range bags[t.Seq] {
				score[k] += w
				in[k]++
			}
		}
		var keys []string
		for k := range score {
			common := n >= 4 && float64(df[k]) > n/2
			once := len(g.Texts) >= 3 && in[k] < 2
			if own[k] || common || once {
				continue
			}
			score[k] *= math.Log(n / float64(df[k]))
			if score[k] > 0 {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b string) int {
			if score[a] != score[b] {
				if score[a] > score[b] {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		out := OverviewGroup{Name: g.Name, Items: g.Items}
		for _, k := range keys[:min(len(keys), wordsPerGroup)] {
			out.Words = append(out.Words, surface(vocab[k]))
		}
		return out
	}
	for _, g := range d.Tags {
		tags = append(tags, group(g))
	}
	for _, g := range d.Sites {
		sites = append(sites, group(g))
	}
	return tags, sites
}

// surface is a key's most frequent form (ties: the first in byte order).
func surface(forms map[string]int) string {
	best := ""
	for w, c := range forms {
		if best == "" || c > forms[best] || (c == forms[best] && w < best) {
			best = w
		}
	}
	return best
}

// OverviewText is the overview for a person or a model: a few lines.
func OverviewText(o *Overview) string {
	var b strings.Builder
	if o.Items == 1 {
		b.WriteString("1 item")
	} else {
		fmt.Fprintf(&b, "%d items", o.Items)
	}
	if o.Items > 0 {
		fmt.Fprintf(&b, " (%s), saved %s to %s", counts(o.ByType), o.SavedFrom, o.SavedTo)
	}
	b.WriteString("\n")
	if o.Items > 0 {
		fmt.Fprintf(&b, "state: %s; %d pending (not fetched yet), %d failed", counts(o.ByState), o.Pending, o.Failed)
		if o.Archived > 0 {
			fmt.Fprintf(&b, ", %d archived", o.Archived)
		}
		b.WriteString("\n")
	}
	groups := func(head string, gs []OverviewGroup) {
		if len(gs) == 0 {
			return
		}
		b.WriteString(head + " (items: distinguishing words):\n")
		for _, g := range gs {
			fmt.Fprintf(&b, "  %s %d", g.Name, g.Items)
			if len(g.Words) > 0 {
				b.WriteString(": " + strings.Join(g.Words, ", "))
			}
			b.WriteString("\n")
		}
	}
	groups("tags", o.Tags)
	groups("sites", o.Sites)
	items := func(head, unit string, its []OverviewItem) {
		if len(its) == 0 {
			return
		}
		b.WriteString(head + ":\n")
		for _, it := range its {
			title := it.Title
			if title == "" {
				title = it.URL
			}
			fmt.Fprintf(&b, "  %s %s", it.ID, title)
			switch {
			case it.Detail != "":
				fmt.Fprintf(&b, " (%s, %s)", it.Detail, plural(it.Count, unit))
			case it.Count > 0:
				fmt.Fprintf(&b, " (%s)", plural(it.Count, unit))
			}
			b.WriteString("\n")
		}
	}
	items("pinned", "pinned", o.Pinned)
	items("most reused", "task", o.MostReused)
	items("failed", "attempt", o.FailedItems)
	return b.String()
}

// plural is "1 task", "2 tasks"; "pinned" stays as it is.
func plural(n int, unit string) string {
	if n != 1 && unit != "pinned" {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

// counts is "article 12, pdf 3" in key order.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}
