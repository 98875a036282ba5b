// Command ll-index writes fetched or parsed records into the store.
// See lib/cmd/llindex for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llindex"
)

func main() { os.Exit(llindex.Main()) }
