package query

// Understanding a task: the words of a request that say what to do with
// the evidence ("draft a paragraph on", "citing sources", "what does …
// say about") rather than what the evidence is about are not searched,
// and neither are the pieces of contractions ("we're", "don't") nor the
// "s" of a possessive ("Klein's"). Parse applies both, so find, related
// and brief (all through the store's search) read a task the same way
// (docs/retrieval.md "Query understanding").

// rawWord is a lower-cased word of the text in order, with whether it
// came right after another word and an apostrophe ("re" in "we're").
type rawWord struct {
	text      string
	afterApos bool
}

// isApostrophe reports whether r joins a contraction: the typewriter
// apostrophe, the right single quote and the modifier letter apostrophe.
func isApostrophe(r rune) bool { return r == '\'' || r == '\u2019' || r == '\u02bc' }

// contractions reads the words split at an apostrophe: a possessive
// keeps its word and loses the "s" (Klein's: klein) unless the word is a
// function word (it's, that's, let's: nothing); a contraction of a
// pronoun or a verb is no term at all (we're, I've, you'll, I'd, I'm,
// don't, can't); any other apostrophe (O'Brien, l'homme) keeps its
// parts of two letters or more. So no contraction or possessive yields a
// term of one or two letters it did not hold as a word.
func contractions(raw []rawWord) []string {
	out := make([]string, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		w := raw[i]
		if i+1 < len(raw) && raw[i+1].afterApos {
			suf := raw[i+1].text
			switch {
			case suf == "s":
				if !stopwordSet()[w.text] && w.text != "let" {
					out = append(out, w.text)
				}
				i++
				continue
			case suf == "re" || suf == "ve" || suf == "ll" || suf == "d" || suf == "m":
				i++
				continue
			case suf == "t" && len(w.text) > 1 && w.text[len(w.text)-1] == 'n':
				i++
				continue
			}
			if len([]rune(w.text)) > 1 {
				out = append(out, w.text)
			}
			continue
		}
		if w.afterApos && len([]rune(w.text)) < 2 {
			continue // the "n" of rock'n'roll
		}
		out = append(out, w.text)
	}
	return out
}

// Task wording (lower case). taskVerbs open a request ("draft", "give
// me"); taskForms name what it asks for ("a paragraph on"); sayVerbs
// end "what does X say about"; taskSources name the ledger itself ("what
// do the sources say"). Only words in these places are task wording: the
// same word elsewhere ("a draft treaty", "sources of vitamin D") is
// searched.
var (
	taskVerbs = set("draft", "write", "rewrite", "summarize", "summarise", "explain", "describe", "list", "give",
		"tell", "show", "outline", "find", "search", "look", "research", "compile", "prepare", "collect", "gather",
		"produce", "compose", "brief", "quote", "cite", "answer")
	taskLead = set("please", "can", "could", "would", "will", "you", "help", "me", "us", "i", "need", "want",
		"to", "now", "also", "then", "and", "quickly", "briefly")
	taskSize = set("a", "an", "the", "one", "two", "three", "four", "five", "some", "few", "several", "short",
		"brief", "quick", "concise", "detailed", "single", "small", "long", "simple", "clear", "sourced", "cited")
	taskForms = set("paragraph", "paragraphs", "summary", "summaries", "note", "notes", "overview", "report",
		"essay", "memo", "list", "email", "answer", "explanation", "sentence", "sentences", "bullet", "bullets",
		"points", "post", "section", "abstract", "reply", "response", "brief", "blurb", "tldr", "review", "draft")
	taskPreps   = set("on", "about", "of", "for", "explaining", "covering", "regarding", "up", "into", "that")
	sayVerbs    = set("say", "says", "said", "think", "thinks", "claim", "claims", "write", "writes", "wrote", "report", "reports", "tell", "tells")
	taskSources = set("sources", "source", "papers", "paper", "articles", "article", "studies", "pages", "page",
		"links", "notes", "items", "ledger", "documents", "docs", "literature", "evidence", "references", "my", "our", "your", "the", "these", "those", "saved")
	citeWords = set("citing", "cite", "cited", "with", "including", "include", "quoting", "using", "plus")
	taskMe    = set("me", "us")
	taskDo    = set("do", "does", "did")
	taskTo    = set("to")
	sayPreps  = set("about", "on", "regarding", "of")
	citeDets  = set("the", "its", "their", "your", "my", "our", "all", "some", "any", "relevant", "saved", "exact", "direct")
	inForms   = set("paragraph", "paragraphs", "sentence", "sentences", "words", "bullets", "bullet", "points", "lines")
	citeNouns = set("sources", "source", "citations", "citation", "references", "reference", "quotes", "links")
)

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// taskWording splits words into what is searched and the task wording
// (in order, repetitions kept).
func taskWording(ws []string) (keep, task []string) {
	drop := make([]bool, len(ws))
	at := func(i int, m map[string]bool) bool { return i < len(ws) && m[ws[i]] }
	// a request at the start: [please | can you | help me | i need to]
	// VERB [me|us] [a short] [FORM] [on|about]
	i := 0
	for i < len(ws) && taskLead[ws[i]] && !taskVerbs[ws[i]] {
		i++
	}
	if at(i, taskVerbs) {
		for k := 0; k <= i; k++ {
			drop[k] = true
		}
		i++
		for at(i, taskMe) {
			drop[i] = true
			i++
		}
		j := i
		for at(j, taskSize) {
			j++
		}
		if at(j, taskForms) {
			for ; i <= j; i++ {
				drop[i] = true
			}
			// "a paragraph on", "a summary of the evidence for"
			for at(i, taskPreps) {
				drop[i] = true
				i++
			}
		} else if at(i, taskPreps) {
			drop[i] = true // write about, look up, search for
		}
	}
	for k := 0; k < len(ws); k++ {
		// what/how do/does/did X say about: X stays unless it is the
		// ledger itself (the sources, my notes)
		if (ws[k] == "what" || ws[k] == "how") && at(k+1, taskDo) {
			for j := k + 2; j < len(ws) && j <= k+7; j++ {
				if !sayVerbs[ws[j]] {
					continue
				}
				drop[k], drop[k+1], drop[j] = true, true, true
				for x := k + 2; x < j; x++ {
					if taskSources[ws[x]] {
						drop[x] = true
					}
				}
				if at(j+1, sayPreps) {
					drop[j+1] = true
				}
				break
			}
		}
		// citing sources, with citations, including references
		if citeWords[ws[k]] {
			j := k + 1
			for at(j, citeDets) {
				j++
			}
			if at(j, citeNouns) {
				for x := k; x <= j; x++ {
					drop[x] = true
				}
			}
		}
		// according to X
		if ws[k] == "according" && at(k+1, taskTo) {
			drop[k], drop[k+1] = true, true
		}
		// in a paragraph, in two sentences, in 100 words
		if ws[k] == "in" && k+2 < len(ws) && (taskSize[ws[k+1]] || isNumber(ws[k+1])) &&
			at(k+2, inForms) {
			drop[k], drop[k+1], drop[k+2] = true, true, true
		}
	}
	for k, w := range ws {
		if drop[k] {
			task = append(task, w)
		} else {
			keep = append(keep, w)
		}
	}
	return keep, task
}

func isNumber(w string) bool {
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return w != ""
}

// uniqueOut returns the words of ws not in seen, once each, in order.
func uniqueOut(ws []string, seen map[string]bool) []string {
	var out []string
	done := map[string]bool{}
	for _, w := range ws {
		if !seen[w] && !done[w] {
			done[w] = true
			out = append(out, w)
		}
	}
	return out
}
