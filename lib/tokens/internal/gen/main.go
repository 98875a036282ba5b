// Command gen writes the cl100k_base rank table that package tokens embeds.
// It reads the vocabulary from tiktoken-go (rank by rank, through its
// Decode) and lays it out with ranktable.Build. It reads nothing else and
// writes only the file named by -o. Run it with go generate in lib/tokens.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/linkledger/linkledger/lib/tokens/internal/ranktable"
	"github.com/tiktoken-go/tokenizer/codec"
)

// slotBits sizes the table: 2^17 slots for about 100k tokens is 76% full,
// which keeps the file small (fewer pages for a fresh process to touch)
// while Robin Hood placement keeps probes short.
const slotBits = 17

func main() {
	out := flag.String("o", "cl100k_base.bin", "file to write")
	flag.Parse()
	data, err := build()
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

// build returns the table for tiktoken-go's cl100k_base vocabulary.
func build() ([]byte, error) {
	toks, err := vocab()
	if err != nil {
		return nil, err
	}
	return ranktable.Build(toks, slotBits)
}

// vocab returns cl100k_base's ordinary tokens indexed by rank. Ranks are
// dense from 0; special tokens such as <|endoftext|> sit above a gap and are
// not part of it (tiktoken-go's Count and Encode treat them as plain text).
func vocab() ([]string, error) {
	c := codec.NewCl100kBase() // default error mode: Decode returns raw bytes
	var toks []string
	for {
		s, err := c.Decode([]uint{uint(len(toks))})
		if err != nil {
			break
		}
		toks = append(toks, s)
	}
	if len(toks) < 256 {
		return nil, fmt.Errorf("cl100k_base: only %d tokens", len(toks))
	}
	// The first missing rank must end the vocabulary, not open a hole.
	for id := len(toks) + 1; id < len(toks)+1024; id++ {
		if _, err := c.Decode([]uint{uint(id)}); err == nil {
			return nil, errors.New("cl100k_base: ranks are not dense")
		}
	}
	return toks, nil
}
