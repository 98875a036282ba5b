package ledger

import (
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// TestFindRequest: every form the find request accepts for since, until,
// archived, type and status, and every refused form with its message.
func TestFindRequest(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	midnight := time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)
	ok := []struct {
		r            FindRequest
		since, until time.Time
		archived     spec.Archived
	}{
		{FindRequest{}, time.Time{}, time.Time{}, spec.NotArchived},
		{FindRequest{Since: "2026-01-02T03:04:05+01:00", Until: "2026-02-01T00:00:00Z"},
			time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), spec.NotArchived},
		{FindRequest{Since: "2026-01-02", Until: " 2026-01-03 "}, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), spec.NotArchived},
		{FindRequest{Since: "today", Until: "Yesterday"}, midnight, midnight.AddDate(0, 0, -1), spec.NotArchived},
		{FindRequest{Since: "12h", Until: "90m"}, now.Add(-12 * time.Hour), now.Add(-90 * time.Minute), spec.NotArchived},
		{FindRequest{Since: "30d", Until: "2w"}, now.Add(-30 * 24 * time.Hour), now.Add(-14 * 24 * time.Hour), spec.NotArchived},
		{FindRequest{Since: "3mo", Until: "1.5d"}, now.Add(-90 * 24 * time.Hour), now.Add(-36 * time.Hour), spec.NotArchived},
		{FindRequest{Since: "1y", Until: "0s"}, now.Add(-365 * 24 * time.Hour), now, spec.NotArchived},
		{FindRequest{Archived: "no"}, time.Time{}, time.Time{}, spec.NotArchived},
		{FindRequest{Archived: "any"}, time.Time{}, time.Time{}, spec.AnyArchived},
		{FindRequest{Archived: "Only"}, time.Time{}, time.Time{}, spec.OnlyArchived},
		{FindRequest{Type: "youtube", Status: "failed"}, time.Time{}, time.Time{}, spec.NotArchived},
	}
	for _, tt := range ok {
		f, err := tt.r.Filter(now)
		if err != nil || !f.Since.Equal(tt.since) || !f.Until.Equal(tt.until) || f.Archived != tt.archived {
			t.Errorf("%+v: since %v until %v archived %v, %v; want %v %v %v", tt.r, f.Since, f.Until, f.Archived, err, tt.since, tt.until, tt.archived)
		}
		o, err := tt.r.Options(FindOptions{Limit: 7}, now)
		if err != nil || !o.Since.Equal(tt.since) || !o.ArchivedSet || o.Archived != tt.archived || o.Limit != 7 || o.Type != tt.r.Type {
			t.Errorf("%+v: Options %+v, %v", tt.r, o, err)
		}
	}
	const whenWant = `: want RFC 3339 (2026-01-02T15:04:05Z), YYYY-MM-DD, today, yesterday or a span ago (30d, 2w, 3mo, 1y, 12h)`
	bad := []struct {
		r   FindRequest
		msg string
	}{
		{FindRequest{Since: "tomorrow"}, `since: "tomorrow"` + whenWant},
		{FindRequest{Since: "-1d"}, `since: "-1d"` + whenWant},
		{FindRequest{Since: "2026-13-01"}, `since: "2026-13-01"` + whenWant},
		{FindRequest{Since: "2 weeks"}, `since: "2 weeks"` + whenWant},
		{FindRequest{Since: "NaNd"}, `since: "NaNd"` + whenWant},
		{FindRequest{Since: "1000y"}, `since: "1000y"` + whenWant},
		{FindRequest{Since: "2026-01-02T03:04:05"}, `since: "2026-01-02T03:04:05"` + whenWant},
		{FindRequest{Since: "7d", Until: "soon"}, `until: "soon"` + whenWant},
		{FindRequest{Archived: "yes"}, `archived "yes": want no, any or only`},
		{FindRequest{Archived: "true"}, `archived "true": want no, any or only`},
		{FindRequest{Type: "video"}, `type "video": want article, x, youtube, pdf or text`},
		{FindRequest{Status: "done"}, `status "done": want saved, fetched, parsed, enriched or failed`},
		{FindRequest{Mode: "fuzzy"}, `mode "fuzzy": want lexical, semantic or hybrid`},
	}
	for _, m := range []string{"", "lexical", "semantic", "hybrid"} {
		if o, err := (FindRequest{Mode: m}).Options(FindOptions{}, now); err != nil || o.Mode != m {
			t.Errorf("mode %q: %q, %v", m, o.Mode, err)
		}
	}
	for _, tt := range bad {
		if tt.r.Mode != "" {
			// a ranking is not a filter: only Options reads it
			if _, err := tt.r.Filter(now); err != nil {
				t.Errorf("%+v: Filter error %v", tt.r, err)
			}
			if _, err := tt.r.Options(FindOptions{}, now); err == nil || err.Error() != tt.msg {
				t.Errorf("%+v: Options error %v; want %s", tt.r, err, tt.msg)
			}
			continue
		}
		_, err := tt.r.Filter(now)
		if err == nil || err.Error() != tt.msg {
			t.Errorf("%+v: error %v; want %s", tt.r, err, tt.msg)
			continue
		}
		if _, ok := err.(*RequestError); !ok {
			t.Errorf("%+v: error %T, want *RequestError", tt.r, err)
		}
		if _, err := tt.r.Options(FindOptions{}, now); err == nil || err.Error() != tt.msg {
			t.Errorf("%+v: Options error %v; want %s", tt.r, err, tt.msg)
		}
	}
}
