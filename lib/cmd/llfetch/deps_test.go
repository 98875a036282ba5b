package llfetch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFetchDoesNotLinkExtractors: ll-fetch links the source adapters (for
// their fetch side) but not the article extractors, whose package init
// would cost it ~17 ms at every start (see lib/parse/mainext).
func TestFetchDoesNotLinkExtractors(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-tags", "sqlite_fts5", "github.com/linkledger/linkledger/cmd/ll-fetch").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := string(out)
	if !strings.Contains(deps, "github.com/linkledger/linkledger/lib/source\n") {
		t.Fatalf("ll-fetch does not link lib/source; the check is stale:\n%s", deps)
	}
	for _, heavy := range []string{"lib/parse/mainext", "go-trafilatura", "go-readability", "go-domdistiller"} {
		if strings.Contains(deps, heavy) {
			t.Errorf("ll-fetch links %s", heavy)
		}
	}
}
