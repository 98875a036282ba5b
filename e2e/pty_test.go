package e2e

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// ptyEnv are the variables a pty command passes on from the script: the
// ones the ll-* binaries and the test setup read. (testscript does not
// export the script's whole environment to custom commands.)
var ptyEnv = []string{"PATH", "HOME", "WORK", "TMPDIR", "LINKLEDGER_DB", "LINKLEDGER_BUSY_TIMEOUT",
	"XDG_DATA_HOME", "LL_TESTSERVER", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "PAGER", "LINKLEDGER_PAGER", "LESS"}

// ptyCmd is the script command
//
//	pty [-merged] [-stdin FILE] [-exit N] PROG [ARGS...]
//
// It runs the real binary PROG with its stdout and stderr on
// pseudo-terminals, as for a person at a terminal, and puts what PROG wrote
// there into the script's stdout and stderr for matching. (testscript's
// ttyin gives a terminal to stdin only.) With -merged, stdout and stderr
// share one terminal, as in a terminal window, and everything goes to the
// script's stdout: that shows whether progress and records interleave.
// The terminals pass bytes through unchanged (no \n to \r\n). Stdin is FILE
// or empty. -exit N expects exit status N (default 0; with ! any failure).
func ptyCmd(ts *testscript.TestScript, neg bool, args []string) {
	merged, stdin, want := false, "", 0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-merged":
			merged = true
			args = args[1:]
		case "-stdin", "-exit":
			if len(args) < 2 {
				ts.Fatalf("usage: pty [-merged] [-stdin FILE] [-exit N] PROG [ARGS...]")
			}
			if args[0] == "-stdin" {
				stdin = args[1]
			} else {
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				want = n
			}
			args = args[2:]
		default:
			ts.Fatalf("pty: unknown option %s", args[0])
		}
	}
	if len(args) == 0 {
		ts.Fatalf("usage: pty [-merged] [-stdin FILE] [-exit N] PROG [ARGS...]")
	}
	path, err := lookPath(args[0], ts.Getenv("PATH"))
	ts.Check(err)

	outM, outS, err := openPTY()
	if errors.Is(err, errNoPTY) {
		ts.Fatalf("pty: %v", err)
	}
	ts.Check(err)
	defer outM.Close()
	errM, errS := outM, outS
	if !merged {
		errM, errS, err = openPTY()
		ts.Check(err)
		defer errM.Close()
	}

	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ptyEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Stdout, cmd.Stderr = outS, errS
	if stdin != "" {
		f, err := os.Open(ts.MkAbs(stdin))
		ts.Check(err)
		defer f.Close()
		cmd.Stdin = f
	}
	ts.Check(cmd.Start())
	// Only the child holds the terminals now: when it exits, reading the
	// other ends ends (EIO).
	outS.Close()
	if !merged {
		errS.Close()
	}
	var wg sync.WaitGroup
	var outB, errB bytes.Buffer
	drain := func(m *os.File, b *bytes.Buffer) {
		defer wg.Done()
		io.Copy(b, m) // ends with EIO once the child has exited
	}
	wg.Add(1)
	go drain(outM, &outB)
	if !merged {
		wg.Add(1)
		go drain(errM, &errB)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	runErr := cmd.Wait()
	timer.Stop()
	wg.Wait()
	ts.Stdout().Write(outB.Bytes())
	ts.Stderr().Write(errB.Bytes())

	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
	case runErr != nil:
		ts.Fatalf("pty %s: %v", args[0], runErr)
	}
	switch {
	case neg && code == 0:
		ts.Fatalf("pty %s: unexpected success", args[0])
	case !neg && code != want:
		ts.Fatalf("pty %s: exit status %d, want %d", args[0], code, want)
	}
}

func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", errors.New(name + ": not found on the script's PATH")
}

var errNoPTY = errors.New("pseudo-terminals are not supported on this system")
