package store

// Vector codes (migration 0014, docs/retrieval.md "Storage"): the short
// binary code of a vector that a semantic search scans before it rescores
// the nearest chunks with their float vectors.
//
// A code is the signs of a random rotation of the vector: the vector is
// padded with zeros to P values (the next power of two), then three times
// its values are multiplied by fixed random signs and put through a
// Walsh-Hadamard transform; the signs of the first codeBits(dimensions)
// values are the code, one bit each (1: positive). Each bit is the side of
// a random hyperplane through the origin, so the Hamming distance of two
// codes estimates the angle between their vectors whatever the model's
// geometry; the signs of the raw values (what migration 0013 stored) do
// not: a model with a few large dimensions, or a query with few nonzero
// values, wastes most of them (docs/benchmarks.md: recall@10 of the first
// pass on the bench store 0.05 with raw signs).
//
// The random signs are part of the stored format: they come from
// splitmix64 seeded with codeSeed, bit 0 of each output, rounds × P of
// them in order. Changing them, the rounds or codeBits needs a migration
// that rebuilds every code (rebuildAllCodes).

import (
	"encoding/binary"
	"sync"
)

const (
	// codeMaxBits caps a code: 768 bits (96 bytes) a chunk, whatever the
	// model's dimension.
	codeMaxBits = 768
	codeRounds  = 3
	codeSeed    = 0x6c6c2d636f646573 // "ll-codes"
)

// codeBits is the length in bits of the code of a vector of dim values:
// the padded length, at most codeMaxBits.
func codeBits(dim int) int {
	return min(padded(dim), codeMaxBits)
}

// codeWords is the number of uint64 words of a code.
func codeWords(dim int) int {
	return (codeBits(dim) + 63) / 64
}

// padded is the least power of two at least dim.
func padded(dim int) int {
	p := 1
	for p < dim {
		p *= 2
	}
	return p
}

var codeSigns sync.Map // padded length → [][]float32 (codeRounds × P, ±1)

func signsFor(p int) [][]float32 {
	if s, ok := codeSigns.Load(p); ok {
		return s.([][]float32)
	}
	x := uint64(codeSeed)
	out := make([][]float32, codeRounds)
	for r := range out {
		out[r] = make([]float32, p)
		for i := range out[r] {
			x += 0x9e3779b97f4a7c15
			z := x
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
			z = (z ^ (z >> 27)) * 0x94d049bb133111eb
			z ^= z >> 31
			if z&1 == 1 {
				out[r][i] = 1
			} else {
				out[r][i] = -1
			}
		}
	}
	s, _ := codeSigns.LoadOrStore(p, out)
	return s.([][]float32)
}

// hadamard transforms a in place (unnormalized; len(a) a power of two).
func hadamard(a []float32) {
	for h := 1; h < len(a); h *= 2 {
		for i := 0; i < len(a); i += 2 * h {
			for j := i; j < i+h; j++ {
				x, y := a[j], a[j+h]
				a[j], a[j+h] = x+y, x-y
			}
		}
	}
}

// vectorCode is the code of v: codeWords(len(v)) words.
func vectorCode(v []float32) []uint64 {
	p := padded(len(v))
	a := make([]float32, p)
	copy(a, v)
	for _, s := range signsFor(p) {
		for i := range a {
			a[i] *= s[i]
		}
		hadamard(a)
	}
	bits := codeBits(len(v))
	w := make([]uint64, (bits+63)/64)
	for i := 0; i < bits; i++ {
		if a[i] > 0 {
			w[i/64] |= 1 << (i % 64)
		}
	}
	return w
}

// appendCode appends the code of v to b, little-endian words.
func appendCode(b []byte, v []float32) []byte {
	for _, w := range vectorCode(v) {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}
