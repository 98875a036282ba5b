package ledger_test

import (
	"os/exec"
	"strings"
	"testing"
)

// faces are the packages people and agents use linkledger through: the
// commands (linkledger VERB), the MCP server and the web app. They reach
// the database through lib/ledger only, so that none holds logic another
// needs. The filters (lib/cmd/ll*) are not faces: they are the stages of
// the pipeline, and ll-save, ll-index and ll-find open the ledger
// through lib/ledger too (docs/cli.md, "Three faces": TestOneDoor).
var faces = []string{
	"github.com/linkledger/linkledger/lib/cmd/linkledger",
	"github.com/linkledger/linkledger/lib/mcp",
	"github.com/linkledger/linkledger/lib/web",
	"github.com/linkledger/linkledger/lib/serve",
}

// TestFacesDoNotImportStore: no face's non-test files import the store,
// database/sql or a SQLite package directly; each imports lib/ledger.
func TestFacesDoNotImportStore(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	args := append([]string{"list", "-tags", "sqlite_fts5", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}"}, faces...)
	out, err := exec.Command(goBin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		seen[pkg] = true
		viaLedger := false
		for _, imp := range strings.Fields(imports) {
			if bad := forbidden(imp); bad {
				t.Errorf("%s imports %s: a face reaches the store through lib/ledger", pkg, imp)
			}
			viaLedger = viaLedger || imp == "github.com/linkledger/linkledger/lib/ledger"
		}
		if !viaLedger {
			t.Errorf("%s does not import lib/ledger; the check is stale", pkg)
		}
	}
	for _, f := range faces {
		if !seen[f] {
			t.Errorf("go list did not list %s; the check is stale:\n%s", f, out)
		}
	}
}

// forbidden reports whether a face may not import imp.
func forbidden(imp string) bool {
	return imp == "github.com/linkledger/linkledger/lib/ledger/internal/store" || imp == "database/sql" ||
		strings.HasPrefix(imp, "github.com/mattn/go-sqlite3") || strings.HasPrefix(imp, "github.com/jmoiron/sqlx")
}

// TestForbidden: the import check itself.
func TestForbidden(t *testing.T) {
	for imp, want := range map[string]bool{
		"github.com/linkledger/linkledger/lib/ledger/internal/store": true,
		"database/sql":                                true,
		"github.com/mattn/go-sqlite3":                 true,
		"github.com/jmoiron/sqlx":                     true,
		"github.com/linkledger/linkledger/lib/ledger": false,
		"github.com/linkledger/linkledger/lib/cli":    false,
		"net/http": false,
	} {
		if got := forbidden(imp); got != want {
			t.Errorf("forbidden(%q) = %v, want %v", imp, got, want)
		}
	}
}

const (
	module = "github.com/linkledger/linkledger/"
	// storePkg is the store, behind lib/ledger.
	storePkg = module + "lib/ledger/internal/store"
	// door is the one package tree that may import the store.
	door = module + "lib/ledger"
)

// TestOneDoor: lib/ledger is the only door to the store. No package
// outside lib/ledger (the faces, the ll-* filters, the importers, the
// scripts, and their tests, e2e included) imports it; lib/ledger and its
// test fixtures do (so the check is not stale). The compiler keeps this
// for internal/ packages; the test says it to a reader of the tree.
func TestOneDoor(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-f",
		"{{.ImportPath}}|{{join .Imports \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}",
		module+"...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	inside := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imps, ok := strings.Cut(line, "|")
		if !ok {
			t.Fatalf("go list line %q", line)
		}
		if pkg == storePkg || strings.HasPrefix(pkg, storePkg+"/") {
			continue
		}
		for _, imp := range strings.Fields(imps) {
			if imp != storePkg {
				continue
			}
			if pkg == door || strings.HasPrefix(pkg, door+"/") {
				inside++
				continue
			}
			t.Errorf("%s imports the store %s: go through %s", pkg, storePkg, door)
		}
	}
	if inside == 0 {
		t.Errorf("nothing in %s imports %s: the check is stale", door, storePkg)
	}
}

// TestSpecIsLeaf: lib/ledger/spec, the shapes lib/ledger and its store
// share, depends on the standard library, lib/record and lib/query only
// (the last two themselves standard library only), so any package may
// import it without reaching the store, lib/embed or anything heavier.
func TestSpecIsLeaf(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", module+"lib/ledger/spec").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	allowed := map[string]bool{module + "lib/ledger/spec": true, module + "lib/record": true, module + "lib/query": true}
	deps := strings.Fields(string(out))
	if len(deps) < 2 {
		t.Fatalf("lib/ledger/spec depends on %q: the check is stale", deps)
	}
	for _, d := range deps {
		if !allowed[d] {
			t.Errorf("lib/ledger/spec depends on %s: want the standard library, lib/record and lib/query only", d)
		}
	}
}
