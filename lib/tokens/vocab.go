package tokens

import (
	_ "embed"

	"github.com/linkledger/linkledger/lib/tokens/internal/ranktable"
)

//go:generate go run ./internal/gen -o cl100k_base.bin

// cl100kData is the cl100k_base rank table written by internal/gen from
// tiktoken-go's vocabulary. It is searched in place.
//
//go:embed cl100k_base.bin
var cl100kData []byte

// vocab is the cl100k_base table. Opening it reads only its 16-byte header.
var vocab = func() ranktable.Table {
	t, err := ranktable.Open(cl100kData)
	if err != nil {
		panic("tokens: embedded cl100k_base table: " + err.Error())
	}
	return t
}()

// rank returns the rank of token s and whether s is a cl100k_base token.
func rank(s string) (int, bool) {
	return vocab.Rank(s)
}
