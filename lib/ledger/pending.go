package ledger

import (
	"context"
)

// CountPending is how many saved items wait for the worker now: the
// pending queue, failed items retried below maxAttempts (0: the
// default). The faces say it when they name the worker as the next step,
// and the ingest loop polls it.
func (l *Ledger) CountPending(ctx context.Context, maxAttempts int) (int, error) {
	st := l.st
	return st.CountPending(ctx, maxAttempts)
}
