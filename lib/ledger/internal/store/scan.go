package store

import (
	"context"

	"github.com/jmoiron/sqlx"
)

// queryRows runs q on conn and calls each with every row's Scan. The
// search path's reads scan into their fields directly: sqlx maps a
// struct's fields by reflection on each type's first use in a process,
// ~0.3 ms of a one-word ll-find across its reads.
func queryRows(ctx context.Context, conn *sqlx.Conn, q string, args []any, each func(scan func(dest ...any) error) error) error {
	rows, err := conn.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}
