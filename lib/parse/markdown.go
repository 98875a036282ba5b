package parse

import (
	"path"
	"regexp"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

type markdownAdapter struct{}

func (markdownAdapter) Name() string { return "markdown" }

func (markdownAdapter) Match(rec *record.Record) bool {
	if rec.Body == nil {
		return false
	}
	switch mediaType(rec) {
	case "text/markdown", "text/x-markdown":
		return true
	case "text/plain", "":
		u := rec.URL
		if rec.Fetch != nil && rec.Fetch.FinalURL != "" {
			u = rec.Fetch.FinalURL
		}
		if i := strings.IndexAny(u, "?#"); i >= 0 {
			u = u[:i]
		}
		switch strings.ToLower(path.Ext(u)) {
		case ".md", ".markdown", ".mdown", ".mkd":
			return !isHTML(rec)
		}
	}
	return false
}

func (markdownAdapter) Parse(rec *record.Record) (*Result, error) {
	res := &Result{}
	body := strings.ReplaceAll(*rec.Body, "\r\n", "\n")
	body = frontMatter(body, res)
	text, heading := stripMarkdown(body)
	if res.Title == "" {
		res.Title = heading
	}
	text = Normalize(text)
	if text == "" {
		return nil, errNoText
	}
	res.Segments = paragraphSegments(text)
	// the file is its own structure
	res.Markdown = strings.TrimSpace(body)
	return res, nil
}

// frontMatter reads a YAML (---) or TOML (+++) front matter block at the
// start of body into res (title, author, date, description) and returns the
// rest of the body.
func frontMatter(body string, res *Result) string {
	for _, fence := range []string{"---", "+++"} {
		if !strings.HasPrefix(body, fence+"\n") {
			continue
		}
		end := strings.Index(body[len(fence)+1:], "\n"+fence)
		if end < 0 {
			return body
		}
		block := body[len(fence)+1 : len(fence)+1+end]
		rest := body[len(fence)+1+end+len(fence)+1:]
		if i := strings.IndexByte(rest, '\n'); i >= 0 && strings.TrimSpace(rest[:i]) == "" {
			rest = rest[i+1:]
		}
		for _, line := range strings.Split(block, "\n") {
			k, v, ok := strings.Cut(line, ":")
			if fence == "+++" {
				k, v, ok = strings.Cut(line, "=")
			}
			if !ok {
				continue
			}
			v = strings.Trim(strings.TrimSpace(v), `"'`)
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "title":
				setOnce(&res.Title, cleanField(v))
			case "author":
				setOnce(&res.Author, cleanField(v))
			case "date", "published", "published_at":
				setOnce(&res.PublishedAt, normDate(v))
			case "description", "summary":
				setOnce(&res.Description, cleanField(v))
			case "lang", "language":
				setOnce(&res.Lang, langTag(v))
			}
		}
		return rest
	}
	return body
}

var (
	mdImage     = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	mdLink      = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	mdRefLink   = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	mdRefDef    = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*\S+.*$`)
	mdAutolink  = regexp.MustCompile(`<((?:https?|mailto):[^>\s]+)>`)
	mdHeading   = regexp.MustCompile(`^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	mdSetext    = regexp.MustCompile(`^\s{0,3}(=+|-+)\s*$`)
	mdRule      = regexp.MustCompile(`^\s{0,3}([-*_])(\s*([-*_])){2,}\s*$`)
	mdList      = regexp.MustCompile(`^(\s*)(?:[-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?`)
	mdQuote     = regexp.MustCompile(`^\s{0,3}(>\s?)+`)
	mdStrong    = regexp.MustCompile(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	mdEmph      = regexp.MustCompile(`(^|[\s(])[*_](\S(?:[^*_]*?\S)?)[*_]([\s).,;:!?]|$)`)
	mdStrike    = regexp.MustCompile(`~~(.+?)~~`)
	mdCode      = regexp.MustCompile("`+([^`]+)`+")
	mdTableSep  = regexp.MustCompile(`^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$`)
	mdHTMLTag   = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	mdFenceOpen = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
)

// stripMarkdown turns Markdown into plain text: headings become their text,
// links and images their text, emphasis and inline code lose their marks,
// fenced code is kept as text, list and quote markers go. It also returns
// the first heading (the title when there is no front matter).
func stripMarkdown(md string) (string, string) {
	var out []string
	var title string
	lines := strings.Split(md, "\n")
	fence := ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if fence != "" {
			if strings.HasPrefix(strings.TrimSpace(line), fence) {
				fence = ""
				out = append(out, "")
				continue
			}
			out = append(out, line)
			continue
		}
		if m := mdFenceOpen.FindStringSubmatch(line); m != nil {
			fence = m[1]
			out = append(out, "")
			continue
		}
		if mdRefDef.MatchString(line) || mdTableSep.MatchString(line) {
			continue
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			h := inlineMarkdown(m[1])
			if title == "" && strings.HasPrefix(strings.TrimSpace(line), "# ") {
				title = cleanField(h)
			}
			out = append(out, "", h, "")
			continue
		}
		// Setext heading: a text line underlined with === or ---.
		if i+1 < len(lines) && strings.TrimSpace(line) != "" && mdSetext.MatchString(lines[i+1]) && !mdList.MatchString(line) {
			h := inlineMarkdown(line)
			if title == "" && strings.Contains(lines[i+1], "=") {
				title = cleanField(h)
			}
			out = append(out, "", h, "")
			i++
			continue
		}
		if mdRule.MatchString(line) {
			out = append(out, "")
			continue
		}
		line = mdQuote.ReplaceAllString(line, "")
		if mdList.MatchString(line) {
			// Each list item on its own line.
			line = mdList.ReplaceAllString(line, "")
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "|") && strings.HasSuffix(t, "|") {
			cells := strings.Split(strings.Trim(t, "|"), "|")
			for k := range cells {
				cells[k] = strings.TrimSpace(cells[k])
			}
			line = strings.Join(cells, " ")
		}
		out = append(out, inlineMarkdown(line))
	}
	return strings.Join(out, "\n"), title
}

// inlineMarkdown removes inline markup from one line.
func inlineMarkdown(s string) string {
	s = mdImage.ReplaceAllString(s, "$1")
	s = mdLink.ReplaceAllString(s, "$1")
	s = mdRefLink.ReplaceAllString(s, "$1")
	s = mdAutolink.ReplaceAllString(s, "$1")
	s = mdCode.ReplaceAllString(s, "$1")
	s = mdStrong.ReplaceAllString(s, "$2")
	s = mdEmph.ReplaceAllString(s, "$1$2$3")
	s = mdStrike.ReplaceAllString(s, "$1")
	s = mdHTMLTag.ReplaceAllString(s, "")
	return s
}
