package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// SaveOptions are the settings of Save, Annotate, Tag and Pin.
type SaveOptions struct {
	Resolve ResolveOptions
	// Actor is who says it: human or agent:NAME (default human). A
	// record's own actor wins.
	Actor string
	// AgentHighlightCap is how many agent highlights an item keeps (3..7;
	// 0: spec.DefaultAgentHighlightCap).
	AgentHighlightCap int
}

func (o SaveOptions) store() spec.SaveOptions {
	return spec.SaveOptions{Actor: o.Actor, AgentHighlightCap: o.AgentHighlightCap}
}

// InputError says a save input is not something ll-save can save: not a
// URL, a path that does not exist, a scheme other than http, https and
// file. Code is the record error code (bad_url, unsupported_scheme,
// not_found, bad_input); Err the canon error behind it (errors.Is
// canon.ErrNoSuchFile, canon.ErrNotInput, ...).
type InputError struct {
	Code    string
	Message string
	Err     error
}

func (e *InputError) Error() string { return e.Message }
func (e *InputError) Unwrap() error { return e.Err }

// Canonicalize fills rec's identity from target, a URL, a host with a
// path, an existing local path (read from ro.Cwd and ro.Home) or an item
// id: for a URL or path url, original_url, canonical_url, source_type
// (unless set) and id; for an id only the id. It returns an *InputError
// for anything else.
func Canonicalize(rec *record.Record, target string, ro ResolveOptions) error {
	target = strings.TrimSpace(target)
	if IsItemID(target) {
		rec.ID, rec.URL = target, ""
		return nil
	}
	if target == "" {
		return &InputError{Code: record.CodeBadInput, Message: "record has no url or id"}
	}
	rules := ro.Rules
	if rules == nil {
		rules = canon.DefaultRules()
	}
	u, err := canon.SaveInput(target, ro.Cwd, ro.Home)
	if err == nil {
		var res canon.Result
		if res, err = rules.Canonicalize(u); err == nil {
			rec.URL = target
			rec.OriginalURL = res.Original
			rec.CanonicalURL = res.URL
			if rec.SourceType == "" {
				rec.SourceType = res.SourceType
			}
			rec.ID = record.ItemID(res.URL)
			return nil
		}
	}
	ie := &InputError{Code: record.CodeBadURL, Message: err.Error(), Err: err}
	switch {
	case errors.Is(err, canon.ErrUnsupportedScheme):
		ie.Code = record.CodeUnsupported
	case errors.Is(err, canon.ErrNoSuchFile):
		ie.Code = record.CodeNotFound
	case errors.Is(err, canon.ErrNotInput):
		ie.Code, ie.Message = record.CodeBadInput, "not a URL, an existing path or a JSON record: "+quote(target)
	}
	return ie
}

// quote quotes at most 80 characters of an input for a message.
func quote(in string) string {
	const maxRunes = 80
	if r := []rune(in); len(r) > maxRunes {
		return fmt.Sprintf("%q…", string(r[:maxRunes]))
	}
	return fmt.Sprintf("%q", in)
}

// Save records one intent, as ll-save does for one input: rec.URL (a URL,
// path or item id) or rec.ID names the item, created when new and
// deduplicated by canonical URL; rec's note, tags, tags_remove,
// annotations, pin and unpin are applied in one transaction. The result
// carries id, url, canonical_url, source_type, status, new and save.
// A bad input is an *InputError; a request the store refuses (an unknown
// id, a bad actor) a *record.Error; a busy database store.IsBusy.
func (l *Ledger) Save(ctx context.Context, rec *record.Record, opt SaveOptions) (*record.Record, error) {
	st := l.st
	in := *rec
	if t := strings.TrimSpace(in.URL); t != "" || in.ID == "" {
		if err := Canonicalize(&in, t, opt.Resolve); err != nil {
			return nil, err
		}
	} else if !IsItemID(in.ID) {
		return nil, &InputError{Code: record.CodeBadInput, Message: fmt.Sprintf("id %q is not an item id", in.ID)}
	}
	res, err := st.Save(ctx, &in, opt.store())
	if err != nil {
		return nil, err
	}
	out := &record.Record{ID: res.ID, URL: in.URL, CanonicalURL: res.CanonicalURL, SourceType: res.SourceType,
		Status: res.Status, New: res.New, Save: res.Save}
	if out.URL == "" {
		out.URL = res.URL
	}
	return out, nil
}

// Annotate adds annotations (highlights, lowlights, notes) to the item arg
// names (an id or its URL; it must exist). An annotation without an actor
// gets opt.Actor; agent annotations without a confidence get 0.5; beyond
// the agent highlight cap the lowest-confidence unpinned agent highlight
// is displaced (save.displaced).
func (l *Ledger) Annotate(ctx context.Context, arg string, anns []record.Annotation, opt SaveOptions) (*record.Record, error) {
	st := l.st
	if len(anns) == 0 {
		return nil, &InputError{Code: record.CodeBadInput, Message: "no annotation given"}
	}
	return saveExisting(ctx, st, arg, &record.Record{Annotations: anns}, opt)
}

// Tag adds and removes tags on the item arg names.
func (l *Ledger) Tag(ctx context.Context, arg string, add, remove []string, opt SaveOptions) (*record.Record, error) {
	st := l.st
	if len(add) == 0 && len(remove) == 0 {
		return nil, &InputError{Code: record.CodeBadInput, Message: "no tag to add or remove"}
	}
	return saveExisting(ctx, st, arg, &record.Record{Tags: add, TagsRemove: remove}, opt)
}

// Pin pins (pin true) or unpins one of the item's highlights by its
// annotation id. A pinned highlight is never displaced by the agent
// highlight cap and adds the pinned boost to the item's ranking.
func (l *Ledger) Pin(ctx context.Context, arg string, annotationID int64, pin bool, opt SaveOptions) (*record.Record, error) {
	st := l.st
	rec := &record.Record{}
	if pin {
		rec.Pin = []int64{annotationID}
	} else {
		rec.Unpin = []int64{annotationID}
	}
	return saveExisting(ctx, st, arg, rec, opt)
}

// saveExisting saves rec onto the existing item arg names.
func saveExisting(ctx context.Context, st *store.Store, arg string, rec *record.Record, opt SaveOptions) (*record.Record, error) {
	id, err := wrap(st).ResolveItem(ctx, arg, opt.Resolve)
	if err != nil {
		return nil, err
	}
	rec.ID = id
	out, err := wrap(st).Save(ctx, rec, opt)
	return out, notFound(err, arg, st)
}
