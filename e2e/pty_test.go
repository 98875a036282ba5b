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
var ptyEnv = []string{"PATH", "HOME", "WORK", "TMPDIR", "LINKLEDGER_DB", "LINKLEDGER_BUSY_TIMEOUT", "LINKLEDGER_LOOPBACK_ONLY",
	"XDG_DATA_HOME", "LL_TESTSERVER", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "PAGER", "LINKLEDGER_PAGER", "LESS"}

// ptyCmd is the script command
//
//	pty [-merged] [-stdin FILE] [-ttyin] [-type KEYS] [-after TEXT] [-exit N] PROG [ARGS...]
//
// It runs the real binary PROG with its stdout and stderr on
// pseudo-terminals, as for a person at a terminal, and puts what PROG wrote
// there into the script's stdout and stderr for matching. (testscript's
// ttyin gives a terminal to stdin only.) With -merged, stdout and stderr
// share one terminal, as in a terminal window, and everything goes to the
// script's stdout: that shows whether progress and records interleave.
// The terminals pass bytes through unchanged (no \n to \r\n). Stdin is FILE
// or empty; with -ttyin it is a terminal too (line mode, Ctrl-C sends
// SIGINT: it is PROG's controlling terminal), on which -type KEYS is typed
// once PROG has written TEXT (-after; default: at once) on stderr (or the
// merged terminal). In KEYS, ^C is Ctrl-C, ^D is Ctrl-D and \n a newline.
// -exit N expects exit status N (default 0; with ! any failure).
func ptyCmd(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: pty [-merged] [-stdin FILE] [-ttyin] [-type KEYS] [-after TEXT] [-exit N] PROG [ARGS...]"
	merged, ttyin, stdin, keys, after, want := false, false, "", "", "", 0
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-merged":
			merged = true
			args = args[1:]
		case "-ttyin":
			ttyin = true
			args = args[1:]
		case "-stdin", "-exit", "-type", "-after":
			if len(args) < 2 {
				ts.Fatalf(usage)
			}
			switch args[0] {
			case "-stdin":
				stdin = args[1]
			case "-type":
				keys = strings.NewReplacer("^C", "\x03", "^D", "\x04", `\n`, "\n").Replace(args[1])
			case "-after":
				after = args[1]
			default:
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				want = n
			}
			args = args[2:]
		default:
			ts.Fatalf("pty: unknown option %s", args[0])
		}
	}
	if len(args) == 0 || (ttyin && stdin != "") || (keys != "" && !ttyin) {
		ts.Fatalf(usage)
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
	var inM *os.File
	if ttyin {
		var inS *os.File
		inM, inS, err = openInputPTY()
		ts.Check(err)
		defer inM.Close()
		defer inS.Close()
		cmd.Stdin = inS
		// a session of its own with this terminal as its controlling
		// terminal, so that Ctrl-C on it reaches PROG as at a shell
		cmd.SysProcAttr = ttyAttr()
	}
	ts.Check(cmd.Start())
	// Only the child holds the terminals now: when it exits, reading the
	// other ends ends (EIO).
	outS.Close()
	if !merged {
		errS.Close()
	}
	var wg sync.WaitGroup
	var outB, errB lockedBuffer
	drain := func(m *os.File, b *lockedBuffer) {
		defer wg.Done()
		io.Copy(b, m) // ends with EIO once the child has exited
	}
	wg.Add(1)
	go drain(outM, &outB)
	if !merged {
		wg.Add(1)
		go drain(errM, &errB)
	}
	if keys != "" {
		watch := &errB
		if merged {
			watch = &outB
		}
		for deadline := time.Now().Add(time.Minute); after != "" && !strings.Contains(watch.String(), after); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				ts.Fatalf("pty %s: %q never came on the terminal", args[0], after)
			}
		}
		_, err := inM.Write([]byte(keys))
		ts.Check(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	runErr := cmd.Wait()
	timer.Stop()
	wg.Wait()
	ts.Stdout().Write([]byte(outB.String()))
	ts.Stderr().Write([]byte(errB.String()))

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

// lockedBuffer is a bytes.Buffer that one goroutine fills while another
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
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
