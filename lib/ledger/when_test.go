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
		{"yesterday", time.Time{}, false},
	}
	for _, tt := range whens {
		got, err := ParseWhen(tt.in, now)
		if (err == nil) != tt.ok || !got.Equal(tt.want) {
			t.Errorf("ParseWhen(%q) = %v, %v; want %v, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}
