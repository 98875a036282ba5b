package parse

import (
	"github.com/RadhiFadlillah/whatlanggo"
)

// langSample is how much text language detection looks at.
const langSample = 2000

// detectLang guesses the language of text from its letter trigrams and
// returns its ISO 639-1 code, or "" when the text is short or the guess is
// not reliable. It is used only when the page does not declare a language.
func detectLang(text string) string {
	if len(text) < 200 {
		return ""
	}
	if len(text) > langSample {
		cut := langSample
		for cut > 0 && text[cut]&0xC0 == 0x80 {
			cut--
		}
		text = text[:cut]
	}
	info := whatlanggo.Detect(text)
	if !info.IsReliable() {
		return ""
	}
	return info.Lang.Iso6391()
}
