// Command embedfake serves lib/embed/embedfake, the deterministic fake
// embeddings endpoint, on a loopback port, for trying semantic search
// without a model (make eval-retrieval, make bench): it prints its base
// URL (http://127.0.0.1:PORT/v1) on stdout and serves until stdin closes
// or it is killed. Its vectors hash words (and a few synonyms): they say
// nothing about a real model's quality, only about linkledger's cost.
//
//	embedfake [-addr 127.0.0.1:0]
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"

	"github.com/linkledger/linkledger/lib/embed/embedfake"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "embedfake:", err)
		os.Exit(1)
	}
	fmt.Printf("http://%s/v1\n", ln.Addr())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	if err := http.Serve(ln, &embedfake.Server{}); err != nil {
		fmt.Fprintln(os.Stderr, "embedfake:", err)
		os.Exit(1)
	}
}
