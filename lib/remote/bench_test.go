package remote_test

import (
	"testing"

	"github.com/linkledger/linkledger/lib/remote"
)

// BenchmarkFind is `linkledger find quokka` on a two-item ledger, in
// process: locally, and through the API on a loopback server (the cost of
// the round trip: JSON, base64, HTTP).
func BenchmarkFind(b *testing.B) {
	f := newFixture(b, remote.Options{})
	for _, mode := range []string{"local", "remote"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var code int
				if mode == "local" {
					code, _, _ = f.local(b, false, "find", "quokka")
				} else {
					code, _, _ = f.remote(b, "r-secret", "find", "quokka")
				}
				if code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
