package xpost

import "testing"

// The expected tokens were computed with a JavaScript engine running
// ((Number(id) / 1e15) * Math.PI).toString(36).replace(/(0+|\.)/g, "").
func TestSyndicationToken(t *testing.T) {
	tests := []struct{ id, want string }{
		{"20", "6dq1a2xwd93"},
		{"1", "bhi2ay3f28n"},
		{"666616452582129664", "1m68jlt6lz9"},
		{"1703436713362870723", "44ni5iyte19"},
		{"1841206275088290279", "4gobiuxs3yx"},
		{"1899954694652309701", "4lsvtaex6rs"},
		{"not-a-number", ""},
	}
	for _, tt := range tests {
		if got := SyndicationToken(tt.id); got != tt.want {
			t.Errorf("SyndicationToken(%s) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

func TestJSRadixString(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0.5, "0.i"},
		{35, "z"},
		{36, "10"},
		{1.25, "1.9"},
	}
	for _, tt := range tests {
		if got := jsRadixString(tt.v, 36); got != tt.want {
			t.Errorf("jsRadixString(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
