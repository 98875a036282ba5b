package store

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

// Code vectors and the first pass's encodings, without a database.

func TestCodeSizes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dim, padded, bits, words int }{
		{1, 1, 1, 1},
		{3, 4, 4, 1},
		{64, 64, 64, 1},
		{65, 128, 128, 2},
		{384, 512, 512, 8},
		{768, 1024, 768, 12}, // capped at codeMaxBits
		{1536, 2048, 768, 12},
	} {
		if p, b, w := padded(tc.dim), codeBits(tc.dim), codeWords(tc.dim); p != tc.padded || b != tc.bits || w != tc.words {
			t.Errorf("dim %d: padded %d, bits %d, words %d; want %d, %d, %d", tc.dim, p, b, w, tc.padded, tc.bits, tc.words)
		}
	}
}

// TestHadamard: the unnormalized Walsh-Hadamard transform.
func TestHadamard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want []float32 }{
		{[]float32{5}, []float32{5}},
		{[]float32{1, 0}, []float32{1, 1}},
		{[]float32{0, 1}, []float32{1, -1}},
		{[]float32{1, 0, 0, 0}, []float32{1, 1, 1, 1}},
		{[]float32{1, 2, 3, 4}, []float32{10, -2, -4, 0}},
	} {
		a := append([]float32(nil), tc.in...)
		hadamard(a)
		if d := cmp.Diff(tc.want, a); d != "" {
			t.Errorf("hadamard(%v) (-want +got):\n%s", tc.in, d)
		}
	}
}

// TestVectorCode: a code has codeWords words and no bit past codeBits; it
// does not change with the vector's length (a positive scale), a zero
// vector has no bit set, and a vector and its opposite share no bit where
// no value is zero. The stored format is pinned by one vector's code: a
// change to the random signs, rounds or lengths must come with a migration
// that rebuilds every code (rebuildAllCodes).
func TestVectorCode(t *testing.T) {
	t.Parallel()
	v := []float32{0.3, -1.2, 0.7, 2.5, -0.1, 0.05, 1.1, -0.8, 0.25, -0.4}
	code := vectorCode(v)
	if len(code) != codeWords(len(v)) || code[0]>>codeBits(len(v)) != 0 {
		t.Fatalf("code %x of a %d-value vector: want %d words, %d bits", code, len(v), codeWords(len(v)), codeBits(len(v)))
	}
	scaled := make([]float32, len(v))
	neg := make([]float32, len(v))
	for i, x := range v {
		scaled[i], neg[i] = 4*x, -x
	}
	if d := cmp.Diff(code, vectorCode(scaled)); d != "" {
		t.Errorf("code of 4v differs (-v +4v):\n%s", d)
	}
	if c := vectorCode(make([]float32, 10)); c[0] != 0 {
		t.Errorf("code of a zero vector %x, want 0", c)
	}
	if nc := vectorCode(neg); nc[0]&code[0] != 0 {
		t.Errorf("codes of v and -v share bits: %x, %x", code, nc)
	}
	if got := appendCode([]byte{9}, v); len(got) != 1+8*len(code) || got[0] != 9 || got[1] != byte(code[0]) {
		t.Errorf("appendCode = %x, want 09 then %x little-endian", got, code)
	}
	const pinned = 0xa096 // the code of v (16 bits), taken from vectorcode.go as it stood in issue 31
	if code[0] != pinned {
		t.Errorf("the code of %v is %#x, was %#x: the stored format changed (needs a migration that rebuilds every code)", v, code[0], pinned)
	}
}

// TestNearestEncoding: the filter set and ll_nearest's value as the Go
// side writes and reads them (little-endian int64s; 24 bytes a chunk).
func TestNearestEncoding(t *testing.T) {
	t.Parallel()
	if got := appendSeqs(nil, []int64{1, -2}); !cmp.Equal(got, append(le64s(1), le64s(-2)...)) {
		t.Errorf("appendSeqs = %x", got)
	}
	b := append(le64s(3, 11, 7), le64s(5, 10, 8)...)
	got, err := decodeNearest(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]nearest{{3, 11, 7}, {5, 10, 8}}, got, cmp.AllowUnexported(nearest{})); d != "" {
		t.Errorf("decodeNearest (-want +got):\n%s", d)
	}
	if _, err := decodeNearest(b[:30]); err == nil {
		t.Error("decodeNearest of 30 bytes: no error")
	}
}

// TestDecodeExport: an export record's parts are read and checked before
// any database is touched.
func TestDecodeExport(t *testing.T) {
	t.Parallel()
	u := "https://e.test/a"
	row := func(v map[string]any) json.RawMessage {
		b, _ := json.Marshal(v)
		return b
	}
	rec := &record.Record{Extra: map[string]json.RawMessage{
		ExportItemKey:         row(map[string]any{"id": record.ItemID(u), "canonical_url": u, "attempts": 2, "quality": 0.5}),
		ExportHistoryKey:      json.RawMessage(`[{"entity":"item","action":"saved","actor":"user","at":"2026-01-02T03:04:05Z"}]`),
		ExportTagsRejectedKey: json.RawMessage(`[{"tag":"x","actor":"agent:a","created_at":"t1","rejected_by":"user","rejected_at":"t2"}]`),
		ExportTextKey:         json.RawMessage(`true`),
	}}
	e, err := decodeExport(rec)
	if err != nil {
		t.Fatal(err)
	}
	if e.id != record.ItemID(u) || e.canonical != u || !e.withText || e.row["attempts"] != int64(2) || e.row["quality"] != 0.5 {
		t.Errorf("parts: %+v", e)
	}
	if len(e.hist) != 1 || e.hist[0].Action != "saved" || len(e.rejected) != 1 || e.rejected[0].RejectedBy != "user" {
		t.Errorf("history %+v, rejected %+v", e.hist, e.rejected)
	}
	for name, extra := range map[string]map[string]json.RawMessage{
		"not an object":    {ExportItemKey: json.RawMessage(`[1]`)},
		"id of another":    {ExportItemKey: row(map[string]any{"id": record.ItemID("https://e.test/b"), "canonical_url": u})},
		"no id":            {ExportItemKey: row(map[string]any{"canonical_url": u})},
		"history garbled":  {ExportItemKey: row(map[string]any{"id": record.ItemID(u), "canonical_url": u}), ExportHistoryKey: json.RawMessage(`{}`)},
		"rejected garbled": {ExportItemKey: row(map[string]any{"id": record.ItemID(u), "canonical_url": u}), ExportTagsRejectedKey: json.RawMessage(`"x"`)},
	} {
		if _, err := decodeExport(&record.Record{Extra: extra}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
