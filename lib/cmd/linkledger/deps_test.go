package linkledger

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFrontDoesNotLinkFilters: the linkledger binary runs the filters as
// processes and links none of their code, least of all the article
// extractors, whose package init (~37 ms) every `linkledger VERB` would
// pay (see lib/parse/mainext).
func TestFrontDoesNotLinkFilters(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-deps", "-tags", "sqlite_fts5", "github.com/linkledger/linkledger/cmd/linkledger").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := string(out)
	if !strings.Contains(deps, "github.com/linkledger/linkledger/lib/cmd/linkledger\n") {
		t.Fatalf("cmd/linkledger does not link lib/cmd/linkledger; the check is stale:\n%s", deps)
	}
	for _, heavy := range []string{"lib/parse/mainext", "go-trafilatura", "go-readability", "go-domdistiller",
		"lib/cmd/llparse", "lib/cmd/llfetch", "lib/cmd/llindex", "lib/cmd/llfind", "lib/cmd/llsave", "lib/cmd/llbrief"} {
		if strings.Contains(deps, heavy) {
			t.Errorf("linkledger links %s", heavy)
		}
	}
}
