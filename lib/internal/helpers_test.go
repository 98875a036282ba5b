package internal_test

import (
	"os/exec"
	"strings"
	"testing"
)

const (
	module  = "github.com/linkledger/linkledger/"
	helpers = module + "lib/internal/"
	// ledgertest is the fixture package of the tests over lib/ledger.
	ledgertest = module + "lib/ledger/ledgertest"
	// storePkg is the store, which every binary links.
	storePkg = module + "lib/ledger/internal/store"
)

// TestTestHelpersNotShipped: the packages under lib/internal are test
// helpers: no package's non-test files import them (so no binary links
// them), while test files do (so the check is not stale).
func TestTestHelpersNotShipped(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-f",
		"{{.ImportPath}}|{{join .Imports \" \"}}|{{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		"github.com/linkledger/linkledger/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	usedByTests := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		if len(parts) != 3 {
			t.Fatalf("go list line %q", line)
		}
		pkg := parts[0]
		for _, imp := range strings.Fields(parts[1]) {
			if (strings.HasPrefix(imp, helpers) && !strings.HasPrefix(pkg, helpers)) || imp == ledgertest {
				t.Errorf("%s imports the test helper %s in a non-test file", pkg, imp)
			}
		}
		for _, imp := range strings.Fields(parts[2]) {
			if strings.HasPrefix(imp, helpers) || imp == ledgertest {
				usedByTests[imp] = true
			}
		}
	}
	for _, h := range []string{"golden", "sharedtest"} {
		if !usedByTests[helpers+h] {
			t.Errorf("no test imports %s%s: the check is stale", helpers, h)
		}
	}
	if !usedByTests[ledgertest] {
		t.Errorf("no test imports %s: the check is stale", ledgertest)
	}
	deps, err := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-deps", "github.com/linkledger/linkledger/cmd/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, deps)
	}
	if !strings.Contains(string(deps), storePkg) {
		t.Fatalf("go list -deps of the binaries does not list lib/store: the check is stale:\n%s", deps)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, helpers) || d == ledgertest {
			t.Errorf("a binary links the test helper %s", d)
		}
	}
}
