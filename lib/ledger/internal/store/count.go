package store

import (
	"context"

	"github.com/linkledger/linkledger/lib/record"
)

// CountItems returns the number of items in the store (for "no matches
// among N items" and the empty-ledger hint at a terminal).
func (s *Store) CountItems(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items`)
	return n, err
}

// pendingCond selects the items of the pending queue (see Queue): saved,
// or failed and due for a retry with fewer than ? attempts at time ?.
const pendingCond = `content_from_record = 0 AND (ingest_status = 'saved' OR (ingest_status = 'failed' AND attempts < ? AND next_retry_at IS NOT NULL AND next_retry_at <= ?))`

// CountPending returns how many items the worker would ingest now: the
// size of the pending queue with maxAttempts (0: DefaultMaxAttempts). It
// is one indexed count, cheap enough to poll (the background worker) and
// to ask on every MCP result that names the worker as its next step.
func (s *Store) CountPending(ctx context.Context, maxAttempts int) (int, error) {
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items WHERE `+pendingCond, maxAttempts, record.FormatTime(s.Now()))
	return n, err
}

// CountNotFetched returns the number of items saved and never fetched
// (ingest status "saved", text not given by the record): their text is
// not searchable until the worker ingests them.
func (s *Store) CountNotFetched(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items WHERE ingest_status = 'saved' AND content_from_record = 0`)
	return n, err
}
