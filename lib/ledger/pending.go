package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/store"
)

// CountPending is how many saved items wait for the worker now (the
// pending queue with the default retry limit): what the faces say when
// they name the worker as the next step.
func CountPending(ctx context.Context, st *store.Store) (int, error) {
	return st.CountPending(ctx, 0)
}
