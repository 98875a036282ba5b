package parse

import (
	"encoding/json"
	"strings"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// pageMeta is the metadata a page declares about itself.
type pageMeta struct {
	Title, Author, PublishedAt, SiteName, Lang, Description string
}

// extractMeta reads the page's own metadata. Each field takes the first
// source that has it, in this order: JSON-LD (Article and its kinds),
// OpenGraph and article:* properties, standard meta tags, then the document
// (<html lang>, <title>, the first <h1>).
func extractMeta(doc *html.Node) pageMeta {
	var ld, og, std, dom pageMeta

	for _, n := range findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Meta }) {
		key := strings.ToLower(strings.TrimSpace(attr(n, "property")))
		if key == "" {
			key = strings.ToLower(strings.TrimSpace(attr(n, "name")))
		}
		if key == "" {
			key = strings.ToLower(strings.TrimSpace(attr(n, "itemprop")))
		}
		val := cleanField(attr(n, "content"))
		if val == "" {
			if strings.EqualFold(attr(n, "http-equiv"), "content-language") {
				setOnce(&std.Lang, langTag(attr(n, "content")))
			}
			continue
		}
		switch key {
		case "og:title":
			setOnce(&og.Title, val)
		case "og:site_name":
			setOnce(&og.SiteName, val)
		case "og:description":
			setOnce(&og.Description, val)
		case "og:locale":
			setOnce(&og.Lang, langTag(val))
		case "article:published_time", "og:article:published_time":
			setOnce(&og.PublishedAt, normDate(val))
		case "article:author", "og:article:author":
			// Often a profile URL rather than a name.
			if !strings.Contains(val, "://") {
				setOnce(&og.Author, val)
			}
		case "author", "dc.creator", "dc:creator", "sailthru.author", "parsely-author", "byl":
			setOnce(&std.Author, cleanAuthor(val))
		case "description", "dc.description":
			setOnce(&std.Description, val)
		case "twitter:title", "dc.title", "citation_title":
			setOnce(&std.Title, val)
		case "twitter:description":
			setOnce(&std.Description, val)
		case "application-name", "apple-mobile-web-app-title":
			setOnce(&std.SiteName, val)
		case "date", "pubdate", "publishdate", "publish-date", "dc.date", "dc.date.issued",
			"citation_publication_date", "datepublished", "sailthru.date", "parsely-pub-date":
			setOnce(&std.PublishedAt, normDate(val))
		case "language", "dc.language":
			setOnce(&std.Lang, langTag(val))
		}
	}

	var ldPage, ldMedia pageMeta
	for _, n := range findAll(doc, func(n *html.Node) bool {
		return n.DataAtom == atom.Script && strings.Contains(strings.ToLower(attr(n, "type")), "ld+json")
	}) {
		var v any
		if json.Unmarshal([]byte(nodeRaw(n)), &v) != nil {
			continue
		}
		walkLD(v, &ld, &ldPage, &ldMedia, 0)
	}

	for _, n := range findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Html }) {
		setOnce(&dom.Lang, langTag(attr(n, "lang")))
		setOnce(&dom.Lang, langTag(attr(n, "xml:lang")))
	}
	if t := findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Title }); len(t) > 0 {
		dom.Title = cleanField(nodeText(t[0]))
	}
	if dom.Title == "" {
		if h := findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.H1 }); len(h) > 0 {
			dom.Title = cleanField(nodeText(h[0]))
		}
	}
	if dom.PublishedAt == "" {
		for _, n := range findAll(doc, func(n *html.Node) bool { return n.DataAtom == atom.Time && attr(n, "datetime") != "" }) {
			if strings.Contains(strings.ToLower(attr(n, "itemprop")+attr(n, "class")+attr(n, "pubdate")), "pub") {
				setOnce(&dom.PublishedAt, normDate(attr(n, "datetime")))
			}
		}
	}

	var m pageMeta
	// A video or other embedded work's JSON-LD names that work (often a
	// short caption), not the page: it comes after OpenGraph.
	for _, src := range []pageMeta{ld, og, ldMedia, ldPage, std, dom} {
		setOnce(&m.Title, src.Title)
		setOnce(&m.Author, src.Author)
		setOnce(&m.PublishedAt, src.PublishedAt)
		setOnce(&m.SiteName, src.SiteName)
		setOnce(&m.Description, src.Description)
	}
	// The document's own lang attribute is the most direct statement.
	for _, src := range []pageMeta{dom, ld, og, ldMedia, ldPage, std} {
		setOnce(&m.Lang, src.Lang)
	}
	m.Title = trimSiteSuffix(m.Title, m.SiteName)
	m.Author = cleanAuthor(m.Author)
	return m
}

// authorLabels are link labels that themes put before an author's name
// ("View all posts by Jo Park"), longest first.
var authorLabels = []string{"view all posts by ", "view all articles by ", "see all posts by ", "all posts by ",
	"more articles by ", "more posts by ", "more from ", "articles by ", "posts by ", "by "}

// cleanAuthor drops a leading "By " or a theme's link label from a byline
// ("By Jo Park", "View all posts by Jo Park" → "Jo Park").
func cleanAuthor(s string) string {
	for _, l := range authorLabels {
		if len(s) > len(l) && strings.EqualFold(s[:len(l)], l) {
			return strings.TrimSpace(s[len(l):])
		}
	}
	return s
}

// walkLD collects fields from JSON-LD objects, following arrays and @graph:
// article kinds into art, embedded works (videos, images, generic creative
// works) into media, WebPage and WebSite into page. The first value found
// for a field wins.
func walkLD(v any, art, page, media *pageMeta, depth int) {
	if depth > 8 {
		return
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			walkLD(e, art, page, media, depth+1)
		}
	case map[string]any:
		if g, ok := x["@graph"]; ok {
			walkLD(g, art, page, media, depth+1)
		}
		types := ldTypes(x["@type"])
		switch {
		case types["webpage"] && len(types) == 1:
			setOnce(&page.Title, cleanField(ldString(x["headline"])))
			setOnce(&page.Description, cleanField(ldString(x["description"])))
			setOnce(&page.PublishedAt, normDate(ldString(x["datePublished"])))
			setOnce(&page.Lang, langTag(ldString(x["inLanguage"])))
		case types["website"]:
			setOnce(&page.SiteName, cleanField(ldString(x["name"])))
		case isArticleType(types):
			dst := art
			if !isMainArticleType(types) {
				dst = media
			}
			title := cleanField(ldString(x["headline"]))
			if title == "" {
				title = cleanField(ldString(x["name"]))
			}
			setOnce(&dst.Title, title)
			setOnce(&dst.Author, ldAuthor(x["author"], 0))
			setOnce(&dst.PublishedAt, normDate(ldString(x["datePublished"])))
			setOnce(&dst.Description, cleanField(ldString(x["description"])))
			setOnce(&dst.Lang, langTag(ldString(x["inLanguage"])))
			if p, ok := x["publisher"].(map[string]any); ok {
				setOnce(&dst.SiteName, cleanField(ldString(p["name"])))
			}
		}
		// An article may sit under mainEntity of a WebPage.
		if e, ok := x["mainEntity"]; ok {
			walkLD(e, art, page, media, depth+1)
		}
	}
}

// articleTypes are the schema.org types whose fields describe the page's
// main content.
var articleTypes = map[string]bool{
	"article": true, "newsarticle": true, "blogposting": true, "reportagenewsarticle": true,
	"analysisnewsarticle": true, "opinionnewsarticle": true, "backgroundnewsarticle": true,
	"techarticle": true, "scholarlyarticle": true, "report": true, "socialmediaposting": true,
	"liveblogposting": true, "discussionforumposting": true, "review": true, "howto": true,
	"recipe": true, "creativework": true, "videoobject": true, "podcastepisode": true,
}

// mediaTypes are the article kinds that usually describe a work embedded
// in the page (a video, a podcast episode) rather than the page itself.
var mediaTypes = map[string]bool{"videoobject": true, "podcastepisode": true, "creativework": true}

// isMainArticleType reports an article kind other than mediaTypes.
func isMainArticleType(types map[string]bool) bool {
	for t := range types {
		if articleTypes[t] && !mediaTypes[t] {
			return true
		}
	}
	return false
}

func isArticleType(types map[string]bool) bool {
	for t := range types {
		if articleTypes[t] {
			return true
		}
	}
	return false
}

// ldTypes returns the lower-cased @type values (a string or an array).
func ldTypes(v any) map[string]bool {
	out := map[string]bool{}
	switch x := v.(type) {
	case string:
		out[strings.ToLower(strings.TrimPrefix(x, "schema:"))] = true
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				out[strings.ToLower(strings.TrimPrefix(s, "schema:"))] = true
			}
		}
	}
	return out
}

// ldString returns a JSON-LD value as text: a string, the first of an array,
// or the @value / name of an object.
func ldString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		if len(x) > 0 {
			return ldString(x[0])
		}
	case map[string]any:
		if s, ok := x["@value"].(string); ok {
			return s
		}
		if s, ok := x["name"].(string); ok {
			return s
		}
	}
	return ""
}

// ldAuthor returns the author names of a JSON-LD author value (a string, a
// Person object, or an array of them), joined with ", ".
func ldAuthor(v any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch x := v.(type) {
	case string:
		if strings.Contains(x, "://") {
			return ""
		}
		return cleanField(x)
	case map[string]any:
		return cleanField(ldString(x["name"]))
	case []any:
		var names []string
		seen := map[string]bool{}
		for _, e := range x {
			if n := ldAuthor(e, depth+1); n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		return strings.Join(names, ", ")
	}
	return ""
}

// nodeRaw is the raw text inside n (a script element).
func nodeRaw(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return b.String()
}

func setOnce(dst *string, val string) {
	if *dst == "" && val != "" {
		*dst = val
	}
}

// cleanField collapses whitespace and unescapes leftover entities of a
// metadata value.
func cleanField(s string) string {
	s = html.UnescapeString(s)
	return strings.Join(strings.Fields(Normalize(s)), " ")
}

// langTag reduces a language tag ("en-US", "en_GB", "de") to its primary
// subtag in lower case ("en", "de"); anything that does not look like a
// language gives "".
func langTag(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "-_,; "); i >= 0 {
		s = s[:i]
	}
	s = strings.ToLower(s)
	if len(s) < 2 || len(s) > 3 {
		return ""
	}
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return ""
		}
	}
	return s
}

// dateLayouts are the date forms pages use, most specific first. Forms
// without a zone are taken as UTC.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05.000Z0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05.000",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05 -0700",
	"2006-01-02 15:04:05 MST",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02 15:04:05",
	"2006/01/02",
	"20060102",
	time.RFC1123Z,
	time.RFC1123,
	time.RFC850,
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"January 2, 2006 15:04",
	"January 2, 2006",
	"Jan 2, 2006",
	"2 January 2006",
	"2 Jan 2006",
}

// normDate parses a date in one of the common forms and returns it as RFC
// 3339 UTC, or "" when it cannot be read.
func normDate(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1900 || t.Year() > 2200 {
				return ""
			}
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// trimSiteSuffix removes a " | Site" or " - Site" tail from a title when it
// names the site.
func trimSiteSuffix(title, site string) string {
	if site == "" {
		return title
	}
	for _, sep := range []string{" | ", " - ", " — ", " – ", " :: ", " · "} {
		if i := strings.LastIndex(title, sep); i > 0 && strings.EqualFold(strings.TrimSpace(title[i+len(sep):]), site) {
			return strings.TrimSpace(title[:i])
		}
	}
	return title
}
