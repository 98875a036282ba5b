package ledger

import (
	"context"
	"errors"

	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/store"
)

// ReviewQueueOptions are the settings of ReviewQueue.
type ReviewQueueOptions struct {
	// Limit is the most records (0: all).
	Limit int
	// Decayed lists only the annotations the ledger's decay policy
	// decays (those that stop counting until confirmed).
	Decayed bool
	// Decay chooses the policy (zero: the ledger's, DecayPolicy).
	Decay DecayOptions
}

// ReviewQueue lists agent annotations and agent tags no person has
// confirmed or rejected yet, best first (confidence descending, then
// newest; a tag has no confidence), at most opt.Limit: a record per
// annotation (the item's id, url and title with annotations[0], decayed
// true when the decay policy leaves it out of ranking and briefs) or per
// tag (tagged[0]).
func ReviewQueue(ctx context.Context, st *store.Store, opt ReviewQueueOptions) ([]*record.Record, error) {
	p, err := opt.Decay.Resolve(ctx, st)
	if err != nil {
		return nil, err
	}
	return st.ReviewQueue(ctx, store.ReviewQueueOptions{Limit: opt.Limit, Decay: p, Decayed: opt.Decayed})
}

// Review applies one decision (confirm, reject, set confidence, pin or
// unpin an annotation; confirm or reject a tag). The result is the item
// with the annotation (annotations[0]) or tag (tagged[0]) as it now is.
// An unknown annotation fails with store.ErrNoAnnotation, an unknown tag
// with a not_found record error; an agent confirming or rejecting, or
// changing a person's decision, with a bad_input record error.
func Review(ctx context.Context, st *store.Store, d store.ReviewDecision, opt WriteOptions) (*record.Record, error) {
	rec, err := st.Review(ctx, d, opt.actor())
	if errors.Is(err, store.ErrNotFound) {
		return nil, &store.NoAnnotationError{IDs: []int64{d.AnnotationID}}
	}
	return rec, err
}
