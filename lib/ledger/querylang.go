package ledger

import (
	"fmt"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/query"
	"github.com/linkledger/linkledger/lib/record"
)

// applyQuery reads opt.Query in the query language (lib/query, ParseLang:
// phrases, exclusions and qualifiers) and returns the options with the
// words left to search for as Query and the qualifiers added to the
// filters the flags set (both apply). after: and before: take what
// --since and --until take, read at now; a value they cannot read stays
// words, as an unknown qualifier does. CLI and MCP alike reach Find and
// Brief through here, so one string means the same everywhere.
func applyQuery(opt FindOptions, now time.Time) FindOptions {
	l := query.ParseLang(opt.Query)
	if !l.Filtered() {
		return opt
	}
	text := l.Text
	when := func(key, v string) (time.Time, bool) {
		if v == "" {
			return time.Time{}, false
		}
		t, err := ParseWhen(v, now)
		if err != nil {
			text += " " + key + ":" + v
			return time.Time{}, false
		}
		return t, true
	}
	if t, ok := when("after", l.After); ok && t.After(opt.Since) {
		opt.Since = t
	}
	if t, ok := when("before", l.Before); ok && (opt.Until.IsZero() || t.Before(opt.Until)) {
		opt.Until = t
	}
	opt.Query = text
	opt.Tags = append(append([]string{}, opt.Tags...), l.Tags...)
	if l.Archived {
		opt.Archived, opt.ArchivedSet = spec.OnlyArchived, true
	}
	if l.Failed {
		opt.Status = record.StateFailed
	}
	if l.DroppedMentions > 0 {
		opt.langWarnings = append(opt.langWarnings, MentionsDropped(l.DroppedMentions))
	}
	opt.lang = spec.Filter{Sites: l.Sites, Types: l.Types, Actors: l.Actors, Phrases: l.Phrases, Exclude: l.Exclude,
		Pinned: l.Pinned, HasHighlights: l.HasHighlights, HasNotes: l.HasNotes,
		Starred: l.Starred, Read: l.Read, Unread: l.Unread}
	return opt
}

// MentionsDropped is the warning of a query with more phrases and
// exclusions than query.MaxMentions: the excess was left out.
func MentionsDropped(n int) string {
	what := "phrases and exclusions"
	if n == 1 {
		what = "phrase or exclusion"
	}
	return fmt.Sprintf("query: %d %s past the first %d left out (each is a full-text search of its own; a phrase's words still rank)", n, what, query.MaxMentions)
}
