package ledger

import (
	"testing"
	"time"
)

func TestParseDurationAndWhen(t *testing.T) {
	now := time.Date(2026, 3, 31, 12, 0, 0, 0, time.UTC)
	durations := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30d", 30 * 24 * time.Hour, true}, {"12h", 12 * time.Hour, true}, {"0s", 0, true}, {"1.5d", 36 * time.Hour, true},
		{"", 0, true}, {"-1d", 0, false}, {"soon", 0, false}, {"d", 0, false},
		{"2w", 14 * 24 * time.Hour, true}, {"3mo", 90 * 24 * time.Hour, true}, {"1y", 365 * 24 * time.Hour, true},
		{"90m", 90 * time.Minute, true}, {"-2w", 0, false}, {"mo", 0, false}, {"1000y", 0, false}, {"2 weeks", 0, false},
		{"NaNd", 0, false}, {"Infd", 0, false}, {"+Infd", 0, false}, {"1e300d", 0, false}, {"200000d", 0, false},
	}
	for _, tt := range durations {
		got, err := ParseDuration(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
	whens := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2026-01-02T03:04:05+01:00", time.Date(2026, 1, 2, 2, 4, 5, 0, time.UTC), true},
		{"2026-01-02", time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), true},
		{"30d", now.Add(-30 * 24 * time.Hour), true},
		{"", time.Time{}, true},
		{"yesterday", time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC), true},
		{"Today", time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC), true},
		{"2w", now.Add(-14 * 24 * time.Hour), true},
		{"1y", now.Add(-365 * 24 * time.Hour), true},
		{"tomorrow", time.Time{}, false},
	}
	for _, tt := range whens {
		got, err := ParseWhen(tt.in, now)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
