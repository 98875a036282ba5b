// Command ll-save records links, notes, tags and annotations in the store.
// See lib/cmd/llsave for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

func main() { os.Exit(llsave.Main()) }
