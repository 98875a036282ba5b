package ledger

import (
	"context"
	"errors"

	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

// ReviewQueue lists agent annotations no person has confirmed or rejected
// yet, best first (confidence descending, then newest), at most limit
// (0: all): a record per annotation, its item's id, url and title with
// the one annotation.
func ReviewQueue(ctx context.Context, st *store.Store, limit int) ([]*record.Record, error) {
	return st.ReviewQueue(ctx, limit)
}

// Review applies one decision (confirm, reject, set confidence) to an
// annotation by id. The result is the annotation's item with the
// annotation as it now is (annotations[0].review). An unknown id fails with
// store.ErrNoAnnotation; an agent changing a person's decision fails with a
// bad_input record error.
func Review(ctx context.Context, st *store.Store, d store.ReviewDecision, opt WriteOptions) (*record.Record, error) {
	rec, err := st.Review(ctx, d, opt.actor())
	if errors.Is(err, store.ErrNotFound) {
		return nil, &store.NoAnnotationError{IDs: []int64{d.AnnotationID}}
	}
	return rec, err
}
