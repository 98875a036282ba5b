package ledger

import (
	"context"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// A person's reading state of an item (issue 30, "A library"): starred,
// read or unread, and how far it was read. The rules live in lib/store
// (item_reading, migration 0019); every face calls these.

// Star stars (starred true) or unstars the item arg names: a journalled
// change (an event, as tags are), found with is:starred. Starring twice
// changes nothing (change.changed false). The result record carries the
// item's identity, its change and its reading state.
func (l *Ledger) Star(ctx context.Context, arg string, starred bool, opt WriteOptions) (*record.Record, error) {
	rec, err := itemRef(ctx, l.st, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	ch, err := l.st.SetStarred(ctx, rec.ID, starred, opt.actor())
	if err != nil {
		return nil, notFound(err, arg, l.st)
	}
	rec.Change = ch
	if rec.Reading, err = l.st.Reading(ctx, rec.ID); err != nil {
		return nil, notFound(err, arg, l.st)
	}
	return rec, nil
}

// MarkRead marks the item arg names read (read true) or unread (which
// also forgets how far it was read). An archived item counts as read
// while it is archived (archived means read). Journalled as Star is.
func (l *Ledger) MarkRead(ctx context.Context, arg string, read bool, opt WriteOptions) (*record.Record, error) {
	rec, err := itemRef(ctx, l.st, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	ch, err := l.st.SetRead(ctx, rec.ID, read, opt.actor())
	if err != nil {
		return nil, notFound(err, arg, l.st)
	}
	rec.Change = ch
	if rec.Reading, err = l.st.Reading(ctx, rec.ID); err != nil {
		return nil, notFound(err, arg, l.st)
	}
	return rec, nil
}

// SetProgress keeps how far down the item id was read (progress 0..1 of
// the reader's part part) and marks it read when it was not: the reader
// reports it once an item is open and as it is scrolled. It reports
// whether the item became read.
func (l *Ledger) SetProgress(ctx context.Context, id string, part int, progress float64, opt WriteOptions) (bool, error) {
	became, err := l.st.SetProgress(ctx, id, part, progress, opt.actor())
	return became, notFound(err, id, l.st)
}

// Reading returns the reading state of the item id (nil: nothing to say).
func (l *Ledger) Reading(ctx context.Context, id string) (*record.Reading, error) {
	r, err := l.st.Reading(ctx, id)
	return r, notFound(err, id, l.st)
}

// WithArchived is query with is:archived added (unless it has it): the
// search that shows the archived items a search leaving them out found
// (FindResult.ArchivedMatches).
func WithArchived(query string) string {
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if w == "is:archived" {
			return query
		}
	}
	if strings.TrimSpace(query) == "" {
		return "is:archived"
	}
	return strings.TrimSpace(query) + " is:archived"
}
