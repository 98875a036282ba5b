package chunk

import (
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

// TestPrefixBytesMatchesTiktoken checks prefixBytes and CountTokens against
// the tiktoken-go code they replaced: the sum of the lengths of the first n
// tokens tiktoken-go's Encode returns, or len(s) when there are n or fewer.
func TestPrefixBytesMatchesTiktoken(t *testing.T) {
	c := codec.NewCl100kBase()
	c.SetErrorMode(codec.ErrorModeReplace)
	inputs := []string{
		"", "hello", "hello world, it's 2024!", "naïve café 東京都 🎉🎉",
		"https://example.com/a/very/long/path?with=query&and=more#fragment",
		strings.Repeat("ab", 100), "bad \xff\xfe bytes \xe2\x82 here", "a\x7fb\n \n c",
	}
	for _, s := range inputs {
		_, toks, err := c.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := CountTokens(s); got != len(toks) {
			t.Errorf("CountTokens(%q) = %d, tiktoken-go %d", s, got, len(toks))
		}
		for n := 0; n <= len(toks)+1; n++ {
			want := len(s)
			if len(toks) > n {
				want = 0
				for _, tok := range toks[:n] {
					want += len(tok)
				}
			}
			if got := prefixBytes(s, n); got != want {
				t.Errorf("prefixBytes(%q, %d) = %d, want %d", s, n, got, want)
			}
		}
	}
}
