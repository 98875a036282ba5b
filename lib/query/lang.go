package query

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The query language: one string, parsed once here, that ll-find,
// ll-brief, linkledger find/brief and the MCP find and brief tools all
// take (docs/retrieval.md "Query language").
//
//	"exact phrase"   items holding the phrase (its words also rank)
//	-word, -"a b"    items without the word (a letter first) or phrase
//	tag:T            items tagged T (repeated: all of them)
//	site:HOST        items from HOST or a subdomain (repeated: any)
//	type:TYPE        article, x, youtube, pdf, text (repeated: any)
//	after:WHEN       saved at or after WHEN; before:WHEN saved before it
//	                 (a date, an RFC 3339 time, or a span such as 2w)
//	is:pinned        items with a pinned highlight
//	is:archived      archived items (left out otherwise)
//	is:failed        items whose ingest failed
//	is:starred       items a person starred
//	is:read          items read (opened in the reader, marked read, or archived)
//	is:unread        items not read (and not archived)
//	has:highlights   items with a highlight; has:notes with a note
//	by:ACTOR         items annotated by ACTOR (human, agent:NAME; repeated: any)
//
// Anything else is words. A qualifier the language does not know
// (title:x), a known one with a value it does not take (is:blue, type:
// movie) or an empty one (tag:) is kept as plain words, and an
// unbalanced quote runs to the end: no input is a syntax error. Parsing
// is pure; dates are read by the caller (Lang.After, Lang.Before hold
// the text), since they depend on the clock.

// Limits of a parsed query: the text a user can type is unbounded, what
// it becomes is not.
const (
	maxLangItems  = 32  // values per qualifier, phrases, exclusions
	maxValueBytes = 256 // one value
)

// MaxMentions bounds a query's phrases and exclusions together: each is
// a full-text search of its own in the store, whose cost is the rows
// holding its words (a common phrase reads most of the index), so 32
// negated common phrases took 20× a plain query at 10k items (issue 27).
// Past MaxMentions they are left out in order (a phrase's words still
// rank) and Lang.DroppedMentions counts them, for a warning.
const MaxMentions = 8

// Source types type: takes.
var sourceTypes = map[string]bool{"article": true, "x": true, "youtube": true, "pdf": true, "text": true}

// Lang is a parsed query.
type Lang struct {
	// Text is what is searched for and ranked: the plain words and the
	// phrases' words, in order.
	Text string
	// Phrases must each be in an item (title, text or annotations).
	Phrases []string
	// Exclude are words and phrases an item must not hold.
	Exclude []string
	Tags    []string // all of them
	Sites   []string // any of them, lower-case hosts
	Types   []string // any of them
	Actors  []string // any of them
	// After and Before are the raw values of after: and before: (the
	// last of each); the caller reads them as times.
	After, Before string
	Pinned        bool // is:pinned
	Archived      bool // is:archived
	Failed        bool // is:failed
	Starred       bool // is:starred
	Read          bool // is:read
	Unread        bool // is:unread
	HasHighlights bool // has:highlights
	HasNotes      bool // has:notes
	// DroppedMentions counts the phrases and exclusions past MaxMentions,
	// left out of Phrases and Exclude.
	DroppedMentions int
}

// Filtered reports whether the query has any qualifier, phrase or
// exclusion (anything beyond plain words).
func (l Lang) Filtered() bool {
	return len(l.Phrases) > 0 || len(l.Exclude) > 0 || len(l.Tags) > 0 || len(l.Sites) > 0 || len(l.Types) > 0 ||
		len(l.Actors) > 0 || l.After != "" || l.Before != "" || l.Pinned || l.Archived || l.Failed || l.HasHighlights || l.HasNotes ||
		l.Starred || l.Read || l.Unread
}

// token is one piece of the query: a word (perhaps key:value or -word) or
// a quoted phrase, with the prefix before the quote ("" , "-", "key:").
type token struct {
	prefix string
	text   string
	quoted bool
}

// tokens splits s on white space, keeping "quoted phrases" (and a prefix
// glued to their opening quote) together. Typographic double quotes count
// as quotes; an unbalanced quote runs to the end.
func tokens(s string) []token {
	var out []token
	isQuote := func(r rune) bool { return r == '"' || r == '\u201c' || r == '\u201d' || r == '\u201e' }
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		// a word, up to white space or an opening quote
		start := i
		for i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || isQuote(r) {
				break
			}
			i += n
		}
		prefix := s[start:i]
		if i < len(s) && isQuote(r) && (prefix == "" || prefix == "-" || strings.HasSuffix(prefix, ":")) {
			i += n
			end := i
			for end < len(s) {
				q, m := utf8.DecodeRuneInString(s[end:])
				if isQuote(q) {
					break
				}
				end += m
			}
			out = append(out, token{prefix: prefix, text: s[i:end], quoted: true})
			if end < len(s) {
				_, m := utf8.DecodeRuneInString(s[end:])
				end += m
			}
			i = end
			continue
		}
		if i < len(s) && isQuote(r) {
			// a quote inside a word: it ends the word
			i += n
		}
		if prefix != "" {
			out = append(out, token{text: prefix})
		}
	}
	return out
}

// ParseLang parses a query string. It never fails.
func ParseLang(s string) Lang {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, " ")
	}
	var l Lang
	var words []string
	add := func(list *[]string, v string) {
		if len(*list) < maxLangItems {
			*list = append(*list, v)
		}
	}
	// mention adds a phrase or exclusion while there is room for one
	mention := func(list *[]string, v string) {
		if len(l.Phrases)+len(l.Exclude) < MaxMentions {
			*list = append(*list, v)
		} else {
			l.DroppedMentions++
		}
	}
	for _, t := range tokens(s) {
		switch {
		case t.quoted && t.prefix == "":
			if p := phrase(t.text); p != "" {
				mention(&l.Phrases, p)
				words = append(words, p)
			}
			continue
		case t.quoted && t.prefix == "-":
			if p := phrase(t.text); p != "" {
				mention(&l.Exclude, p)
			}
			continue
		case t.quoted:
			if l.qualifier(strings.TrimSuffix(t.prefix, ":"), t.text, add) {
				continue
			}
			words = append(words, t.prefix, t.text)
			continue
		}
		w := t.text
		if r, _ := utf8.DecodeRuneInString(w[min(1, len(w)):]); strings.HasPrefix(w, "-") && len(w) > 1 && unicode.IsLetter(r) {
			// -word (a letter first: -2 is a number, "E2f-1, -2, -3" words)
			mention(&l.Exclude, cutValue(w[1:]))
			continue
		}
		if key, val, ok := strings.Cut(w, ":"); ok && key != "" && l.qualifier(key, val, add) {
			continue
		}
		words = append(words, w)
	}
	l.Text = strings.Join(words, " ")
	return l
}

// qualifier applies key:val and reports whether it is one the language
// takes (else the caller keeps it as words).
func (l *Lang) qualifier(key, val string, add func(*[]string, string)) bool {
	key = strings.ToLower(key)
	val = cutValue(strings.TrimSpace(val))
	if val == "" {
		return false
	}
	lower := strings.ToLower(val)
	switch key {
	case "tag":
		add(&l.Tags, lower)
	case "site":
		host := SiteHost(lower)
		if host == "" {
			return false
		}
		add(&l.Sites, host)
	case "type":
		if !sourceTypes[lower] {
			return false
		}
		add(&l.Types, lower)
	case "after":
		l.After = val
	case "before":
		l.Before = val
	case "by":
		switch {
		case lower == "human":
			add(&l.Actors, lower)
		case strings.HasPrefix(lower, "agent:") && len(val) > len("agent:"):
			add(&l.Actors, "agent:"+val[len("agent:"):])
		default:
			return false
		}
	case "is":
		switch lower {
		case "pinned":
			l.Pinned = true
		case "archived":
			l.Archived = true
		case "failed":
			l.Failed = true
		case "starred", "star":
			l.Starred = true
		case "read":
			l.Read = true
		case "unread":
			l.Unread = true
		default:
			return false
		}
	case "has":
		switch lower {
		case "highlights", "highlight":
			l.HasHighlights = true
		case "notes", "note":
			l.HasNotes = true
		default:
			return false
		}
	default:
		return false
	}
	return true
}

// SiteHost is the host site:VALUE matches: lower-case, without a scheme,
// a path or a leading "www." ("" when nothing is left). The web app's
// library links an item's site with it.
func SiteHost(v string) string {
	host := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "https://"), "http://")
	host, _, _ = strings.Cut(host, "/")
	return cutValue(strings.TrimPrefix(host, "www."))
}

// phrase is a quoted phrase as searched: its white space folded, cut to
// maxValueBytes; "" when it holds no word.
func phrase(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if !hasLetterOrDigit(s) {
		return ""
	}
	return cutValue(s)
}

func cutValue(s string) string {
	if len(s) > maxValueBytes {
		return cutRunes(s, maxValueBytes)
	}
	return s
}
