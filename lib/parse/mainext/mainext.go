// Package mainext runs the two main-text extractors behind the article
// adapter: go-trafilatura and codeberg.org/readeck/go-readability.
//
// It is a package of its own because linking those libraries costs every
// process about 17 ms of package initialisation (their regular
// expressions and tables) before main runs. lib/parse takes the two
// functions below as values (parse.MainText), so a program that never
// extracts an article, ll-fetch, which links the source adapters for
// their fetch side, does not pay for them; ll-parse and ll-index pass
// them in. mainext imports nothing of linkledger's, so lib/parse's own
// tests can use it.
package mainext

import (
	nurl "net/url"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	trafilatura "github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// Readability returns the article node go-readability finds in doc.
func Readability(doc *html.Node, u *nurl.URL) (*html.Node, error) {
	a, err := readability.FromDocument(doc, u)
	return a.Node, err
}

// Trafilatura runs go-trafilatura on doc (comments excluded, its fast date
// search) and returns the main-content node and the metadata it found.
// With fallback it may compare its result with readability's node and
// DOM Distiller's and take theirs.
func Trafilatura(doc *html.Node, u *nurl.URL, fallback bool, readabilityNode *html.Node) (content *html.Node, title, author, site, description string, date time.Time, err error) {
	opts := trafilatura.Options{
		OriginalURL:     u,
		EnableFallback:  fallback,
		ExcludeComments: true,
		HtmlDateMode:    trafilatura.Fast,
	}
	if fallback && readabilityNode != nil {
		opts.FallbackCandidates = &trafilatura.FallbackCandidates{Readability: readabilityNode}
	}
	r, err := trafilatura.ExtractDocument(doc, opts)
	if err != nil || r == nil {
		return nil, "", "", "", "", time.Time{}, err
	}
	md := r.Metadata
	return r.ContentNode, md.Title, md.Author, md.Sitename, md.Description, md.Date, nil
}
