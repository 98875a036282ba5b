// Package inprocess gives the front command the ll-* filters compiled in,
// to run in its own process (tests, or a single binary). The linkledger
// binary itself runs the installed ll-* binaries instead
// (linkledger.ExecFilters): linking every filter would make each
// `linkledger VERB` pay every filter's start-up.
package inprocess

import (
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/llbrief"
	"github.com/linkledger/linkledger/lib/cmd/llembed"
	"github.com/linkledger/linkledger/lib/cmd/llenrich"
	"github.com/linkledger/linkledger/lib/cmd/llfetch"
	"github.com/linkledger/linkledger/lib/cmd/llfind"
	"github.com/linkledger/linkledger/lib/cmd/llimport"
	"github.com/linkledger/linkledger/lib/cmd/llindex"
	"github.com/linkledger/linkledger/lib/cmd/llparse"
	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

// Filters are the ll-* filters, in process.
func Filters() linkledger.Filters {
	return linkledger.Filters{
		"ll-save":   llsave.Command,
		"ll-import": llimport.Command,
		"ll-fetch":  llfetch.Command,
		"ll-parse":  llparse.Command,
		"ll-enrich": llenrich.Command,
		"ll-embed":  llembed.Command,
		"ll-index":  llindex.Command,
		"ll-find":   llfind.Command,
		"ll-brief":  llbrief.Command,
	}
}
