package record

import (
	"strings"
	"unicode"
)

// TagForm is the one form of a tag, wherever tags come in (ll-save
// --tags, linkledger tag, an import's folders and labels, the review
// queue, MCP, and the --tags filter of find): trimmed, lower-cased, and
// each run of white space made one hyphen, so the folder "C Libraries"
// is the tag c-libraries and a tag is one word in every view (#c-libraries)
// and on a command line. Commas and control characters are not changed
// here: the store refuses them.
func TagForm(t string) string {
	f := strings.FieldsFunc(t, unicode.IsSpace)
	return strings.ToLower(strings.Join(f, "-"))
}
