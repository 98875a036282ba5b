// Command ll-find searches saved links. See lib/cmd/llfind for its
// input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llfind"
)

func main() { os.Exit(llfind.Main()) }
