// Command linkledger is the front command: `linkledger VERB ...` forwards to
// the ll-* binaries (git-style) and composes them (worker, retry). See
// lib/cmd/linkledger.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
)

func main() {
	os.Exit(linkledger.Main(linkledger.ExecFilters(linkledger.ExecutableDir()), cli.OSEnv(), os.Args))
}
