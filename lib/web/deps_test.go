package web

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoStoreImports: the web app is a face over lib/ledger; it reaches
// the database through the service layer only, so it imports neither the
// store nor database/sql (its non-test files, directly).
func TestNoStoreImports(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-tags", "sqlite_fts5", "-f", "{{join .Imports \"\\n\"}}", "github.com/linkledger/linkledger/lib/web").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := strings.Fields(string(out))
	found := false
	for _, imp := range imports {
		switch {
		case imp == "github.com/linkledger/linkledger/lib/ledger":
			found = true
		case imp == "github.com/linkledger/linkledger/lib/store", imp == "database/sql",
			strings.HasPrefix(imp, "github.com/mattn/go-sqlite3"), strings.HasPrefix(imp, "github.com/jmoiron/sqlx"):
			t.Errorf("lib/web imports %s: go through lib/ledger", imp)
		}
	}
	if !found {
		t.Fatalf("lib/web does not import lib/ledger; the check is stale:\n%s", out)
	}
}
