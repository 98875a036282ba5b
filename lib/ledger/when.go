package ledger

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration: Go's forms (12h, 90m, 0s) plus days (30d).
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		// !(n >= 0) also refuses NaN; the bound keeps n days within a
		// time.Duration (about 106,751 days)
		if err != nil || !(n >= 0) || n > float64(math.MaxInt64)/float64(24*time.Hour) {
			return 0, fmt.Errorf("%q: want a duration such as 30d, 12h or 0s", s)
		}
		return time.Duration(n * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want a duration such as 30d, 12h or 0s", s)
	}
	return d, nil
}

// ParseWhen reads a point in time: RFC 3339, YYYY-MM-DD (UTC midnight), or
// a duration meaning that long before now. "" is the zero time.
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
	if d, err := ParseDuration(s); err == nil {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q: want RFC 3339 (2026-01-02T15:04:05Z), YYYY-MM-DD or a duration ago (30d, 12h)", s)
}
