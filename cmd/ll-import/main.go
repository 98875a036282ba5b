// Command ll-import reads other tools' export files into ll-save records.
// See lib/cmd/llimport for its input/output contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llimport"
)

func main() { os.Exit(llimport.Main()) }
