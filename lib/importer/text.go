package importer

import (
	"regexp"
	"strings"
)

// Plain URL lists: one URL per line; blank lines and lines starting with #
// are skipped.
var urlList = register(&Format{
	Name: "urls", Tool: "urls",
	Doc: "a plain list of URLs, one per line (# starts a comment)",
	Read: func(data []byte, s *Sink) error {
		return eachLine(data, s, func(line int, b []byte) error {
			t := strings.TrimSpace(strings.TrimPrefix(string(b), "\ufeff"))
			if t == "" || strings.HasPrefix(t, "#") {
				return nil
			}
			return emit(s, &Link{URL: t, Line: line})
		})
	},
})

func looksLikeURLList(head []byte) bool {
	for _, l := range strings.Split(string(head), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
	}
	return false
}

// Markdown: every link — [text](url "title"), <url>, reference
// definitions [text]: url, and bare http(s) URLs — with its link text as
// the title. Images (![alt](src)) are not links. A URL seen twice in one
// file is one link (the first text wins).
var markdown = register(&Format{
	Name: "markdown", Tool: "markdown",
	Doc:  "Markdown notes: every link with its link text",
	Read: readMarkdown,
})

var (
	mdInline = regexp.MustCompile(`(!?)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]+(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+["'(][^)]*["')])?\s*\)`)
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	mdAuto   = regexp.MustCompile(`<(https?://[^>\s]+)>`)
	mdBare   = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]+`)
)

func readMarkdown(data []byte, s *Sink) error {
	seen := map[string]bool{}
	inFence := false
	return eachLine(data, s, func(line int, b []byte) error {
		t := string(b)
		if strings.HasPrefix(strings.TrimSpace(t), "```") {
			inFence = !inFence
			return nil
		}
		if inFence {
			return nil
		}
		var found []*Link
		add := func(u, text string) {
			u = strings.TrimSpace(u)
			if u == "" || strings.HasPrefix(u, "#") || seen[u] {
				return
			}
			if lu := strings.ToLower(u); !strings.HasPrefix(lu, "http://") && !strings.HasPrefix(lu, "https://") {
				return // a link to another note or a mailto:, not a web link
			}
			seen[u] = true
			found = append(found, &Link{URL: u, Title: stripMarkdown(text), Line: line})
		}
		rest := t
		if m := mdRefDef.FindStringSubmatch(t); m != nil {
			add(m[2], m[1])
			rest = ""
		}
		for _, m := range mdInline.FindAllStringSubmatch(rest, -1) {
			if m[1] == "" {
				add(m[3], m[2])
			}
		}
		rest = mdInline.ReplaceAllString(rest, " ")
		for _, m := range mdAuto.FindAllStringSubmatch(rest, -1) {
			add(m[1], "")
		}
		rest = mdAuto.ReplaceAllString(rest, " ")
		for _, u := range mdBare.FindAllString(rest, -1) {
			add(strings.TrimRight(u, ".,;:!?*_"), "")
		}
		for _, l := range found {
			if err := emit(s, l); err != nil {
				return err
			}
		}
		return nil
	})
}

var mdEmph = strings.NewReplacer("**", "", "__", "", "`", "")

func stripMarkdown(s string) string { return cleanText(mdEmph.Replace(s)) }
