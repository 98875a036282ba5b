package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The fuzz targets here hold the C of the first pass (vectorscan.c) to a
// plain Go reference: ll_nearest must keep exactly the chunks the Go code
// keeps, in the same order, ties included; ll_dot must sum as Go does.

// vectorDB is one in-memory SQLite connection with the package's SQL
// functions.
func vectorDB(tb testing.TB) *sql.DB {
	tb.Helper()
	if err := registerVectorFuncs(); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	tb.Cleanup(func() { db.Close() })
	return db
}

// scanChunk is one chunk of the fuzzed ledger: its item's seq, its id and
// its code.
type scanChunk struct {
	seq, id int64
	code    []uint64
}

// scanRow is one row ll_nearest reads: one item's chunks (seq set,
// members nil) or a block of several items' (members: seq and count).
type scanRow struct {
	seq     any
	members []byte
	ids     []byte
	codes   []byte
}

// nearestReference is ll_nearest in plain Go: the keep chunks nearest q by
// Hamming distance, then chunk id, of the items mode and set let through.
func nearestReference(chunks []scanChunk, q []uint64, keep int, mode int, set []int64) []nearest {
	out := []nearest{}
	for _, c := range chunks {
		in := slices.Contains(set, c.seq)
		if mode == nearestOnlySet && !in || mode == nearestButSet && in {
			continue
		}
		d := 0
		for i := range q {
			d += bits.OnesCount64(q[i] ^ c.code[i])
		}
		out = append(out, nearest{dist: int64(d), chunk: c.id, seq: c.seq})
	}
	slices.SortFunc(out, func(a, b nearest) int {
		if a.dist != b.dist {
			return int(a.dist - b.dist)
		}
		return int(a.chunk - b.chunk)
	})
	return out[:min(len(out), keep)]
}

// fuzzLedger makes items chunks of codes of words words from seed: chunk
// ids unique but in no order, codes drawn from few distinct values when
// spread is small (so that distances tie and the order by chunk id
// counts), items packed in blocks of up to blockSize items (1: one row
// each).
func fuzzLedger(seed uint64, words, items, maxChunks, spread, blockSize int) ([]scanChunk, []scanRow) {
	r := rand.New(rand.NewPCG(seed, 0x6c6c))
	var chunks []scanChunk
	ids := r.Perm(items * maxChunks)
	type item struct {
		seq    int64
		chunks []scanChunk
	}
	var its []item
	for i := range items {
		it := item{seq: int64(r.IntN(1000) + i*1000)} // unique seqs, not sorted by position
		for range r.IntN(maxChunks + 1) {
			c := scanChunk{seq: it.seq, id: int64(ids[len(chunks)]) - 50, code: make([]uint64, words)}
			for w := range c.code {
				if spread >= 64 {
					c.code[w] = r.Uint64()
				} else {
					c.code[w] = r.Uint64() & (1<<spread - 1)
				}
			}
			chunks = append(chunks, c)
			it.chunks = append(it.chunks, c)
		}
		its = append(its, it)
	}
	var rows []scanRow
	for start := 0; start < len(its); start += blockSize {
		group := its[start:min(start+blockSize, len(its))]
		var row scanRow
		for _, it := range group {
			if blockSize > 1 {
				row.members = binary.LittleEndian.AppendUint64(row.members, uint64(it.seq))
				row.members = binary.LittleEndian.AppendUint64(row.members, uint64(len(it.chunks)))
			}
			for _, c := range it.chunks {
				row.ids = binary.LittleEndian.AppendUint64(row.ids, uint64(c.id))
				for _, w := range c.code {
					row.codes = binary.LittleEndian.AppendUint64(row.codes, w)
				}
			}
		}
		if blockSize > 1 {
			row.seq = nil
		} else {
			row.seq = group[0].seq
			row.members = nil
		}
		rows = append(rows, row)
	}
	return chunks, rows
}

// callNearest runs ll_nearest over rows as one aggregate.
func callNearest(ctx context.Context, db *sql.DB, rows []scanRow, q []byte, keep, mode int, set []byte) ([]nearest, error) {
	var sb strings.Builder
	args := []any{}
	sb.WriteString(`WITH r(seq, members, ids, codes) AS (VALUES `)
	for i, row := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString("(?, ?, ?, ?)")
		args = append(args, row.seq, row.members, row.ids, row.codes)
	}
	sb.WriteString(`) SELECT coalesce(ll_nearest(seq, members, ids, codes, ?, ?, ?, ?), x'') FROM r`)
	args = append(args, q, keep, mode, set)
	var out []byte
	if err := db.QueryRowContext(ctx, sb.String(), args...).Scan(&out); err != nil {
		return nil, err
	}
	return decodeNearest(out)
}

// FuzzNearest: ll_nearest keeps what the Go reference keeps, in the same
// order (distance, then chunk id; ties are common by construction), for
// any code length up to the cap, keep, filter and packing of items in
// rows; a row with chunk ids cut short anywhere is an error, never a
// wrong answer (a row with no chunk ids is skipped, as before).
func FuzzNearest(f *testing.F) {
	f.Add(uint64(1), uint8(1), uint8(3), uint8(3), uint16(2), uint8(0), uint8(2), uint8(1), uint8(0), uint8(0))
	f.Add(uint64(2), uint8(12), uint8(20), uint8(5), uint16(7), uint8(1), uint8(64), uint8(4), uint8(3), uint8(0))
	f.Add(uint64(3), uint8(128), uint8(9), uint8(2), uint16(300), uint8(2), uint8(5), uint8(3), uint8(2), uint8(0))
	f.Add(uint64(4), uint8(3), uint8(40), uint8(8), uint16(1), uint8(0), uint8(1), uint8(40), uint8(0), uint8(0))
	f.Add(uint64(5), uint8(2), uint8(6), uint8(4), uint16(5), uint8(0), uint8(3), uint8(2), uint8(0), uint8(7))
	f.Add(uint64(6), uint8(2), uint8(6), uint8(4), uint16(5), uint8(1), uint8(3), uint8(1), uint8(1), uint8(19))
	db := vectorDB(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, seed uint64, words, items, maxChunks uint8, keep uint16, mode, spread, blockSize, setSize, cut uint8) {
		w := 1 + int(words)%128 // ll_nearest takes up to 128 words (8,192 bits)
		n := int(items) % 48
		per := int(maxChunks) % 12
		if n*per*w > 20_000 {
			per = 20_000 / (n * w) // bounded work per run
		}
		k := 1 + int(keep)%500
		m := int(mode) % 3
		bs := 1 + int(blockSize)%16
		chunks, rows := fuzzLedger(seed, w, n, per, int(spread), bs)
		if len(rows) == 0 {
			return // no rows: the aggregate never starts
		}
		r := rand.New(rand.NewPCG(seed, 7))
		q := make([]uint64, w)
		var qb []byte
		for i := range q {
			q[i] = r.Uint64()
			if spread < 64 {
				q[i] &= 1<<spread - 1
			}
			qb = binary.LittleEndian.AppendUint64(qb, q[i])
		}
		// the filter set: some of the items' seqs and some that are not
		// there, sorted
		var set []int64
		for range int(setSize) % 8 {
			if len(chunks) > 0 && r.IntN(3) > 0 {
				set = append(set, chunks[r.IntN(len(chunks))].seq)
			} else {
				set = append(set, int64(r.IntN(100_000)))
			}
		}
		slices.Sort(set)
		set = slices.Compact(set)
		var setb []byte
		for _, s := range set {
			setb = binary.LittleEndian.AppendUint64(setb, uint64(s))
		}
		if cut > 0 {
			// cut a blob of one row short by 1 to 15 bytes: the row no
			// longer adds up and the statement must fail
			row := &rows[r.IntN(len(rows))]
			if len(row.ids) == 0 {
				return // a row with no chunk ids is skipped whatever its other blobs
			}
			blobs := []*[]byte{&row.ids, &row.codes}
			if row.members != nil {
				blobs = append(blobs, &row.members)
			}
			b := blobs[int(cut)%len(blobs)]
			*b = (*b)[:max(0, len(*b)-1-int(cut)%15)]
			if b == &row.ids && len(*b) == 0 {
				return // cut to no chunk ids: skipped as above
			}
			got, err := callNearest(ctx, db, rows, qb, k, m, setb)
			if err == nil {
				t.Fatalf("a row cut short: got %v, want an error", got)
			}
			return
		}
		got, err := callNearest(ctx, db, rows, qb, k, m, setb)
		if err != nil {
			t.Fatal(err)
		}
		want := nearestReference(chunks, q, k, m, set)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(nearest{})); d != "" {
			t.Fatalf("%d words, %d chunks in %d rows, keep %d, mode %d, set %v (-reference +ll_nearest):\n%s", w, len(chunks), len(rows), k, m, set, d)
		}
	})
}

// dotReference is ll_dot in Go: float32 products summed in float32, in
// order; nil when the lengths differ, are not whole float32s or are 0.
func dotReference(a, b []byte) *float64 {
	if len(a) == 0 || len(a) != len(b) || len(a)%4 != 0 {
		return nil
	}
	var dot float32
	for i := 0; i < len(a); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
		y := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
		dot += float32(x * y) // the conversion keeps Go from fusing the multiply and add
	}
	d := float64(dot)
	return &d
}

// FuzzDot: ll_dot is the Go reference's sum for any two blobs (NULL where
// the reference has none, or NaN). On amd64 the two are equal to the bit (gcc
// does not fuse multiply and add there without -mfma); elsewhere a fused
// multiply-add may change the last bits, so a relative 1e-5 is allowed.
func FuzzDot(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63}, []byte{0, 0, 0, 64})
	f.Add([]byte{1, 2, 3}, []byte{1, 2, 3})
	f.Add([]byte{}, []byte{})
	f.Add([]byte{0, 0, 128, 127, 0, 0, 128, 255}, []byte{0, 0, 128, 63, 0, 0, 128, 63}) // +Inf + -Inf: NaN
	db := vectorDB(f)
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var got *float64
		if err := db.QueryRow(`SELECT ll_dot(?, ?)`, a, b).Scan(&got); err != nil {
			t.Fatal(err)
		}
		want := dotReference(a, b)
		switch {
		case want == nil:
			if got != nil {
				t.Fatalf("ll_dot(%x, %x) = %v, want NULL", a, b, *got)
			}
		case math.IsNaN(*want):
			// SQLite stores a NaN result as NULL
			if got != nil {
				t.Fatalf("ll_dot(%x, %x) = %v, want NULL (NaN)", a, b, *got)
			}
		case got == nil:
			t.Fatalf("ll_dot(%x, %x) = NULL, want %v", a, b, *want)
		case runtime.GOARCH == "amd64":
			if *got != *want {
				t.Fatalf("ll_dot(%x, %x) = %v, want %v", a, b, *got, *want)
			}
		default:
			if math.Abs(*got-*want) > 1e-5*math.Max(1, math.Abs(*want)) && !(math.IsInf(*got, 0) && *got == *want) {
				t.Fatalf("ll_dot(%x, %x) = %v, want %v", a, b, *got, *want)
			}
		}
	})
}
