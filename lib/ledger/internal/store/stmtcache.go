package store

import (
	"context"
	"database/sql"
	"strings"

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
	// writes counts ExecContext and insertRow calls (every write of the
	// save path is one), so SaveBatch can tell a record refused before
	// any write
	writes int
	// rows are the rows insertRow holds back, by statement, in the
	// order of their first row
	rows []*heldRows
	// fts, when set (an index batch), holds the search rows' deletes and
	// writes back until the batch's end (see deferredFTS)
	fts *ftsRows
}

func newStmtTx(tx *sqlx.Tx) *stmtTx {
	return &stmtTx{tx: tx, stmts: make(map[string]*sqlx.Stmt)}
}

// A rowInsert is an INSERT of one row whose result the save path never
// reads (an event, a search row, a new item's tag): head ends with
// VALUES, row is the parenthesised placeholders, tail what follows.
type rowInsert struct {
	head, row, tail string
}

func (r rowInsert) sql(n int) string {
	var b strings.Builder
	b.WriteString(r.head)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(r.row)
	}
	b.WriteString(r.tail)
	return b.String()
}

// heldRows are rows of one rowInsert waiting to be written.
type heldRows struct {
	ins  rowInsert
	n    int
	args []any
}

// maxHeldRows is how many rows one INSERT writes at most.
const maxHeldRows = 64

// insertRow runs ins for one row. In a stmtTx the row is held back and
// written with the rows that follow it in one multi-row INSERT: before
// any other statement runs (passThrough aside) and before the commit
// (flush), so every statement reads what it would have read, and each
// table gets its rows in the same order, ids included. An import writes
// three or four such rows per link: one statement for many rows saves
// SQLite's and the driver's work per statement.
func insertRow(ctx context.Context, tx dbtx, ins rowInsert, args ...any) error {
	t, ok := tx.(*stmtTx)
	if !ok {
		_, err := tx.ExecContext(ctx, ins.sql(1), args...)
		return err
	}
	t.writes++
	var h *heldRows
	for _, r := range t.rows {
		if r.ins == ins {
			h = r
			break
		}
	}
	if h == nil {
		h = &heldRows{ins: ins}
		t.rows = append(t.rows, h)
	}
	h.args = append(h.args, args...)
	h.n++
	if h.n == maxHeldRows {
		return t.write(ctx, h)
	}
	return nil
}

// write writes the rows held in h.
func (t *stmtTx) write(ctx context.Context, h *heldRows) error {
	if h.n == 0 {
		return nil
	}
	st, err := t.stmt(ctx, h.ins.sql(h.n))
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, h.args...)
	h.n, h.args = 0, h.args[:0]
	return err
}

// flush writes every held row.
func (t *stmtTx) flush(ctx context.Context) error {
	for _, h := range t.rows {
		if err := t.write(ctx, h); err != nil {
			return err
		}
	}
	return nil
}

// passThrough are the statements that run without writing the held rows
// first: they neither read nor change the tables of rowInserts (the
// item's insert and read; a new item's rows are held until after it).
var passThrough = map[string]bool{insertItemSQL: true, getItemSQL: true}

// before writes the held rows unless query may pass them.
func (t *stmtTx) before(ctx context.Context, query string) error {
	if passThrough[query] {
		return nil
	}
	return t.flush(ctx)
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
	if err := t.before(ctx, query); err != nil {
		return nil, err
	}
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (t *stmtTx) GetContext(ctx context.Context, dest any, query string, args ...any) error {
	if err := t.before(ctx, query); err != nil {
		return err
	}
	st, err := t.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.GetContext(ctx, dest, args...)
}

func (t *stmtTx) SelectContext(ctx context.Context, dest any, query string, args ...any) error {
	if err := t.before(ctx, query); err != nil {
		return err
	}
	st, err := t.stmt(ctx, query)
	if err != nil {
		return err
	}
	return st.SelectContext(ctx, dest, args...)
}

func (t *stmtTx) QueryxContext(ctx context.Context, query string, args ...any) (*sqlx.Rows, error) {
	if err := t.before(ctx, query); err != nil {
		return nil, err
	}
	st, err := t.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryxContext(ctx, args...)
}

// close closes the prepared statements (before the commit or rollback;
// call flush before a commit).
func (t *stmtTx) close() {
	for q, st := range t.stmts {
		st.Close()
		delete(t.stmts, q)
	}
}
