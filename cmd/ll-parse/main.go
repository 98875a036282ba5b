// Command ll-parse turns fetched bodies into text, metadata and chunks.
// See lib/cmd/llparse for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llparse"
)

func main() { os.Exit(llparse.Main()) }
