// Package source assembles the per-source pieces of linkledger (YouTube, X,
// PDF, generic web pages) into the lists the filters use: the parse adapter
// chain for ll-parse and ll-index.
package source

import (
	"github.com/linkledger/linkledger/lib/parse"
)

// Options configures the source adapters. It is filled by the command layer
// from flags; the zero value gives the defaults.
type Options struct{}

// Adapters returns the parse adapter chain in order of preference: specific
// sources first, then the generic ones (article, markdown, plain text, and
// visible text as the last resort). parse.Run uses the first adapter that
// matches and falls back down the list on failure.
func Adapters(opts Options) []parse.Adapter {
	var list []parse.Adapter
	// Source-specific adapters go here, before the generic chain.
	list = append(list, parse.Article(), parse.Markdown(), parse.PlainText(), parse.VisibleText())
	return list
}
