// Command ll-fetch downloads the pages and files records point at.
// See lib/cmd/llfetch for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llfetch"
)

func main() { os.Exit(llfetch.Main()) }
