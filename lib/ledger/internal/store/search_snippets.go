package store

// Snippets: a hit's compact excerpts and the matched fields and terms of
// its why_ranked, from the highlighted columns of its best rows: matching
// chunk text cut to about snippetTokens words around the matched terms,
// with deep links for timed media.

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// snippetTokens is about how many words a snippet shows.
const snippetTokens = 24

// explain fills snippets, chunks, matched fields and matched terms from the
// highlighted columns of the item's best rows.
func explain(it *scoredItem, hit *record.Hit, h hitRow, chunks map[int64]chunkRow, q query.Query, opts searchOpts) {
	fields := map[string]bool{}
	terms := map[string]bool{}
	var termOrder []string
	addTerm := func(t string) {
		if !terms[t] {
			terms[t] = true
			termOrder = append(termOrder, t)
		}
	}
	colNames := []string{"title", "body", "annotations"}
	for _, c := range it.rows {
		if c.hl == ([3]string{}) {
			continue // not highlighted: beyond the rows that explain the hit
		}
		for i, col := range c.hl {
			spans := markedSpans(col)
			if len(spans) > 0 {
				fields[colNames[i]] = true
			}
			for _, t := range spans {
				addTerm(t)
			}
		}
	}
	nSnip := 0
	for _, c := range chunkRowsFor(it, opts) {
		ch, ok := chunks[c.rowid]
		if !ok {
			continue
		}
		text, runs := chunkSnippet(c.hl[1], ch.Text, q.CJK, c.semantic)
		for _, r := range runs {
			fields["body"] = true
			addTerm(r)
		}
		if nSnip < opts.Snippets && text != "" {
			sn := record.Snippet{ChunkIndex: ch.Index, Text: text}
			if ch.StartS.Valid {
				v := ch.StartS.Float64
				sn.StartS = &v
				if h.SourceType == record.SourceYouTube {
					sn.URL = youtubeAt(h.CanonicalURL, v)
				}
			}
			if ch.Page.Valid {
				sn.Page = int(ch.Page.Int64)
			}
			hit.Snippets = append(hit.Snippets, sn)
			nSnip++
		}
		if opts.ExpandChunks {
			rc := record.Chunk{ID: ch.ID, Index: ch.Index, Text: ch.Text, Tokens: ch.Tokens, Kind: ch.Kind}
			if ch.StartS.Valid {
				v := ch.StartS.Float64
				rc.StartS = &v
			}
			if ch.Page.Valid {
				rc.Page = int(ch.Page.Int64)
			}
			hit.Chunks = append(hit.Chunks, rc)
		}
	}
	for _, f := range colNames {
		if fields[f] {
			hit.WhyRanked.MatchedFields = append(hit.WhyRanked.MatchedFields, f)
		}
	}
	hit.WhyRanked.MatchedTerms = termOrder
}

// chunkSnippet chooses a chunk's snippet: around its marked matches
// (marked: the chunk's body as highlighted), else, for a chunk matched by
// LIKE (short CJK runs), around the first run it holds, else, for a chunk
// found by meaning only (semantic), its opening words; "" when none fits.
// runs are the CJK runs the chunk holds when no match was marked (they
// count as matched terms of the body).
func chunkSnippet(marked, text string, cjk []string, semantic bool) (snippet string, runs []string) {
	snippet = markedSnippet(marked, snippetTokens)
	if snippet == "" {
		// matched by LIKE (short CJK runs): cut around the run
		snippet = likeSnippet(text, cjk, snippetTokens)
		for _, r := range cjk {
			if strings.Contains(text, r) {
				runs = append(runs, r)
			}
		}
	}
	if snippet == "" && semantic {
		// found by meaning (no query word in it): its opening words
		snippet = leadSnippet(text, 2*snippetTokens)
	}
	return snippet, runs
}

// markedSnippet cuts about n words of a highlighted text around the window
// with the most marked matches and strips the markers. "" when nothing is
// marked.
func markedSnippet(marked string, n int) string {
	if strings.IndexByte(marked, 2) < 0 {
		return ""
	}
	words := strings.Fields(marked)
	best, bestAt := -1, 0
	// count marks in each window of n words (sliding)
	in := make([]int, len(words)+1)
	for i, w := range words {
		in[i+1] = in[i]
		if strings.IndexByte(w, 2) >= 0 || strings.IndexByte(w, 3) >= 0 {
			in[i+1]++
		}
	}
	for i := 0; i < len(words); i++ {
		j := min(len(words), i+n)
		if c := in[j] - in[i]; c > best {
			best, bestAt = c, i
		}
	}
	// start a few words before the first match of the window
	from := bestAt
	for k := bestAt; k < min(len(words), bestAt+n); k++ {
		if strings.IndexByte(words[k], 2) >= 0 {
			from = max(0, k-n/4)
			break
		}
	}
	to := min(len(words), from+n)
	out := strings.Join(words[from:to], " ")
	out = strings.NewReplacer("\x02", "", "\x03", "").Replace(out)
	if from > 0 {
		out = "…" + out
	}
	if to < len(words) {
		out += "…"
	}
	return out
}

// markedSpans returns the lower-cased text between \x02 and \x03 markers.
func markedSpans(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, 2)
		if i < 0 {
			return out
		}
		s = s[i+1:]
		j := strings.IndexByte(s, 3)
		if j < 0 {
			return out
		}
		if t := strings.ToLower(strings.TrimFunc(s[:j], func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })); t != "" {
			out = append(out, t)
		}
		s = s[j+1:]
	}
}

// likeSnippet returns about width runes of text around the first of runs.
func likeSnippet(text string, runs []string, width int) string {
	for _, r := range runs {
		i := strings.Index(text, r)
		if i < 0 {
			continue
		}
		rs := []rune(text)
		at := len([]rune(text[:i]))
		from := max(0, at-width)
		to := min(len(rs), at+len([]rune(r))+width)
		out := strings.TrimSpace(string(rs[from:to]))
		if from > 0 {
			out = "…" + out
		}
		if to < len(rs) {
			out += "…"
		}
		return out
	}
	return ""
}

// leadSnippet is the first n words of text.
func leadSnippet(text string, n int) string {
	words := strings.Fields(text)
	if len(words) <= n {
		return strings.Join(words, " ")
	}
	return strings.Join(words[:n], " ") + "…"
}

// youtubeAt returns a deep link to second t of a YouTube URL.
func youtubeAt(u string, t float64) string {
	sep := "&"
	if !strings.Contains(u, "?") {
		sep = "?"
	}
	return u + sep + "t=" + strconv.Itoa(int(t)) + "s"
}
