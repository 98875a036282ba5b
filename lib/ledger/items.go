package ledger

import (
	"context"
	"errors"
	"fmt"

	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// ShowOptions are the settings of Show.
type ShowOptions struct {
	Resolve ResolveOptions
	// Text adds the item's text: its chunks, in order.
	Text bool
	// Markdown adds the item's structured document (record.Markdown),
	// when its last parse kept one.
	Markdown bool
}

// Show returns everything stored about the item arg names (an id or its
// URL): metadata, ingest status and last error, archived_at, tags with who
// added them, every annotation and artifact, and with opt.Text its chunks.
func (l *Ledger) Show(ctx context.Context, arg string, opt ShowOptions) (*record.Record, error) {
	st := l.st
	id, err := l.ResolveItem(ctx, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	rec, err := st.Show(ctx, id, store.ShowOptions{Text: opt.Text, Markdown: opt.Markdown})
	return rec, notFound(err, arg, st)
}

// Tags lists every tag with its item count by actor, most used first, as
// records with a tag_count object.
func (l *Ledger) Tags(ctx context.Context) ([]*record.Record, error) {
	st := l.st
	counts, err := st.TagCounts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*record.Record, len(counts))
	for i := range counts {
		out[i] = &record.Record{TagCount: &counts[i]}
	}
	return out, nil
}

// WriteOptions are the settings of the housekeeping writes.
type WriteOptions struct {
	Resolve ResolveOptions
	// Actor is who does it, for the history: human or agent:NAME
	// (default human).
	Actor string
}

func (o WriteOptions) actor() string {
	if o.Actor == "" {
		return spec.ActorHuman
	}
	return o.Actor
}

// Unannotate removes annotations (by id) from the item arg names, all or
// none: an id that is not one of the item's annotations fails with a
// *spec.NoAnnotationError and removes nothing. The result record carries
// the item's identity and change.annotations_removed.
func (l *Ledger) Unannotate(ctx context.Context, arg string, annotationIDs []int64, opt WriteOptions) (*record.Record, error) {
	st := l.st
	rec, err := itemRef(ctx, st, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	ch, err := st.RemoveAnnotations(ctx, rec.ID, annotationIDs, opt.actor())
	var nae *spec.NoAnnotationError
	if errors.As(err, &nae) {
		return nil, &NoAnnotationError{NoAnnotationError: nae, Arg: arg}
	}
	if err != nil {
		return nil, notFound(err, arg, st)
	}
	rec.Change = ch
	return rec, nil
}

// CheckPinnable returns an error when annotationID cannot be pinned on
// the item id: a *NoAnnotationError when it is not one of the item's
// annotations, an *InputError (with a hint) when it is not a highlight.
// arg is the item as the user gave it, for the hint.
func (l *Ledger) CheckPinnable(ctx context.Context, id, arg string, annotationID int64) error {
	st := l.st
	rec, err := st.Show(ctx, id, store.ShowOptions{})
	if err != nil {
		return notFound(err, arg, st)
	}
	for _, a := range rec.Annotations {
		if a.ID != annotationID {
			continue
		}
		if a.Type != record.AnnHighlight {
			return &InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("annotation %d is a %s: only highlights are pinned", annotationID, a.Type),
				Err: hinted{"its highlights are the annotations marked highlight in: linkledger show " + arg}}
		}
		return nil
	}
	return &NoAnnotationError{NoAnnotationError: &spec.NoAnnotationError{ItemID: id, IDs: []int64{annotationID}}, Arg: arg}
}

// hinted is an error that only carries a hint (for an InputError's Err).
type hinted struct{ hint string }

func (h hinted) Error() string { return h.hint }
func (h hinted) Hint() string  { return h.hint }

// NoAnnotationError says annotation ids given for an item are not its
// annotations (errors.Is spec.ErrNoAnnotation).
type NoAnnotationError struct {
	*spec.NoAnnotationError
	Arg string // the item argument as the user gave it
}

// Hint is the next command to try, for a `hint:` line.
func (e *NoAnnotationError) Hint() string {
	return "list the item's annotations with: linkledger show " + e.Arg
}

// Archive archives (archived true) or unarchives the item arg names. An
// archived item is left out of searches, listings, related items and
// briefs unless they ask for it, and is still shown, ingested and kept.
// Archiving twice changes nothing (change.changed false).
func (l *Ledger) Archive(ctx context.Context, arg string, archived bool, opt WriteOptions) (*record.Record, error) {
	st := l.st
	rec, err := itemRef(ctx, st, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	ch, err := st.SetArchived(ctx, rec.ID, archived, opt.actor())
	if err != nil {
		return nil, notFound(err, arg, st)
	}
	rec.Change = ch
	rec.ArchivedAt = ""
	if archived {
		rec.ArchivedAt = ch.At
	}
	return rec, nil
}

// Delete removes the item arg names for good: its chunks, annotations,
// tags, artifacts and full-text rows, in one transaction. Its history
// stays, with a deleted event. The result record carries what was removed.
func (l *Ledger) Delete(ctx context.Context, arg string, opt WriteOptions) (*record.Record, error) {
	st := l.st
	rec, err := itemRef(ctx, st, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	ch, err := st.Delete(ctx, rec.ID, opt.actor())
	if err != nil {
		return nil, notFound(err, arg, st)
	}
	rec.Change = ch
	return rec, nil
}

// itemRef resolves arg and returns the item's identity (id, url,
// canonical_url, source_type, title) as a record for a verb's result.
func itemRef(ctx context.Context, st *store.Store, arg string, opt ResolveOptions) (*record.Record, error) {
	id, err := wrap(st).ResolveItem(ctx, arg, opt)
	if err != nil {
		return nil, err
	}
	s, err := st.Status(ctx, id)
	if err != nil {
		return nil, notFound(err, arg, st)
	}
	return &record.Record{ID: s.ID, URL: s.URL, CanonicalURL: s.CanonicalURL, SourceType: s.SourceType, Title: s.Title, ArchivedAt: s.ArchivedAt}, nil
}

// notFound turns the store's spec.ErrNotFound (an item gone between resolving
// and acting) into the one NoItemError.
func notFound(err error, arg string, st *store.Store) error {
	if errors.Is(err, spec.ErrNotFound) {
		return &NoItemError{Arg: arg, DB: st.Path()}
	}
	return err
}
