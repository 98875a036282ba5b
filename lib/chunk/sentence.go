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

// Sentences splits a paragraph into lines and each line into sentences. A
// sentence ends at . ! ? or … (with any closing quotes or brackets) followed
// by a space and a character that can start a sentence; common
// abbreviations and single initials do not end one.
func Sentences(text string) []Sentence {
	var out []Sentence
	for li, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		sep := "\n"
		if li == 0 || len(out) == 0 {
			sep = ""
		}
		for _, s := range splitLine(line) {
			out = append(out, Sentence{Text: s, Sep: sep})
			sep = " "
		}
	}
	return out
}

// splitLine splits one line into sentences.
func splitLine(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		if r != '.' && r != '!' && r != '?' && r != '…' && r != '。' {
			continue
		}
		// Take closing punctuation and repeated terminators.
		end := i
		for end < len(line) {
			r2, s2 := utf8.DecodeRuneInString(line[end:])
			if !strings.ContainsRune(`.!?…"'”’)]»`, r2) {
				break
			}
			end += s2
		}
		if end >= len(line) {
			break
		}
		if r == '。' {
			out = append(out, strings.TrimSpace(line[start:end]))
			start, i = end, end
			continue
		}
		next, _ := utf8.DecodeRuneInString(line[end:])
		if next != ' ' {
			i = end
			continue
		}
		after := strings.TrimLeft(line[end:], " ")
		if after == "" {
			break
		}
		first, _ := utf8.DecodeRuneInString(after)
		if !(unicode.IsUpper(first) || unicode.IsDigit(first) || strings.ContainsRune(`"'“‘([¿¡«`, first) || unicode.Is(unicode.Han, first)) {
			i = end
			continue
		}
		if r == '.' && isAbbreviation(line[start:i-1]) {
			i = end
			continue
		}
		out = append(out, strings.TrimSpace(line[start:end]))
		start = len(line) - len(after)
		i = start
	}
	if rest := strings.TrimSpace(line[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}

// isAbbreviation reports whether the word before a period is a known
// abbreviation or a single letter (an initial).
func isAbbreviation(before string) bool {
	k := strings.LastIndexAny(before, " (\"'“")
	word := before[k+1:]
	if word == "" {
		return false
	}
	if utf8.RuneCountInString(word) == 1 {
		r, _ := utf8.DecodeRuneInString(word)
		return unicode.IsLetter(r)
	}
	return abbreviations[strings.ToLower(word)]
}
