// Command ll-save records links, notes, tags and annotations in the store.
// See lib/cmd/llsave for its input/output contract.
package main

import (
	"os"
	"runtime/debug"

	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

func main() {
	// ll-save's heap stays small, so the collector runs after every few
	// MB allocated: at 4x growth instead of 2x an import (--batch) spends
	// ~12% less time (docs/benchmarks.md, Import). GOGC still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(llsave.Main())
}
