package findflags

import (
	"context"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/store"
)

// OpenStore opens the database for ll-find and ll-brief: a short busy
// timeout, since their only write (the revalidation mark) may be skipped,
// and a preallocated page cache (store.Options.PagePool), since a query
// reads hundreds of pages into a fresh process. A missing database is an
// error (exit 1), never created: a reader writes no file.
func OpenStore(ctx context.Context, c *ucli.Command, env cli.Env) (*store.Store, error) {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return nil, err
	}
	return cli.OpenReader(ctx, loc, store.Options{BusyTimeout: 250 * time.Millisecond, PagePool: PagePoolSlots})
}

// PagePoolSlots is the page-cache pool of ll-find and ll-brief: 1024 pages
// (4 MB) hold a typical query's reads on the 10k-item benchmark store.
const PagePoolSlots = 1024

// MarkStale sets revalidate_due on the ids; a failure is only a -v
// diagnostic, never a failed search.
func MarkStale(ctx context.Context, st *store.Store, ids []string, diag cli.Diag) {
	if err := st.MarkRevalidate(ctx, ids); err != nil {
		diag.Debugf("revalidation mark skipped: %v", err)
	}
}
