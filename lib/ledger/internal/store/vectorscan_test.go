package store

import (
	"context"
	"encoding/binary"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func le64s(vs ...int64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// TestNearestChecksItsInput: ll_nearest (C, in SQLite) ranks what it is
// given by Hamming distance then chunk id, keeps what the filter passes,
// and refuses with an error, never a read past a blob's end, whatever does
// not add up: a query code of a bad length, codes that disagree with the
// chunk ids, block members that do not sum to the chunks, a negative
// count, a bad keep or filter.
func TestNearestChecksItsInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openTest(t)
	q := le64s(0)                                  // one word: 64 bits, all zero
	ids := le64s(10, 11, 12)                       // three chunks
	codes := le64s(0b111, 0b1, 0b11)               // distances 3, 1, 2
	members := append(le64s(7, 2), le64s(8, 1)...) // item 7: chunks 10, 11; item 8: chunk 12
	call := func(seq any, members, ids, codes, q []byte, keep, mode int, set []byte) ([]nearest, error) {
		var out []byte
		err := s.DB().GetContext(ctx, &out, `SELECT ll_nearest(?, ?, ?, ?, ?, ?, ?, ?)`, seq, members, ids, codes, q, keep, mode, set)
		if err != nil {
			return nil, err
		}
		return decodeNearest(out)
	}
	got, err := call(nil, members, ids, codes, q, 2, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]nearest{{1, 11, 7}, {2, 12, 8}}, got, cmp.AllowUnexported(nearest{})); d != "" {
		t.Errorf("block, keep 2 (-want +got):\n%s", d)
	}
	got, err = call(int64(5), nil, ids, codes, q, 10, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]nearest{{1, 11, 5}, {2, 12, 5}, {3, 10, 5}}, got, cmp.AllowUnexported(nearest{})); d != "" {
		t.Errorf("one item's row (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		mode int
		set  []byte
		want []nearest
	}{
		{1, le64s(8), []nearest{{2, 12, 8}}},             // only item 8
		{2, le64s(8), []nearest{{1, 11, 7}, {3, 10, 7}}}, // all but item 8
		{1, nil, []nearest{}},                            // an empty allow set passes nothing
	} {
		got, err := call(nil, members, ids, codes, q, 10, tc.mode, tc.set)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got, cmp.AllowUnexported(nearest{})); d != "" {
			t.Errorf("filter mode %d (-want +got):\n%s", tc.mode, d)
		}
	}
	bad := []struct {
		name                string
		members, ids, codes []byte
		q                   []byte
		keep, mode          int
		set                 []byte
	}{
		{"query of 7 bytes", members, ids, codes, []byte{1, 2, 3, 4, 5, 6, 7}, 2, 0, nil},
		{"query too long", members, ids, codes, make([]byte, 8*129), 2, 0, nil},
		{"codes short of the ids", members, ids, codes[:16], q, 2, 0, nil},
		{"ids not whole", members, ids[:20], codes, q, 2, 0, nil},
		{"members sum short", le64s(7, 2), ids, codes, q, 2, 0, nil},
		{"members sum long", append(le64s(7, 2), le64s(8, 5)...), ids, codes, q, 2, 0, nil},
		{"negative count", append(le64s(7, -1), le64s(8, 4)...), ids, codes, q, 2, 0, nil},
		{"members not whole", members[:20], ids, codes, q, 2, 0, nil},
		{"keep 0", members, ids, codes, q, 0, 0, nil},
		{"keep too large", members, ids, codes, q, 2_000_000, 0, nil},
		{"bad mode", members, ids, codes, q, 2, 3, nil},
		{"set not sorted", members, ids, codes, q, 2, 1, le64s(9, 8)},
		{"set not whole", members, ids, codes, q, 2, 1, []byte{1, 2, 3}},
	}
	for _, tc := range bad {
		if got, err := call(nil, tc.members, tc.ids, tc.codes, tc.q, tc.keep, tc.mode, tc.set); err == nil {
			t.Errorf("%s: got %v, want an error", tc.name, got)
		}
	}
	// ll_dot: equal lengths of float32, else NULL
	var dot *float64
	if err := s.DB().GetContext(ctx, &dot, `SELECT ll_dot(?, ?)`, le64s(0), []byte{1, 2, 3}); err != nil || dot != nil {
		t.Errorf("ll_dot of unequal lengths = %v, %v; want NULL", dot, err)
	}
}
