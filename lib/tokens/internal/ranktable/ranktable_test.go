package ranktable

import (
	"fmt"
	"testing"
)

func TestBuildOpenRank(t *testing.T) {
	toks := []string{"a", "b", "ab", "abc", "hello", " world", "\x00", "\xff\xfe", "0123456789abcdef0123"}
	// Many tokens in a small table, so that probe runs wrap around.
	for i := range 100 {
		toks = append(toks, fmt.Sprintf("tok%d", i))
	}
	data, err := Build(toks, 7)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() != len(toks) {
		t.Errorf("Len = %d, want %d", tab.Len(), len(toks))
	}
	for want, tok := range toks {
		if got, ok := tab.Rank(tok); !ok || got != want {
			t.Errorf("Rank(%q) = %d, %v; want %d", tok, got, ok, want)
		}
	}
	for _, s := range []string{"", "c", "ba", "abcd", "hell", "tok100", "tok1 ", "\x00\x00", "0123456789abcdef012"} {
		if got, ok := tab.Rank(s); ok {
			t.Errorf("Rank(%q) = %d, want no token", s, got)
		}
	}
}

func TestBuildRejects(t *testing.T) {
	long := string(make([]byte, MaxTokenLen+1))
	for name, toks := range map[string][]string{
		"empty token": {"a", ""},
		"duplicate":   {"a", "b", "a"},
		"too long":    {long},
		"table full":  {"a", "b", "c", "d"},
	} {
		if _, err := Build(toks, 2); err == nil {
			t.Errorf("%s: Build accepted %q", name, toks)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	good, err := Build([]string{"x", "y"}, 3)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string][]byte{
		"short":     good[:10],
		"magic":     append([]byte("xxxx"), good[4:]...),
		"truncated": good[:len(good)-1],
		"trailing":  append(append([]byte(nil), good...), 0),
	}
	for name, data := range bad {
		if _, err := Open(data); err == nil {
			t.Errorf("%s: Open accepted it", name)
		}
	}
}

func TestHashSpreadsShortKeys(t *testing.T) {
	// Every two-byte string: no two may share a full hash, and the low bits
	// (the slot index) should fill a 2^16 table about as well as random.
	seen := make(map[uint64]bool)
	used := make(map[uint64]bool)
	for a := range 256 {
		for b := range 256 {
			h := Hash(string([]byte{byte(a), byte(b)}))
			if seen[h] {
				t.Fatalf("hash collision at %02x%02x", a, b)
			}
			seen[h] = true
			used[h&0xffff] = true
		}
	}
	// A random function fills 1-1/e ≈ 63% of the slots.
	if n := len(used); n < 60*65536/100 {
		t.Errorf("two-byte keys use %d of 65536 slots", n)
	}
}
