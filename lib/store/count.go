package store

import "context"

// CountItems returns the number of items in the store (for "no matches
// among N items" and the empty-ledger hint at a terminal).
func (s *Store) CountItems(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items`)
	return n, err
}
