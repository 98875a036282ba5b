package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/record"
)

// Orphans lists the highlights and lowlights whose quote is no longer in
// their item's text (orphaned when ll-index stored changed text), newest
// first, at most limit (0: all): a record per annotation, its item's id,
// url and title with the one annotation (orphaned_at set).
func (l *Ledger) Orphans(ctx context.Context, limit int) ([]*record.Record, error) {
	st := l.st
	return st.Orphans(ctx, limit)
}
