package store

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// ClaimLease is how long a claim of a pending item holds (ClaimPending):
// long enough for a slow fetch (ll-fetch's default timeout and retries)
// and parse of the item and of the few claimed with it, short enough
// that the items of a loop killed mid-pass are taken over soon.
const ClaimLease = 10 * time.Minute

// unclaimedCond is true of an item no loop holds a live claim on at time ?.
const unclaimedCond = `NOT EXISTS (SELECT 1 FROM ingest_claims c WHERE c.item_id = it.id AND c.until > ?)`

// ClaimPending claims up to opts.Limit items of the pending queue (all of
// them when 0) that no other loop holds a live claim on, for lease (0:
// ClaimLease), and returns their records as Queue does. Reading and
// claiming are one IMMEDIATE transaction, so two loops claiming at once
// never take the same item. Index releases an item's claim when it stores
// the item's result; an unreleased claim expires after the lease.
func (s *Store) ClaimPending(ctx context.Context, opts QueueOptions, lease time.Duration) ([]*record.Record, error) {
	if lease <= 0 {
		lease = ClaimLease
	}
	opts.Queue = QueuePending
	now := s.Now()
	var out []*record.Record
	err := s.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if out, err = s.queue(ctx, tx, opts, unclaimedCond, record.FormatTime(now)); err != nil {
			return err
		}
		until := record.FormatTime(now.Add(lease))
		for _, r := range out {
			if _, err := tx.ExecContext(ctx, `INSERT INTO ingest_claims(item_id, until) VALUES (?, ?)
				ON CONFLICT(item_id) DO UPDATE SET until = excluded.until`, r.ID, until); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// CountClaimable is CountPending without the items another loop holds a
// live claim on: what a claiming pass would take now (the ingest loop
// polls it, so it does not run passes that find every item claimed).
func (s *Store) CountClaimable(ctx context.Context, maxAttempts int) (int, error) {
	if maxAttempts <= 0 {
		maxAttempts = DefaultMaxAttempts
	}
	now := record.FormatTime(s.Now())
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items it WHERE `+pendingCond+` AND `+unclaimedCond, maxAttempts, now, now)
	return n, err
}

// releaseClaim ends an item's claim: its result is stored.
func releaseClaim(ctx context.Context, tx dbtx, itemID string) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM ingest_claims WHERE item_id = ?`, itemID)
	return err
}
