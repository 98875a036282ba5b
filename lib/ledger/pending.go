package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
)

// CountPending is how many saved items wait for the worker now: the
// pending queue, failed items retried below maxAttempts (0: the
// default). The faces say it when they name the worker as the next step,
// and the ingest loop polls it.
func CountPending(ctx context.Context, st *store.Store, maxAttempts int) (int, error) {
	return st.CountPending(ctx, maxAttempts)
}
