package ledger

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/brief"
	"github.com/linkledger/linkledger/lib/record"
)

func TestPackDiff(t *testing.T) {
	m := func(rank int, url, as string) record.PackMember {
		return record.PackMember{Rank: rank, URL: url, As: as}
	}
	before := []record.PackMember{m(1, "https://a/", "item"), m(2, "https://b/", "item"), m(3, "https://c/", "pointer")}
	after := []record.PackMember{m(1, "https://d/", "item"), m(2, "https://a/", "item"), m(3, "https://b/", "pointer")}
	entered, left := diff(before, after)
	if d := cmp.Diff([]record.PackMember{m(1, "https://d/", "item")}, entered); d != "" {
		t.Errorf("entered (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]record.PackMember{m(3, "https://c/", "pointer")}, left); d != "" {
		t.Errorf("left (-want +got):\n%s", d)
	}
	// the first version: everything entered, nothing left (never null)
	entered, left = diff(nil, after)
	if len(entered) != 3 || left == nil || len(left) != 0 {
		t.Errorf("first version: entered %v, left %#v", entered, left)
	}
}

func TestMembers(t *testing.T) {
	p := &brief.Pack{Items: []brief.Item{{Rank: 1, URL: "https://a/", Title: "A"}}, Pointers: []brief.Pointer{{Rank: 2, URL: "https://b/", Title: "B"}}}
	want := []record.PackMember{{Rank: 1, URL: "https://a/", Title: "A", As: "item"}, {Rank: 2, URL: "https://b/", Title: "B", As: "pointer"}}
	if d := cmp.Diff(want, Members(p)); d != "" {
		t.Errorf("members (-want +got):\n%s", d)
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"weekly-retrieval", true},
		{"answer 42", true},
		{"", false},
		{"   ", false},
		{"two\nlines", false},
		{strings.Repeat("x", MaxNameLen), true},
		{strings.Repeat("x", MaxNameLen+1), false},
	} {
		err := CheckName("task", tc.name)
		var ne *NameError
		if tc.ok != (err == nil) || (err != nil && !errors.As(err, &ne)) {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
