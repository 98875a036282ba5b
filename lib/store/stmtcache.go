package store

import (
	"context"
	"database/sql"

	"github.com/jmoiron/sqlx"
)

// dbtx is what the save path needs of a transaction: *sqlx.Tx, or a
// stmtTx that prepares each statement once for a whole batch.
type dbtx interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error)
}

// stmtTx is a transaction whose statements are prepared on first use and
// kept, keyed by their SQL text, until close. database/sql with
// mattn/go-sqlite3 prepares every Exec and Get anew; a batch of 500
// records runs the same dozen statements thousands of times, and
// preparing them was about a third of an import's time (docs/benchmarks.md).
type stmtTx struct {
	tx    *sqlx.Tx
	stmts map[string]*sqlx.Stmt
	// writes counts ExecContext calls (every write of the save path is
	// one), so SaveBatch can tell a record refused before any write
	writes int
}

func newStmtTx(tx *sqlx.Tx) *stmtTx {
	return &stmtTx{tx: tx, stmts: make(map[string]*sqlx.Stmt)}
}

func (t *stmtTx) stmt(ctx context.Context, query string) (*sqlx.Stmt, error) {
	if st, ok := t.stmts[query]; ok {
		return st, nil
	}
	st, err := t.tx.PreparexContext(ctx, query)
	if err != nil {
		return nil, err
	}
	t.stmts[query] = st
	return st, nil
}

func (t *stmtTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	t.writes++
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (t *stmtTx) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, args...)
}

func (t *stmtTx) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}

func (t *stmtTx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryxContext(ctx, args...)
}

// close closes the prepared statements (before the commit or rollback).
func (t *stmtTx) close() {
	for q, st := range t.stmts {
		st.Close()
		delete(t.stmts, q)
	}
}
