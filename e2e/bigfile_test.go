package e2e

import (
	"archive/zip"
	"bytes"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/linkledger/linkledger/lib/cli"
)

// mksparse FILE SIZE makes a sparse file of SIZE (as --max-bytes takes
// it: 2GiB), written in no time and taking no disk.
func mksparse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mksparse FILE SIZE")
	}
	n, err := cli.ParseSize(args[1])
	ts.Check(err)
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	ts.Check(f.Truncate(n))
	ts.Check(f.Close())
}

// mkzipfill ZIP NAME=SIZE[:TEXT]... writes a zip whose member NAME holds
// SIZE bytes: TEXT (default "a") repeated, deflated as it is written, so
// a big member costs no memory and a small file.
func mkzipfill(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mkzipfill ZIP NAME=SIZE[:TEXT]...")
	}
	f, err := os.Create(ts.MkAbs(args[0]))
	ts.Check(err)
	zw := zip.NewWriter(f)
	for _, a := range args[1:] {
		name, spec, ok := bytes.Cut([]byte(a), []byte("="))
		if !ok {
			ts.Fatalf("mkzipfill: %q: want NAME=SIZE[:TEXT]", a)
		}
		size, text, _ := bytes.Cut(spec, []byte(":"))
		if len(text) == 0 {
			text = []byte("a")
		}
		text, err = unquoteText(text)
		ts.Check(err)
		n, err := cli.ParseSize(string(size))
		ts.Check(err)
		w, err := zw.Create(string(name))
		ts.Check(err)
		chunk := bytes.Repeat(text, max(1, (1<<20)/len(text)))
		for n > 0 {
			b := chunk
			if int64(len(b)) > n {
				b = b[:n]
			}
			_, err := w.Write(b)
			ts.Check(err)
			n -= int64(len(b))
		}
	}
	ts.Check(zw.Close())
	ts.Check(f.Close())
}

// unquoteText reads TEXT as a Go string literal when quoted ("> a\n").
func unquoteText(b []byte) ([]byte, error) {
	if len(b) > 0 && b[0] == '"' {
		s, err := strconv.Unquote(string(b))
		return []byte(s), err
	}
	return b, nil
}
