package e2e

import (
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// mkfifo PATH makes a named pipe in the script's work folder (testscript
// has no mkfifo of its own).
func mkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mkfifo PATH")
	}
	ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o600))
}
