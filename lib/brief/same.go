package brief

import (
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/record"
)

// One passage, one entry: a summary, a key claim or a snippet that says
// the same as a highlight (or a summary the same as a key claim) is not
// written twice. The entry kept is the strongest kind (highlight, then
// key claim, then summary, then snippet) and lists the others under
// "also" ("summary_also" for the summary), so no provenance is lost.
// Two texts are the same passage when, compared as words (case,
// punctuation and spacing aside), the shorter lies inside the longer and
// is at least half its length: a snippet around a highlighted sentence is
// mostly that sentence, a long paragraph holding a short claim is not.

// Kinds named in Evidence.Also and Item.SummaryAlso.
const (
	alsoKeyClaim = "key_claim"
	alsoSummary  = "summary"
	alsoSnippet  = "snippet"
)

// wordForm is s as the same-passage test compares it: lower-case words
// joined by single spaces.
func wordForm(s string) string {
	ws := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	return strings.Join(ws, " ")
}

// samePassage reports whether word forms a and b are one passage.
func samePassage(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return 2*len(b) >= len(a) && strings.Contains(" "+a+" ", " "+b+" ")
}

// dedupe folds it's repeated passages (see above).
func dedupe(it *Item) {
	hs := make([]string, len(it.Highlights))
	for i, h := range it.Highlights {
		hs[i] = wordForm(h.Text)
	}
	// absorbed reports whether a highlight holds the passage w (and marks it).
	absorbed := func(w, kind string) bool {
		for i := range it.Highlights {
			if samePassage(hs[i], w) {
				it.Highlights[i].Also = appendOnce(it.Highlights[i].Also, kind)
				return true
			}
		}
		return false
	}
	var claims []string
	var cs []string
	for _, c := range it.KeyClaims {
		w := wordForm(c)
		if absorbed(w, alsoKeyClaim) {
			continue
		}
		dup := false
		for _, o := range cs {
			dup = dup || samePassage(o, w)
		}
		if !dup {
			claims, cs = append(claims, c), append(cs, w)
		}
	}
	it.KeyClaims = claims
	if s := wordForm(it.Summary); s != "" {
		if absorbed(s, alsoSummary) {
			it.Summary = ""
		} else {
			for i, c := range cs {
				if samePassage(c, s) {
					// the summary stays (the item's one line); the claim goes
					it.SummaryAlso = appendOnce(it.SummaryAlso, alsoKeyClaim)
					it.KeyClaims = append(it.KeyClaims[:i:i], it.KeyClaims[i+1:]...)
					break
				}
			}
		}
	}
	var snips []record.Snippet
	for _, sn := range it.Snippets {
		w := wordForm(sn.Text)
		if absorbed(w, alsoSnippet) {
			continue
		}
		if samePassage(wordForm(it.Summary), w) {
			it.SummaryAlso = appendOnce(it.SummaryAlso, alsoSnippet)
			continue
		}
		snips = append(snips, sn)
	}
	it.Snippets = snips
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}
