package ledger

import (
	"context"
	"errors"

	"github.com/linkledger/linkledger/lib/record"
)

// History returns every change to the item arg names (an id, or its URL
// in any form that canonicalizes to it), oldest first: one record per
// event with the item's id and the event (entity, action, actor, time,
// detail). A deleted item keeps its history, so arg may name an item that
// no longer exists; an arg no event names is a *NoItemError.
func (l *Ledger) History(ctx context.Context, arg string, ro ...ResolveOptions) ([]*record.Record, error) {
	st := l.st
	id, err := l.ResolveItem(ctx, arg, firstResolve(ro))
	var nie *NoItemError
	if errors.As(err, &nie) {
		// not an item now: perhaps one that was deleted
		var r record.Record
		if Canonicalize(&r, arg, firstResolve(ro)) != nil || r.ID == "" {
			return nil, err
		}
		id = r.ID
	} else if err != nil {
		return nil, err
	}
	evs, herr := st.History(ctx, id)
	if herr != nil {
		return nil, herr
	}
	if len(evs) == 0 {
		return nil, &NoItemError{Arg: arg, DB: st.Path()}
	}
	out := make([]*record.Record, len(evs))
	for i := range evs {
		out[i] = &record.Record{ID: id, Event: &evs[i]}
	}
	return out, nil
}
