// Package e2e runs the testscript scripts in testdata/script: the real
// ll-* commands, each a separate process (the test binary re-executed under
// the command's name), chained through real pipes with sh.
//
// Every script gets:
//   - LINKLEDGER_DB=$WORK/ll.db and HOME=$WORK (nothing outside $WORK is touched)
//   - LL_TESTSERVER: the base URL of a local HTTP server serving
//     testdata/site (plus a few dynamic paths, see server.go)
//   - LL_OTHERSERVER: a second such server (another origin); LL_PORT and
//     LL_OTHERPORT: the two servers' ports
//
// and two commands besides testscript's: llcheck (a store's integrity after
// a crash, check_test.go) and pty (a binary run with stdout and stderr on
// pseudo-terminals, as for a person, pty_test.go).
package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, commands())
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"llcheck": llcheck, "llevents": llevents, "pty": ptyCmd, "mkfifo": mkfifo, "mkzip": mkzip, "mkzipfill": mkzipfill, "mksparse": mksparse, "llsql": llsql, "sqlexec": sqlexec},
		// [litestream]: a litestream binary (bin/litestream from make
		// setup, or LINKLEDGER_LITESTREAM) is there; scripts name it with
		// $LL_LITESTREAM
		Condition: func(cond string) (bool, error) {
			if cond == "litestream" {
				return litestreamBinary() != "", nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("LINKLEDGER_DB", env.WorkDir+"/ll.db")
			env.Setenv("LL_LITESTREAM", litestreamBinary())
			// Nothing a script fetches may leave loopback (docs/fetch.md).
			env.Setenv("LINKLEDGER_LOOPBACK_ONLY", "1")
			env.Setenv("HOME", env.WorkDir)
			env.Setenv("XDG_DATA_HOME", env.WorkDir+"/.local/share")
			srv := newTestServer()
			env.Defer(srv.Close)
			env.Setenv("LL_TESTSERVER", srv.URL)
			// a second loopback server (another origin: another port),
			// with its own fakes and counters
			other := newTestServer()
			env.Defer(other.Close)
			env.Setenv("LL_OTHERSERVER", other.URL)
			env.Setenv("LL_PORT", strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port))
			env.Setenv("LL_OTHERPORT", strconv.Itoa(other.Listener.Addr().(*net.TCPAddr).Port))
			return nil
		},
	})
}

// litestreamBinary is LINKLEDGER_LITESTREAM, else the checkout's
// bin/litestream (make setup builds it there), else "".
func litestreamBinary() string {
	if p := os.Getenv("LINKLEDGER_LITESTREAM"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", "bin", "litestream"))
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return p
}

// exitWith adapts a Main() int to the func() testscript wants.
func exitWith(main func() int) func() { return func() { os.Exit(main()) } }
