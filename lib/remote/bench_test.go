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

// BenchmarkTerminalSafe is the client's filter on 1 MiB of coloured human
// form (what a remote find at a terminal gets), in bytes per second.
func BenchmarkTerminalSafe(b *testing.B) {
	line := []byte("\x1b[2m 1.\x1b[0m \x1b[1mThe quokka's island\x1b[0m\n    \x1b[36mhttps://example.com/quokka\x1b[0m\n    …is home to about ten thousand \x1b[1;33mquokkas\x1b[0m, small marsupials\n")
	var in []byte
	for len(in) < 1<<20 {
		in = append(in, line...)
	}
	b.SetBytes(int64(len(in)))
	for i := 0; i < b.N; i++ {
		if out := remote.TerminalSafe(in); len(out) != len(in) {
			b.Fatalf("%d bytes out of %d", len(out), len(in))
		}
	}
}
