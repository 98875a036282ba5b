package linkledger

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
)

// BenchmarkVersion is the front command's own cost at every start: build
// the command tree and run it (here --version, which runs no filter).
func BenchmarkVersion(b *testing.B) {
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: os.Getenv, Getwd: os.Getwd}
	for b.Loop() {
		if code := Run(context.Background(), nil, env, []string{"linkledger", "--version"}); code != 0 {
			b.Fatal(code)
		}
	}
}
