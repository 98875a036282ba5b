// Command tokencount prints the cl100k_base token count of each file named
// on the command line (or of stdin when none is), one "COUNT NAME" line per
// file, counted by lib/tokens as linkledger counts a brief. Used by
// scripts/judged-review.py to size what an agent reads.
//
//	tokencount [FILE ...]
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/linkledger/linkledger/lib/tokens"
)

func main() {
	if len(os.Args) < 2 {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tokencount: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%d -\n", tokens.Count(string(b)))
		return
	}
	for _, name := range os.Args[1:] {
		b, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "tokencount: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("%d %s\n", tokens.Count(string(b)), name)
	}
}
