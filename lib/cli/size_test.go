package cli

import "testing"

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"1", 1}, {"1048576", 1 << 20}, {"500k", 500000}, {"25MiB", 25 << 20}, {"25mib", 25 << 20},
		{"2 GB", 2e9}, {"1GiB", 1 << 30}, {"0", -1}, {"-5", -1}, {"lots", -1}, {"3x", -1}, {"", -1},
	} {
		got, err := ParseSize(tt.in)
		if tt.want < 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}
