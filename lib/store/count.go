package store

import "context"

// CountItems returns the number of items in the store (for "no matches
// among N items" and the empty-ledger hint at a terminal).
func (s *Store) CountItems(ctx context.Context) (int, error) {
	var n int
	err := s.db.GetContext(ctx, &n, `SELECT count(*) FROM items`)
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
