package store

import (
	"context"
	"strings"

	"github.com/linkledger/linkledger/lib/query"
)

// maxAbsentWords bounds how many words Absent looks up in one call.
const maxAbsentWords = 16

// Absent returns the words (lower case, as lib/query parses them) that no
// item's title, text or annotations hold: the words a search looked for
// and could not match anywhere, so a face can say so (`no item contains
// "quokka"`) rather than drop them silently. One statement of bounded
// FTS5 lookups (an EXISTS stops at the first row); at most
// maxAbsentWords words are looked up.
func (s *Store) Absent(ctx context.Context, words []string) ([]string, error) {
	if len(words) > maxAbsentWords {
		words = words[:maxAbsentWords]
	}
	if len(words) == 0 {
		return nil, nil
	}
	var b strings.Builder
	args := make([]any, 0, len(words))
	b.WriteString("SELECT ")
	for i, w := range words {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("EXISTS (SELECT 1 FROM search WHERE search MATCH ?)")
		args = append(args, query.Quote(w))
	}
	found := make([]bool, len(words))
	dest := make([]any, len(words))
	for i := range found {
		dest[i] = &found[i]
	}
	if err := s.db.QueryRowContext(ctx, b.String(), args...).Scan(dest...); err != nil {
		return nil, err
	}
	var out []string
	for i, w := range words {
		if !found[i] {
			out = append(out, w)
		}
	}
	return out, nil
}
