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
// the pipeline, and ll-save, ll-index and ll-find open the store
// themselves (docs/cli.md, "Three faces").
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
	return imp == "github.com/linkledger/linkledger/lib/store" || imp == "database/sql" ||
		strings.HasPrefix(imp, "github.com/mattn/go-sqlite3") || strings.HasPrefix(imp, "github.com/jmoiron/sqlx")
}

// TestForbidden: the import check itself.
func TestForbidden(t *testing.T) {
	for imp, want := range map[string]bool{
		"github.com/linkledger/linkledger/lib/store": true,
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
