// Package ranktable lays out a token vocabulary (token bytes → rank) as one
// flat byte slice that is searched in place: an open-addressing hash table
// of fixed-size slots followed by the token bytes. Build writes it (at
// generate time); Open and Table.Rank read it with no per-entry work, so a
// table embedded in a binary is ready as soon as the process starts.
//
// Layout, all integers little-endian:
//
//	header  16 bytes: magic "rtb1", token count, slot bits, blob length (uint32 each)
//	slots   8 << slot bits bytes: one uint64 per slot, 0 for an empty slot
//	blob    the tokens' bytes, concatenated in rank order
//
// A full slot packs offset (bits 0-19) and length (bits 20-27) of the token
// in the blob, its rank (bits 28-44), how far it sits past its home slot
// (bits 45-50) and the top 13 bits of its hash (bits 51-63).
//
// The table is Robin Hood hashed: a token's home slot is hash&mask, and
// Build, probing forward from it, takes the place of any token sitting
// nearer its own home. So along any probe the distances never fall below
// the probe's own, and a lookup stops at an empty slot or at the first slot
// whose distance is less than the number of slots it has gone past; even a
// table three quarters full answers "not a token" within a few slots. The
// stored hash bits reject almost every other key before its bytes are
// compared.
package ranktable

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

const (
	magic      = "rtb1"
	headerSize = 16

	offsetBits = 20
	lengthBits = 8
	rankBits   = 17
	distBits   = 6
	rankShift  = offsetBits + lengthBits
	distShift  = rankShift + rankBits
	fpShift    = distShift + distBits // 51: the rest holds hash bits
	maxDist    = 1<<distBits - 1

	// MaxTokens, MaxTokenLen and MaxBlob are the limits of the slot
	// encoding.
	MaxTokens   = 1 << rankBits
	MaxTokenLen = 1<<lengthBits - 1
	MaxBlob     = 1 << offsetBits
)

// Table is a read-only view of a table made by Build.
type Table struct {
	slots []byte
	blob  []byte
	mask  uint64
	n     int
}

// Open checks data's header and sizes and returns a view of it. It does no
// work per entry and keeps data (which must not change afterwards).
func Open(data []byte) (Table, error) {
	if len(data) < headerSize || string(data[:4]) != magic {
		return Table{}, errors.New("ranktable: bad magic")
	}
	n := binary.LittleEndian.Uint32(data[4:])
	slotBits := binary.LittleEndian.Uint32(data[8:])
	blobLen := binary.LittleEndian.Uint32(data[12:])
	if slotBits < 1 || slotBits > 30 || n >= 1<<slotBits || uint64(blobLen) > MaxBlob {
		return Table{}, fmt.Errorf("ranktable: bad header (%d tokens, %d slot bits, %d blob bytes)", n, slotBits, blobLen)
	}
	slotsEnd := headerSize + 8<<slotBits
	if len(data) != slotsEnd+int(blobLen) {
		return Table{}, fmt.Errorf("ranktable: %d bytes, header says %d", len(data), slotsEnd+int(blobLen))
	}
	return Table{
		slots: data[headerSize:slotsEnd],
		blob:  data[slotsEnd:],
		mask:  1<<slotBits - 1,
		n:     int(n),
	}, nil
}

// Len returns the number of tokens in t.
func (t Table) Len() int { return t.n }

// Rank returns the rank of the token whose bytes are key, and whether key is
// a token at all.
func (t Table) Rank(key string) (int, bool) {
	h := Hash(key)
	fp := h >> fpShift
	i := h & t.mask
	for d := uint64(0); ; d++ {
		v := binary.LittleEndian.Uint64(t.slots[i*8:])
		if v == 0 || v>>distShift&maxDist < d {
			return 0, false
		}
		if v>>fpShift == fp && int(v>>offsetBits&MaxTokenLen) == len(key) {
			off := int(v & (MaxBlob - 1))
			if string(t.blob[off:off+len(key)]) == key {
				return int(v >> rankShift & (MaxTokens - 1)), true
			}
		}
		i = (i + 1) & t.mask
	}
}

// Build lays out tokens, whose ranks are their indices, in a table of
// 1<<slotBits slots. Tokens must be distinct and non-empty and fit the
// slot encoding; slotBits must leave at least one slot empty.
func Build(tokens []string, slotBits int) ([]byte, error) {
	if slotBits < 1 || slotBits > 30 || len(tokens) >= 1<<slotBits {
		return nil, fmt.Errorf("ranktable: %d tokens do not fit %d slot bits", len(tokens), slotBits)
	}
	if len(tokens) > MaxTokens {
		return nil, fmt.Errorf("ranktable: %d tokens, at most %d", len(tokens), MaxTokens)
	}
	mask := uint64(1)<<slotBits - 1
	slots := make([]uint64, 1<<slotBits)
	var blob []byte
	seen := make(map[string]bool, len(tokens))
	for rank, tok := range tokens {
		switch {
		case tok == "":
			return nil, fmt.Errorf("ranktable: rank %d is empty", rank)
		case len(tok) > MaxTokenLen:
			return nil, fmt.Errorf("ranktable: rank %d is %d bytes, at most %d", rank, len(tok), MaxTokenLen)
		case seen[tok]:
			return nil, fmt.Errorf("ranktable: rank %d (%q) repeats an earlier token", rank, tok)
		case len(blob)+len(tok) > MaxBlob:
			return nil, fmt.Errorf("ranktable: tokens exceed %d bytes", MaxBlob)
		}
		seen[tok] = true
		h := Hash(tok)
		v := h>>fpShift<<fpShift | uint64(rank)<<rankShift | uint64(len(tok))<<offsetBits | uint64(len(blob))
		blob = append(blob, tok...)
		// Robin Hood: carry v forward, swapping it for any entry nearer
		// its home than v is to its own.
		for i := h & mask; ; i = (i + 1) & mask {
			if slots[i] == 0 {
				slots[i] = v
				break
			}
			if slots[i]>>distShift&maxDist < v>>distShift&maxDist {
				slots[i], v = v, slots[i]
			}
			if v>>distShift&maxDist == maxDist {
				return nil, fmt.Errorf("ranktable: a token lies over %d slots from home; use more slot bits", maxDist)
			}
			v += 1 << distShift
		}
	}
	out := make([]byte, headerSize, headerSize+8*len(slots)+len(blob))
	copy(out, magic)
	binary.LittleEndian.PutUint32(out[4:], uint32(len(tokens)))
	binary.LittleEndian.PutUint32(out[8:], uint32(slotBits))
	binary.LittleEndian.PutUint32(out[12:], uint32(len(blob)))
	for _, v := range slots {
		out = binary.LittleEndian.AppendUint64(out, v)
	}
	return append(out, blob...), nil
}

// Multipliers of the hash; odd 64-bit constants with well-mixed bits.
const (
	k0 = 0x9e3779b97f4a7c15
	k1 = 0xbf58476d1ce4e5b9
	k2 = 0x94d049bb133111eb
)

// Hash is the table's hash of s. Build and Rank must agree on it, so a
// change here needs the embedded tables regenerated. It reads s eight bytes
// at a time; a tail of under eight bytes is read as two overlapping words
// (or three bytes), which with the length mixed in first still tells every
// string of a given length apart before mixing.
func Hash(s string) uint64 {
	h := uint64(len(s)) * k0
	for len(s) > 8 {
		h = bits.RotateLeft64((h^le64(s))*k1, 31)
		s = s[8:]
	}
	var v uint64
	switch n := len(s); {
	case n == 8:
		v = le64(s)
	case n >= 4:
		v = uint64(le32(s)) | uint64(le32(s[n-4:]))<<32
	case n > 0:
		v = uint64(s[0]) | uint64(s[n/2])<<8 | uint64(s[n-1])<<16
	}
	h = (h ^ v) * k1
	h ^= h >> 32
	h *= k2
	h ^= h >> 29
	return h
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
