package chunk

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence is one sentence of a paragraph and the whitespace that separated
// it from the previous one (" " or "\n"; "" for the first).
type Sentence struct {
	Text string
	Sep  string
}

// abbreviations end with a period but rarely end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true, "st": true,
	"vs": true, "etc": true, "e.g": true, "i.e": true, "cf": true, "al": true, "fig": true, "no": true,
	"vol": true, "pp": true, "p": true, "ca": true, "approx": true, "inc": true, "ltd": true, "co": true,
	"corp": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "u.s": true, "u.k": true, "gen": true,
	"gov": true, "sen": true, "rep": true, "lt": true, "col": true, "capt": true, "mt": true, "ft": true,
	"z.b": true, "usw": true, "bzw": true, "ggf": true, "vgl": true, "nr": true,
}

// Sentences splits a paragraph into sentences. A sentence ends at . ! ? or
// … (with any closing quotes or brackets) followed by whitespace and a
// character that can start a sentence; common abbreviations and single
// initials do not end one. A line break inside a paragraph is whitespace:
// hard-wrapped lines (PDF text) do not cut sentences, and the break is kept
// as the separator when it falls between two sentences.
func Sentences(text string) []Sentence {
	var out []Sentence
	start := 0
	sepBefore := func(ws string) string {
		if len(out) == 0 || ws == "" {
			return ""
		}
		if strings.Contains(ws, "\n") {
			return "\n"
		}
		return " "
	}
	// Skip leading whitespace.
	trimmed := strings.TrimLeft(text, " \t\n")
	start = len(text) - len(trimmed)
	pendingWS := ""
	emit := func(end, next int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, Sentence{Text: s, Sep: sepBefore(pendingWS)})
		}
		pendingWS = text[end:next]
		start = next
	}
	for i := start; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if r != '.' && r != '!' && r != '?' && r != '…' && r != '。' {
			continue
		}
		// Take closing punctuation and repeated terminators.
		end := i
		for end < len(text) {
			r2, s2 := utf8.DecodeRuneInString(text[end:])
			if !strings.ContainsRune(`.!?…"'”’)]»`, r2) {
				break
			}
			end += s2
		}
		if end >= len(text) {
			break
		}
		if r == '。' {
			next := end + len(text[end:]) - len(strings.TrimLeft(text[end:], " \t\n"))
			emit(end, next)
			i = next
			continue
		}
		if c := text[end]; c != ' ' && c != '\n' && c != '\t' {
			i = end
			continue
		}
		after := strings.TrimLeft(text[end:], " \t\n")
		if after == "" {
			break
		}
		first, _ := utf8.DecodeRuneInString(after)
		if !(unicode.IsUpper(first) || unicode.IsDigit(first) || strings.ContainsRune(`"'“‘([¿¡«`, first) || unicode.Is(unicode.Han, first)) {
			i = end
			continue
		}
		if r == '.' && isAbbreviation(text[start:i-1]) {
			i = end
			continue
		}
		if isEllipsis(text[i-size:end]) && !strings.Contains(text[end:len(text)-len(after)], "\n") {
			// an ellipsis is a pause (a quote's omission), not an end,
			// unless the line ends there
			i = end
			continue
		}
		if inQuotedPhrase(text, start, end) {
			i = end
			continue
		}
		next := len(text) - len(after)
		emit(end, next)
		i = next
	}
	if start < len(text) {
		emit(len(text), len(text))
	}
	return out
}

// isAbbreviation reports whether the word before a period is a known
// abbreviation, a single letter (an initial) or single letters joined by
// periods (initials "W.M", times "a.m", "U.S").
func isAbbreviation(before string) bool {
	k := strings.LastIndexAny(before, " \n(\"'“")
	word := before[k+1:]
	if word == "" {
		return false
	}
	if abbreviations[strings.ToLower(word)] {
		return true
	}
	for _, part := range strings.Split(word, ".") {
		if utf8.RuneCountInString(part) != 1 {
			return false
		}
		if r, _ := utf8.DecodeRuneInString(part); !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// isEllipsis reports whether a run of terminators is an ellipsis ("…",
// "...").
func isEllipsis(run string) bool {
	return strings.Contains(run, "…") || strings.Contains(run, "...")
}

// maxQuoteLookahead bounds how far past a terminator the end of an open
// quotation is looked for.
const maxQuoteLookahead = 600

// inQuotedPhrase reports whether the terminator that ends at end stands
// inside a quotation (opened since start, not yet closed) that is part of
// a longer sentence: its closing mark follows a comma (“… OUT,” Noem
// tweeted) or is followed by a lower-case word or , ; : (a viral “Meth.
// We’re on it.” campaign). A quotation that closes a sentence of its
// own may still be split at its periods.
func inQuotedPhrase(text string, start, end int) bool {
	seg := text[start:end]
	var closeMark string
	switch {
	case strings.Count(seg, "“") > strings.Count(seg, "”"):
		closeMark = "”"
	case strings.Count(seg, "\"")%2 == 1:
		closeMark = "\""
	default:
		return false
	}
	rest := text[end:min(len(text), end+maxQuoteLookahead)]
	k := strings.Index(rest, closeMark)
	if k < 0 {
		return false
	}
	if strings.HasSuffix(strings.TrimRight(rest[:k], " "), ",") {
		return true
	}
	after := strings.TrimLeft(rest[k+len(closeMark):], " ")
	if after == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(after)
	return unicode.IsLower(r) || strings.ContainsRune(",;:", r)
}

// Span is a sentence's place in a text: the byte range [Start, End) of
// its words, without the white space around them.
type Span struct{ Start, End int }

// SentenceSpans splits text into sentences, as Sentences does within each
// paragraph (paragraphs end at a blank line), and returns where each one
// stands: text[s.Start:s.End] is the sentence exactly as written. A
// "sentence" longer than maxBytes (a run of text with no terminator: a
// list, a table) is given in pieces cut at white space (maxBytes 0: no
// bound).
func SentenceSpans(text string, maxBytes int) []Span {
	var out []Span
	for _, para := range paragraphSpans(text) {
		p := text[para.Start:para.End]
		at := 0
		for _, s := range Sentences(p) {
			i := strings.Index(p[at:], s.Text)
			if i < 0 {
				continue // cannot happen: a sentence is a trimmed run of p
			}
			start := para.Start + at + i
			at += i + len(s.Text)
			out = appendBounded(out, text, Span{start, start + len(s.Text)}, maxBytes)
		}
	}
	return out
}

// paragraphSpans returns the runs of text between blank lines, trimmed.
func paragraphSpans(text string) []Span {
	var out []Span
	start := 0
	flush := func(end int) {
		s, e := start, end
		for s < e && isSpace(text[s]) {
			s++
		}
		for e > s && isSpace(text[e-1]) {
			e--
		}
		if e > s {
			out = append(out, Span{s, e})
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		if rest := strings.TrimLeft(text[i+1:], " \t\r"); strings.HasPrefix(rest, "\n") {
			flush(i)
			start = i + 1
		}
	}
	flush(len(text))
	return out
}

// appendBounded appends sp, cut into pieces of at most maxBytes at white
// space when it is longer.
func appendBounded(out []Span, text string, sp Span, maxBytes int) []Span {
	for maxBytes > 0 && sp.End-sp.Start > maxBytes {
		cut := sp.Start + maxBytes
		for cut > sp.Start && !isSpace(text[cut]) {
			cut--
		}
		if cut == sp.Start {
			cut = sp.Start + maxBytes
			for cut < sp.End && !utf8.RuneStart(text[cut]) {
				cut++
			}
		}
		e := cut
		for e > sp.Start && isSpace(text[e-1]) {
			e--
		}
		out = append(out, Span{sp.Start, e})
		sp.Start = cut
		for sp.Start < sp.End && isSpace(text[sp.Start]) {
			sp.Start++
		}
	}
	if sp.End > sp.Start {
		out = append(out, sp)
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }
