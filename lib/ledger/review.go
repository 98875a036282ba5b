package ledger

import (
	"context"
	"errors"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
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
func (l *Ledger) ReviewQueue(ctx context.Context, opt ReviewQueueOptions) ([]*record.Record, error) {
	st := l.st
	p, err := opt.Decay.resolve(ctx, st)
	if err != nil {
		return nil, err
	}
	return st.ReviewQueue(ctx, store.ReviewQueueOptions{Limit: opt.Limit, Decay: p, Decayed: opt.Decayed})
}

// Review applies one decision (confirm, reject, set confidence, pin or
// unpin an annotation; confirm or reject a tag). The result is the item
// with the annotation (annotations[0]) or tag (tagged[0]) as it now is.
// An unknown annotation fails with spec.ErrNoAnnotation, an unknown tag
// with a not_found record error; an agent confirming or rejecting, or
// changing a person's decision, with a bad_input record error.
func (l *Ledger) Review(ctx context.Context, d spec.ReviewDecision, opt WriteOptions) (*record.Record, error) {
	st := l.st
	rec, err := st.Review(ctx, d, opt.actor())
	if errors.Is(err, spec.ErrNotFound) {
		return nil, &spec.NoAnnotationError{IDs: []int64{d.AnnotationID}}
	}
	return rec, err
}

// ReviewAll applies decisions in one transaction, in order: all of them
// or, when one fails (a *spec.StaleError, an unknown annotation, a refused
// decision), none, with a *spec.BatchError naming the one. Every face that
// decides in batches calls it, so all share the rule: a decision that
// carries IfVersion is compared with the annotation (or tag) as it is in
// the same transaction that changes it.
func (l *Ledger) ReviewAll(ctx context.Context, ds []spec.ReviewDecision, opt WriteOptions) ([]*record.Record, error) {
	st := l.st
	return st.ReviewAll(ctx, ds, opt.actor())
}

// AnnotationVersions are the versions of item itemID's annotations by id
// (record.Annotation.Version), for a page that offers decisions on them.
func (l *Ledger) AnnotationVersions(ctx context.Context, itemID string) (map[int64]string, error) {
	return l.st.AnnotationVersions(ctx, itemID)
}

// ChunkTexts are the texts of chunks by id (record.Annotation.ChunkID):
// the passages annotations are anchored to, for a review card's context.
func (l *Ledger) ChunkTexts(ctx context.Context, ids []int64) (map[int64]string, error) {
	return l.st.ChunkTexts(ctx, ids)
}
