// Command ll-embed adds an embedding vector to each chunk of parsed
// records. See lib/cmd/llembed for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llembed"
)

func main() { os.Exit(llembed.Main()) }
