package ledger

import (
	"context"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/record"
)

// Orphans lists the highlights and lowlights whose quote is no longer in
// their item's text (orphaned when ll-index stored changed text), newest
// first, at most limit (0: all): a record per annotation, its item's id,
// url and title with the one annotation (orphaned_at set).
func Orphans(ctx context.Context, st *store.Store, limit int) ([]*record.Record, error) {
	return st.Orphans(ctx, limit)
}
