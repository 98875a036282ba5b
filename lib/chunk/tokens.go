package chunk

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"
)

// codecOnce loads the cl100k_base vocabulary (embedded in the binary, no
// download) the first time a count is asked for.
var cl100k = sync.OnceValue(func() *codec.Codec {
	c := codec.NewCl100kBase()
	// Invalid UTF-8 is counted as U+FFFD rather than failing the count.
	c.SetErrorMode(codec.ErrorModeReplace)
	return c
})

// CountTokens returns the number of cl100k_base tokens in s, the count
// OpenAI-style models see. It is safe for concurrent use; the vocabulary is
// loaded once per process.
func CountTokens(s string) int {
	if s == "" {
		return 0
	}
	n, err := cl100k().Count(s)
	if err != nil {
		// Count only fails on a regexp runtime error; an estimate of one
		// token per four bytes keeps callers going.
		return (len(strings.TrimSpace(s)) + 3) / 4
	}
	return n
}

// prefixBytes returns the length in bytes of the first n tokens of s (all
// of s when it has n tokens or fewer).
func prefixBytes(s string, n int) int {
	_, toks, err := cl100k().Encode(s)
	if err != nil || len(toks) <= n {
		return len(s)
	}
	b := 0
	for _, t := range toks[:n] {
		b += len(t)
	}
	return b
}
