package store

// A bulk writer inside a long-running process (linkledger ui's import):
// the page cache and sub-journals of ll-save --batch without opening the
// store again (a process holding the store must not open its file twice).

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/linkledger/linkledger/lib/record"
)

// Bulk is one connection of the store set up as a bulk writer's: a page
// cache of BulkCacheKiB for as long as it is held (an import's
// transactions change pages all over the item, tag, event and search
// indexes; with SQLite's 2 MiB they are read and spilled again and again,
// and an import slows as the ledger grows). Close gives the connection
// back to the pool with its page cache as it was.
type Bulk struct {
	s    *Store
	conn *sqlx.Conn
	old  int
}

// Bulk takes one connection of the pool for a bulk writer.
func (s *Store) Bulk(ctx context.Context) (*Bulk, error) {
	conn, err := s.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	b := &Bulk{s: s, conn: conn}
	if err := conn.GetContext(ctx, &b.old, "PRAGMA cache_size"); err != nil {
		conn.Close()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -BulkCacheKiB)); err != nil {
		conn.Close()
		return nil, err
	}
	return b, nil
}

// SaveBatch is Store.SaveBatch on the bulk writer's connection.
func (b *Bulk) SaveBatch(ctx context.Context, recs []*record.Record, opts SaveOptions) ([]BatchResult, error) {
	return b.s.saveBatch(ctx, b.tx, recs, opts)
}

func (b *Bulk) tx(ctx context.Context, fn func(*sqlx.Tx) error) error {
	tx, err := b.conn.BeginTxx(ctx, nil)
	return runTx(tx, err, fn)
}

// Close sets the connection's page cache back (freeing the bulk pages)
// and gives it back to the pool.
func (b *Bulk) Close() error {
	_, err := b.conn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA cache_size = %d", b.old))
	if cerr := b.conn.Close(); err == nil {
		err = cerr
	}
	return err
}
