package chunk

import "github.com/linkledger/linkledger/lib/tokens"

// CountTokens returns the number of cl100k_base tokens in s, the count
// OpenAI-style models see (invalid UTF-8 counts as U+FFFD). It is safe for
// concurrent use and needs no vocabulary loading: see package tokens.
func CountTokens(s string) int {
	return tokens.Count(s)
}

// prefixBytes returns the length in bytes of the first n tokens of s (all
// of s when it has n tokens or fewer). For s with invalid UTF-8 the tokens
// are those of s with U+FFFD in place of each invalid sequence, so the
// length may not fall on a boundary of s; callers clamp it.
func prefixBytes(s string, n int) int {
	b, k := 0, 0
	for t := range tokens.Split(s) {
		if k == n {
			return b
		}
		b += len(t)
		k++
	}
	return len(s)
}

// countUpTo returns the number of tokens in s when it is at most limit, and
// limit+1 otherwise. It stops tokenising past limit, so deciding whether a
// 20 MB sentence fits in a chunk costs a scan of s, not a full encoding.
func countUpTo(s string, limit int) int {
	return tokens.CountUpTo(s, limit)
}
