package findflags

import (
	"context"
	"fmt"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

// SayNext tells a person at a terminal, in "hint:" lines on stderr, the
// next step after a search for q that showed n items, best first (best:
// ledger.BestHit or BestPacked): the command that reads the best item's
// text, or for weak matches a narrower query and the overview; then how
// many items wait for the worker and the command that ingests them.
// ledger.SearchNext decides the step, as it does for the MCP tools' next
// field. Callers call it only when Output.Hints says so, so pipes get
// nothing; a search that showed nothing goes to SayNoMatch instead.
func SayNext(ctx context.Context, l *ledger.Ledger, diag cli.Diag, q string, n int, best ledger.Best) {
	if n == 0 {
		return
	}
	if line := ledger.AbsentLine(l.Absent(ctx, q, n, best)); line != "" {
		diag.Printf("%s", line)
	}
	switch next := ledger.SearchNext(q, n, best, false); next.Step {
	case ledger.StepRead:
		diag.Hintf("read the best one with: linkledger show %s --text", next.Item)
	case ledger.StepNarrow:
		diag.Hintf("weak matches (the best has %d of the query's %d words): narrow the query, or see the tags, sites and words the ledger holds with: linkledger overview", next.Matched, next.Words)
	}
	// (ledger.StepIngest, the best item not fetched yet: the count says it)
	if w := l.PendingNext(ctx); w > 0 {
		diag.Hintf("%s not fetched yet (found by URL, note and tags only): ingest %s with: %s", items(w), plural(w, "it", "them"), ledger.IngestHint)
	}
}

// items is "1 item" or "n items".
func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}
