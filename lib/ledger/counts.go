package ledger

import (
	"context"
)

// Counts are the ledger's sizes a face shows beside an empty answer: how
// many items it holds, and how many of them wait for the worker (saved,
// never fetched, so their text is not searched yet).
type Counts struct {
	Items      int `json:"items"`
	NotFetched int `json:"not_fetched"`
}

// IngestHint is the command that ingests the items that wait.
const IngestHint = "linkledger worker"

// CountItems returns the ledger's Counts.
func (l *Ledger) CountItems(ctx context.Context) (Counts, error) {
	st := l.st
	var c Counts
	var err error
	if c.Items, err = st.CountItems(ctx); err != nil || c.Items == 0 {
		return c, err
	}
	c.NotFetched, err = st.CountNotFetched(ctx)
	return c, err
}
