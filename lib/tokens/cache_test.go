package tokens

import (
	"math/rand"
	"strings"
	"sync"
	"testing"
)

// madeUpText is prose of made-up words (syllables joined), which byte-pair
// encoding merges into several tokens each: the pieces the cache holds.
func madeUpText(seed int64, words int) string {
	rng := rand.New(rand.NewSource(seed))
	syll := []string{"ka", "lo", "mi", "ren", "tu", "sa", "vel", "dor", "pi", "qua", "ne", "zo", "bar", "ust", "é", "ß", "日本"}
	var b strings.Builder
	for i := 0; i < words; i++ {
		if i > 0 {
			b.WriteString([]string{" ", " ", ", ", ". ", "\n\n"}[rng.Intn(5)])
		}
		for k := 1 + rng.Intn(4); k > 0; k-- {
			b.WriteString(syll[rng.Intn(len(syll))])
		}
	}
	return b.String()
}

// splitCount counts the tokens Split yields: no cache on that path.
func splitCount(s string) int {
	n := 0
	for range Split(s) {
		n++
	}
	return n
}

func TestCountUpTo(t *testing.T) {
	for _, s := range []string{"", "a", englishText, madeUpText(1, 3000), strings.Repeat("quavelust", 5000), "x\xffy zz\xc3"} {
		want := splitCount(s)
		if got := Count(s); got != want {
			t.Errorf("Count = %d, Split gives %d tokens (%.40q)", got, want, s)
		}
		for _, limit := range []int{0, 1, 5, 50, want - 1, want, want + 1, -1} {
			exp := want
			if limit >= 0 && want > limit {
				exp = limit + 1
			}
			if got := CountUpTo(s, limit); got != exp {
				t.Errorf("CountUpTo(%.40q, %d) = %d, want %d", s, limit, got, exp)
			}
		}
	}
}

// TestCountCacheConcurrent counts the same texts from many goroutines, so
// that they fill and replace each other's cache slots (go test -race): every
// count must be Split's.
func TestCountCacheConcurrent(t *testing.T) {
	texts := make([]string, 8)
	want := make([]int, len(texts))
	for i := range texts {
		texts[i] = madeUpText(int64(i+10), 4000)
		want[i] = splitCount(texts[i])
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				for i := range texts {
					k := (i + g) % len(texts)
					if got := Count(texts[k]); got != want[k] {
						t.Errorf("text %d: Count = %d, want %d", k, got, want[k])
					}
				}
			}
		}()
	}
	wg.Wait()
}
