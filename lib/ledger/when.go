package ledger

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// spanUnits are the units people write for spans longer than Go's hours,
// with their fixed lengths: a month is 30 days and a year 365 (a span is
// a duration, not a calendar step). "mo" comes before "m"'s place: Go's m
// stays minutes.
var spanUnits = []struct {
	suffix string
	length time.Duration
}{
	{"mo", 30 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"w", 7 * 24 * time.Hour},
	{"y", 365 * 24 * time.Hour},
}

const durationWant = "want a duration such as 30d, 2w, 3mo, 1y, 12h or 0s"

// ParseDuration reads a duration: Go's forms (12h, 90m, 0s) plus days
// (30d), weeks (2w), months of 30 days (3mo) and years of 365 days (1y).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	for _, u := range spanUnits {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseFloat(num, 64)
		// !(n >= 0) also refuses NaN; the bound keeps the span within a
		// time.Duration (about 292 years)
		if err != nil || !(n >= 0) || n > float64(math.MaxInt64)/float64(u.length) {
			return 0, fmt.Errorf("%q: %s", s, durationWant)
		}
		return time.Duration(n * float64(u.length)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: %s", s, durationWant)
	}
	return d, nil
}

// ParseWhen reads a point in time: RFC 3339, YYYY-MM-DD (UTC midnight),
// today or yesterday (UTC midnight of that day), or a duration meaning
// that long before now (30d, 2w, 3mo, 1y, 12h). "" is the zero time.
func ParseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	midnight := now.UTC().Truncate(24 * time.Hour)
	switch strings.ToLower(s) {
	case "today":
		return midnight, nil
	case "yesterday":
		return midnight.AddDate(0, 0, -1), nil
	}
	if d, err := ParseDuration(s); err == nil {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2026-01-02T15:04:05Z), YYYY-MM-DD, today, yesterday or a span ago (30d, 2w, 3mo, 1y, 12h)", s)
}
