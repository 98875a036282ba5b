package serve

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
)

// BenchmarkCheckToken: what a request pays to be authenticated (the
// tokens read afresh and every hash compared), with 20 tokens.
func BenchmarkCheckToken(b *testing.B) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	var sec string
	for i := 0; i < 20; i++ {
		if sec, err = l.AddToken(ctx, fmt.Sprintf("agent:a%d", i), "write"); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.CheckToken(ctx, sec); err != nil {
			b.Fatal(err)
		}
	}
}
