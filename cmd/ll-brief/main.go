// Command ll-brief builds an evidence pack under a token budget. See
// lib/cmd/llbrief for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llbrief"
)

func main() { os.Exit(llbrief.Main()) }
