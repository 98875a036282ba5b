// Command ll-enrich adds an extractive summary, key claims and highlight
// suggestions to parsed records. See lib/cmd/llenrich for its contract.
package main

import (
	"os"

	"github.com/linkledger/linkledger/lib/cmd/llenrich"
)

func main() { os.Exit(llenrich.Main()) }
