package record

import (
	"math"
	"strings"
	"testing"
)

// TestAnnotationRules: the one rule of an annotation's type and
// confidence, with the words every face repeats.
func TestAnnotationRules(t *testing.T) {
	for _, tc := range []struct {
		typ, want string
	}{
		{"highlight", ""}, {"lowlight", ""}, {"note", ""},
		{"Highlight", `type "Highlight": want highlight, lowlight or note`},
		{"", `type "": want highlight, lowlight or note`},
	} {
		got := ""
		if err := CheckAnnotationType(tc.typ); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckAnnotationType(%q) = %q, want %q", tc.typ, got, tc.want)
		}
	}
	for _, tc := range []struct {
		c    float64
		want string
	}{
		{0, ""}, {1, ""}, {0.5, ""},
		{-0.1, "confidence -0.1: want a number from 0 to 1"},
		{1.5, "confidence 1.5: want a number from 0 to 1"},
		{math.NaN(), "confidence NaN: want a number from 0 to 1"},
		{math.Inf(1), "confidence +Inf: want a number from 0 to 1"},
	} {
		got := ""
		if err := CheckConfidence(tc.c); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("CheckConfidence(%v) = %q, want %q", tc.c, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    string
		c    float64
		want string
	}{
		{"0.9", 0.9, ""}, {" 1 ", 1, ""},
		{"high", 0, `confidence "high": want a number from 0 to 1`},
		{"2", 2, "confidence 2: want a number from 0 to 1"},
		{"NaN", math.NaN(), "confidence NaN: want a number from 0 to 1"},
	} {
		c, err := ParseConfidence(tc.s)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want || tc.want == "" && c != tc.c {
			t.Errorf("ParseConfidence(%q) = %v, %q; want %v, %q", tc.s, c, got, tc.c, tc.want)
		}
	}
}

// TestValidActor: the one rule of an actor.
func TestValidActor(t *testing.T) {
	t.Parallel()
	for a, want := range map[string]bool{
		"human": true, "agent:r": true, "agent:researcher-2.v1_x": true, "agent:" + strings.Repeat("a", 64): true,
		"": false, "Human": false, "agent:": false, "agent:-x": false, "agent:a b": false, "agent:é": false,
		"agent:" + strings.Repeat("a", 65): false, "robot": false, "agent:x/y": false,
	} {
		if got := ValidActor(a); got != want {
			t.Errorf("ValidActor(%q) = %v, want %v", a, got, want)
		}
		if err := CheckActor(a); (err == nil) != want || err != nil && err.Error() != "actor "+Quote(a)+": want human or agent:<name>" {
			t.Errorf("CheckActor(%q) = %v", a, err)
		}
	}
}
