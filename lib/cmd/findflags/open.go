package findflags

import (
	"context"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

// OpenStore opens the database for ll-find and ll-brief: a short busy
// timeout, since their only write (the revalidation mark) may be skipped,
// and a preallocated page cache (ledger.OpenOptions.PagePool), since a query
// reads hundreds of pages into a fresh process. The stored decay policy
// is read with open's check (ledger.OpenOptions.ReadPolicies): both commands
// resolve it once, right after opening. A missing database is an error
// (exit 1), never created: a reader writes no file.
func OpenStore(ctx context.Context, c *ucli.Command, env cli.Env) (*ledger.Ledger, error) {
	loc, err := cli.LocateDB(cli.Flags(c).String("db"), env)
	if err != nil {
		return nil, err
	}
	return cli.OpenReader(ctx, loc, ledger.OpenOptions{BusyTimeout: 250 * time.Millisecond, PagePool: PagePoolSlots, ReadPolicies: true})
}

// PagePoolSlots is the page-cache pool of ll-find and ll-brief: 480 pages,
// which the store rounds up to one 2 MB huge page (495 slots with this
// SQLite). SQLite's default cache_size (2,000 KiB) holds at most ~490
// pages a connection, and a search uses one connection at a time (on the
// 10k-item benchmark store every query and brief filled 487-491 slots at
// most): the earlier 1,024 slots only cost prefaulting time.
const PagePoolSlots = 480

// MarkStale sets revalidate_due on the ids; a failure is only a -v
// diagnostic, never a failed search.
func MarkStale(ctx context.Context, l *ledger.Ledger, ids []string, diag cli.Diag) {
	if err := l.MarkRevalidate(ctx, ids); err != nil {
		diag.Debugf("revalidation mark skipped: %v", err)
	}
}
