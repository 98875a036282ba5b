package linkledger

import (
	"github.com/linkledger/linkledger/lib/cmd/llbrief"
	"github.com/linkledger/linkledger/lib/cmd/llfetch"
	"github.com/linkledger/linkledger/lib/cmd/llfind"
	"github.com/linkledger/linkledger/lib/cmd/llindex"
	"github.com/linkledger/linkledger/lib/cmd/llparse"
	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

// DefaultFilters are the ll-* filters the front command forwards to.
func DefaultFilters() Filters {
	return Filters{
		"ll-save":  llsave.Command,
		"ll-fetch": llfetch.Command,
		"ll-parse": llparse.Command,
		"ll-index": llindex.Command,
		"ll-find":  llfind.Command,
		"ll-brief": llbrief.Command,
	}
}
