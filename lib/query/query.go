// Package query turns any text a user types into safe SQLite FTS5 MATCH
// expressions. It is pure: no database, no environment.
//
// Every word of the text becomes a double-quoted FTS5 string, and the
// strings are OR-ed, so no input (quotes, AND, -, :, *, parentheses, emoji,
// a 300-word paragraph) can reach FTS5 query syntax or produce a syntax
// error, and a document need not contain every word: ranking (bm25) orders
// the matches. Words are split the way the unicode61 tokenizer splits them
// (letters, digits and combining marks make words; everything else
// separates), so what FTS5 sees inside each quoted string is one token.
//
// Runs of CJK characters (Han, Hiragana, Katakana, Hangul) are kept apart:
// they have no spaces between words, so they are searched through the
// trigram side index (runs of three or more characters) or a bounded LIKE
// scan (shorter runs).
package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options tune how text becomes terms.
type Options struct {
	// MaxTerms caps the number of terms kept (first occurrences win). Zero
	// means DefaultMaxTerms.
	MaxTerms int
	// StopwordsFrom is the number of distinct words from which English
	// stopwords are dropped. Short queries keep them ("the who"); long
	// natural-language queries lose nothing by dropping them. Zero means
	// DefaultStopwordsFrom; a negative value never drops them.
	StopwordsFrom int
}

// Defaults for Options.
const (
	DefaultMaxTerms      = 64
	DefaultStopwordsFrom = 4
	// MinTrigram is the shortest CJK run the trigram index can match.
	MinTrigram = 3
	// maxTermBytes bounds one term: longer "words" are cut, since no real
	// word is that long and FTS5 gains nothing from more.
	maxTermBytes = 128
)

// Query is a parsed query.
type Query struct {
	// Terms are the distinct lower-cased words (not CJK) in order of first
	// appearance, after stopword removal and the MaxTerms cap.
	Terms []string
	// Dropped are the stopwords removed from Terms.
	Dropped []string
	// CJK are the distinct runs of CJK characters, in order.
	CJK []string
	// Task is the task wording removed from Terms ("draft", "a
	// paragraph on", "citing sources": task.go): what the text asks
	// for, not what it is about.
	Task []string
}

// Parse splits text into terms and CJK runs. It never fails; text with no
// words gives an empty Query.
func Parse(text string, opts Options) Query {
	if opts.MaxTerms <= 0 {
		opts.MaxTerms = DefaultMaxTerms
	}
	if opts.StopwordsFrom == 0 {
		opts.StopwordsFrom = DefaultStopwordsFrom
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, " ")
	}
	var q Query
	cjk := map[string]bool{}
	var raw []rawWord
	var word, run strings.Builder
	apos := false // the word being built follows a word and an apostrophe
	flushWord := func() {
		if word.Len() == 0 {
			return
		}
		w := strings.ToLower(word.String())
		word.Reset()
		if len(w) > maxTermBytes {
			w = cutRunes(w, maxTermBytes)
		}
		if !hasLetterOrDigit(w) {
			apos = false
			return
		}
		raw = append(raw, rawWord{text: w, afterApos: apos})
		apos = false
	}
	flushRun := func() {
		if run.Len() == 0 {
			return
		}
		r := run.String()
		run.Reset()
		if !cjk[r] {
			cjk[r] = true
			q.CJK = append(q.CJK, r)
		}
	}
	for _, r := range text {
		switch {
		case IsCJK(r):
			flushWord()
			apos = false
			run.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
			flushRun()
			word.WriteRune(r)
		default:
			hadWord := word.Len() > 0
			flushWord()
			flushRun()
			// a word, one apostrophe, a word: a contraction or a
			// possessive (we're, Klein's), read by contractions
			apos = hadWord && isApostrophe(r)
		}
	}
	flushWord()
	flushRun()

	all := contractions(raw)
	all, q.Task = taskWording(all)
	seen := map[string]bool{}
	uniq := func(ws []string) []string {
		var out []string
		for _, w := range ws {
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
		return out
	}
	if len(all) == 0 && len(q.Task) > 0 {
		// only task wording ("summarize"): search for it rather than
		// for nothing
		all, q.Task = q.Task, nil
	}
	all = uniq(all)
	q.Task = uniqueOut(q.Task, seen)

	// a long request stays long when its task wording is set aside
	dropStop := opts.StopwordsFrom > 0 && len(all)+len(q.Task) >= opts.StopwordsFrom
	for _, w := range all {
		if dropStop && stopwordSet()[w] {
			q.Dropped = append(q.Dropped, w)
			continue
		}
		if len(q.Terms) < opts.MaxTerms {
			q.Terms = append(q.Terms, w)
		}
	}
	if dropStop && len(q.Terms) == 0 {
		// Only stopwords: search for them rather than for nothing.
		q.Dropped = nil
		for _, w := range all {
			if len(q.Terms) < opts.MaxTerms {
				q.Terms = append(q.Terms, w)
			}
		}
	}
	return q
}

// Empty reports whether the query has nothing to search for.
func (q Query) Empty() bool { return len(q.Terms) == 0 && len(q.CJK) == 0 }

// Match returns the FTS5 expression for the word index: the terms quoted and
// OR-ed, or "" when there are none.
func (q Query) Match() string { return Or(q.Terms) }

// TrigramRuns returns the CJK runs long enough for the trigram index.
func (q Query) TrigramRuns() []string {
	var out []string
	for _, r := range q.CJK {
		if utf8.RuneCountInString(r) >= MinTrigram {
			out = append(out, r)
		}
	}
	return out
}

// ShortRuns returns the CJK runs too short for the trigram index (one or two
// characters); they are searched with LIKE.
func (q Query) ShortRuns() []string {
	var out []string
	for _, r := range q.CJK {
		if utf8.RuneCountInString(r) < MinTrigram {
			out = append(out, r)
		}
	}
	return out
}

// TrigramMatch returns the FTS5 expression for the trigram index, or "".
func (q Query) TrigramMatch() string { return Or(q.TrigramRuns()) }

// Quote returns s as one FTS5 string: double-quoted, inner quotes doubled.
// Inside a string FTS5 applies only its tokenizer, never query syntax.
func Quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Or returns the terms quoted and joined with OR, or "" when there are none.
func Or(terms []string) string {
	var b strings.Builder
	for _, t := range terms {
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(Quote(t))
	}
	return b.String()
}

// LikePattern returns a LIKE pattern matching s anywhere, with LIKE's
// wildcards escaped by backslash (use with ESCAPE '\').
func LikePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// IsCJK reports whether r is written without spaces between words: Han,
// Hiragana, Katakana, Hangul.
func IsCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// HasCJK reports whether s contains a CJK character.
func HasCJK(s string) bool {
	for _, r := range s {
		if IsCJK(r) {
			return true
		}
	}
	return false
}

func hasLetterOrDigit(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// cutRunes cuts s to at most n bytes on a rune boundary.
func cutRunes(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Words returns the lower-cased words of text (not CJK runs) in order, with
// repetitions, split as Parse splits them.
func Words(text string) []string {
	var out []string
	var word strings.Builder
	flush := func() {
		if word.Len() > 0 {
			if w := strings.ToLower(word.String()); hasLetterOrDigit(w) && len(w) <= maxTermBytes {
				out = append(out, w)
			}
			word.Reset()
		}
	}
	for _, r := range text {
		if !IsCJK(r) && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			word.WriteRune(r)
			continue
		}
		flush()
	}
	flush()
	return out
}

// IsStopword reports whether w (lower-case) is an English stopword.
func IsStopword(w string) bool { return stopwordSet()[w] }
