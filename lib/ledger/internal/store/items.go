package store

import (
	"context"
	"database/sql"
	"errors"
)

// ItemExists reports whether an item with id is in the store.
func (s *Store) ItemExists(ctx context.Context, id string) (bool, error) {
	var one int
	err := s.db.GetContext(ctx, &one, `SELECT 1 FROM items WHERE id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}
