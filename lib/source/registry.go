// Package source assembles the per-source pieces of linkledger (YouTube, X,
// PDF, generic web pages) into the lists the filters use: the parse adapter
// chain for ll-parse and ll-index, and the source functions ll-fetch calls
// instead of a plain GET for YouTube and X.
package source

import (
	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/source/pdf"
	"github.com/linkledger/linkledger/lib/source/xpost"
	"github.com/linkledger/linkledger/lib/source/youtube"
)

// Options configures the source adapters. It is filled by the command layer
// from flags; the zero value gives the defaults.
type Options struct {
	// YouTubeBase replaces https://www.youtube.com (ll-fetch --youtube-base).
	YouTubeBase string
	// Langs is the transcript language preference, best first; "orig" is
	// the video's own language (ll-fetch --lang). Empty: en, then orig.
	Langs []string
	// XSyndicationBase, XFxBase and XOEmbedBase replace the X upstreams
	// (ll-fetch --x-syndication-base, --x-fx-base, --x-oembed-base).
	XSyndicationBase string
	XFxBase          string
	XOEmbedBase      string
	// PDFPassword is the user password for encrypted PDFs (ll-parse
	// --pdf-password).
	PDFPassword string
	// MaxTextBytes caps the text read from external extractors (pdftotext)
	// (ll-parse --max-text-bytes; 0: parse.DefaultMaxTextBytes).
	MaxTextBytes int
	// MainText are the article adapter's extractors: ll-parse and
	// ll-index pass lib/parse/mainext's; without them HTML pages fall
	// back to their visible text (ll-fetch, which only fetches, does not
	// link them).
	MainText parse.MainText
}

// Adapters returns the parse adapter chain in order of preference: specific
// sources first, then the generic ones (article, markdown, plain text, and
// visible text as the last resort). parse.Run uses the first adapter that
// matches and falls back down the list on failure.
func Adapters(opts Options) []parse.Adapter {
	var list []parse.Adapter
	// Source-specific adapters go here, before the generic chain.
	list = append(list,
		youtube.Adapter(),
		xpost.Adapter(),
		pdf.Adapter(pdf.Options{Password: opts.PDFPassword, MaxTextBytes: opts.MaxTextBytes}),
	)
	list = append(list, parse.Article(opts.MainText), parse.Markdown(), parse.PlainText(), parse.VisibleText())
	return list
}

// Fetchers returns the ll-fetch source functions by source type: YouTube
// and X records are fetched through their own endpoints into a JSON bundle
// (docs/sources.md); every other type is a plain GET.
func Fetchers(opts Options) map[string]fetch.SourceFunc {
	return map[string]fetch.SourceFunc{
		record.SourceYouTube: youtube.Fetcher(youtube.Options{BaseURL: opts.YouTubeBase, Langs: opts.Langs}),
		record.SourceX: xpost.Fetcher(xpost.Options{
			SyndicationBase: opts.XSyndicationBase,
			FxBase:          opts.XFxBase,
			OEmbedBase:      opts.XOEmbedBase,
		}),
	}
}
