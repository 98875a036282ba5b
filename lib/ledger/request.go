package ledger

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// FindRequest is a find request's filters as every face receives them,
// before they are read: the flags of ll-find, ll-brief and linkledger
// export, the arguments of the MCP find and brief tools and the fields of
// the web app's search form translate into it, and its methods read and
// check it once (docs/cli.md, "One door: the find request").
type FindRequest struct {
	Tags   []string // items with all of these tags (in the form stored)
	Type   string   // source type: article, x, youtube, pdf or text
	Since  string   // saved at or after (ParseWhen's forms)
	Until  string   // saved before (ParseWhen's forms)
	Actor  string   // items with an annotation by this actor
	Status string   // ingest state: saved, fetched, parsed, enriched or failed
	// Archived is ParseArchived's spelling: "no" (the default, also ""),
	// "any" or "only".
	Archived string
	// Mode is the ranking (ParseMode: "", lexical, semantic or hybrid)
	// and SemanticWeight the semantic side's share in a hybrid ranking
	// (0..1; nil: not given); Options reads them, Filter (a list without
	// ranking) does not.
	Mode           string
	SemanticWeight *float64
}

// RequestError is a request field that does not read. Its text is the
// field's name and Detail ("since: \"x\": want ..."); a command-line face
// puts "--" before its Flag, so each face says the same words.
type RequestError struct {
	Field  string
	Detail string // what follows the field's name, from ": " or " \"x\": "
}

func (e *RequestError) Error() string { return e.Field + e.Detail }

// Flag is the field's name as a command-line flag: max_tokens is
// --max-tokens.
func (e *RequestError) Flag() string { return strings.ReplaceAll(e.Field, "_", "-") }

// CheckType checks a source type filter: "" (any type) or one of the
// five source types.
func CheckType(t string) error {
	switch t {
	case "", record.SourceArticle, record.SourceX, record.SourceYouTube, record.SourcePDF, record.SourceText:
		return nil
	}
	return &RequestError{Field: "type", Detail: fmt.Sprintf(" %q: want article, x, youtube, pdf or text", t)}
}

// checkRanking checks a ranking: the mode (ParseMode) and the semantic
// side's weight (nil, or 0..1).
func checkRanking(mode string, weight *float64) error {
	if err := ParseMode(mode); err != nil {
		return &RequestError{Field: "mode", Detail: " " + err.Error()}
	}
	if weight != nil && (math.IsNaN(*weight) || *weight < 0 || *weight > 1) {
		return &RequestError{Field: "semantic_weight", Detail: fmt.Sprintf(" %v: want 0..1", *weight)}
	}
	return nil
}

// ParseArchived reads the archived choice: "no" or "" (archived items
// left out, the one default of a find), "any" (archived items in) or
// "only" (only archived items).
func ParseArchived(s string) (spec.Archived, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "no":
		return spec.NotArchived, nil
	case "any":
		return spec.AnyArchived, nil
	case "only":
		return spec.OnlyArchived, nil
	}
	return spec.NotArchived, &RequestError{Field: "archived", Detail: fmt.Sprintf(" %q: want no, any or only", s)}
}

// ParseSpan reads a since and an until with ParseWhen, as every face's
// filters do; the error is a *RequestError naming the field.
func ParseSpan(since, until string, now time.Time) (time.Time, time.Time, error) {
	s, err := ParseWhen(since, now)
	if err != nil {
		return s, time.Time{}, &RequestError{Field: "since", Detail: ": " + err.Error()}
	}
	u, err := ParseWhen(until, now)
	if err != nil {
		return s, u, &RequestError{Field: "until", Detail: ": " + err.Error()}
	}
	return s, u, nil
}

// Filter reads and checks the request: its since and until against now.
func (r FindRequest) Filter(now time.Time) (spec.Filter, error) {
	f := spec.Filter{Type: r.Type, Actor: r.Actor, Status: r.Status, Tags: r.Tags}
	if err := CheckType(r.Type); err != nil {
		return f, err
	}
	switch r.Status {
	case "", "saved", "fetched", "parsed", "enriched", "failed":
	default:
		return f, &RequestError{Field: "status", Detail: fmt.Sprintf(" %q: want saved, fetched, parsed, enriched or failed", r.Status)}
	}
	var err error
	if f.Since, f.Until, err = ParseSpan(r.Since, r.Until, now); err != nil {
		return f, err
	}
	if f.Archived, err = ParseArchived(r.Archived); err != nil {
		return f, err
	}
	return f, nil
}

// Options reads and checks the request into o's filter fields (the
// archived choice set) and its Mode, keeping o's other settings.
func (r FindRequest) Options(o FindOptions, now time.Time) (FindOptions, error) {
	f, err := r.Filter(now)
	if err != nil {
		return o, err
	}
	if err := checkRanking(r.Mode, r.SemanticWeight); err != nil {
		return o, err
	}
	o.Mode, o.SemanticWeight = r.Mode, r.SemanticWeight
	o.Tags, o.Type, o.Since, o.Until, o.Actor, o.Status = f.Tags, f.Type, f.Since, f.Until, f.Actor, f.Status
	o.Archived, o.ArchivedSet = f.Archived, true
	return o, nil
}
