package tokens

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The tests compare this package with tiktoken-go, the reference it must
// agree with on every input.

// splitPattern is cl100k_base's pre-tokenizer regexp as tiktoken-go spells
// it; compiled with the same options it gets tiktoken-go's generated
// matcher.
const splitPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

var reference = sync.OnceValue(func() *codec.Codec {
	c := codec.NewCl100kBase()
	c.SetErrorMode(codec.ErrorModeReplace)
	return c
})

var splitRegexp = sync.OnceValue(func() *regexp2.Regexp {
	reference() // registers the generated matcher for splitPattern
	return regexp2.MustCompile(splitPattern, regexp2.None)
})

// tricky inputs, also the fuzz seeds.
var tricky = []string{
	"", "a", " ", "\n", "hello world", "tiktoken is great!", "Hello, World!",
	"It's, I'M, we'RE, they've, she'll, he'D, 'TIS, don't, can'T",
	"'s 's'S 'ſ 'ſx ſ 're'Re 'rE 'r 'l 'lL 'll' '' ''s 'x", "’s ‘quoted’ ʼs",
	"1", "12", "123", "1234", "1234567", "3.14159", "1,000,000", "٣٤٥٦", "ⅫⅫⅫⅫ", "①②③④",
	"x1y22z333w4444",
	"  ", "   ", "  x", " \t x", "\t\tx", "a  b", "a   b", "trailing   ", "   leading",
	"\n\n", "\r\n", "\r\n\r\n", "\n \n", "  \n  \n  x", "x \n\n \n y", "\r\n\r\n \t\n",
	"a\n", "a\nb", "a.\n\nb", ".\r\n", " .\n\n", "!!!\n", "?\r\r\n\n",
	"line one\nline two\r\nline three\rend", "\t\n\t\n", "\n\t", "\v\f\v", "\x1c\x1d\x1e\x1f",
	"\u00a0x", "\u00a0\u00a0", "a\u00a0b", "\u0085\u0085x", "\u3000日本", "\u2028\u2029", "\u200bx\u200b", "\u2003\u2003 ",
	"naïve café", "Ærøskøbing", "straße", "×÷", "½²³", "e\u0301\u0301", "\u0301x", "a\u0308o\u0308",
	"東京都", "中文字符测试", "日本語のテキスト", "한국어 텍스트", "ｱｲｳ", "Ελληνικά", "русский текст", "עברית", "العربية",
	"🎉", "👍🏽", "👨‍👩‍👧", "🇩🇪🇫🇷", "❤️", "x🎉y", " 🎉🎉 ", "🎉\n",
	"<|endoftext|>", "<|fim_prefix|>hi", "https://example.com/a/b?c=d&e=f#g", "user@example.com",
	"func main() {\n\tfmt.Println(\"hi\")\n}\n", "if (x == 1) { return; }", "$$$ %%% ^^^ &&&",
	"\x7f", "a\x7fb", " \x7f", "  \x7f\x7f", "'\x7fs", ".\x7f.", "\x7f\n", "\n\x7f \x7f",
	"\xff", "\xc3", "\xc3(", "\xe2\x82", "\xe2\x82(", "\xf0\x9f\x98", "\xf0\x9f\x98x", "\xed\xa0\x80", "\xc0\xaf",
	"\x80\x80\x80", "\xf4\x90\x80\x80", "\xf8\x88\x80\x80\x80", "a\xffb", "'\xffs", " \xff\xfe ", "\xef\xbf\xbd", "\x00\x01\x02",
	strings.Repeat("a", 200), strings.Repeat("ab", 150), strings.Repeat(" ", 100), strings.Repeat("=", 130),
	strings.Repeat("\n", 70), strings.Repeat("9", 50), strings.Repeat("東", 40), strings.Repeat("🎉", 30),
	strings.Repeat("supercalifragilistic", 8), "Pneumonoultramicroscopicsilicovolcanoconiosis",
	"dGhpcyBpcyBhIGJhc2U2NCBzdHJpbmcgdGhhdCBnb2VzIG9uIGFuZCBvbiBhbmQgb24gYW5kIG9u",
}

// refTokens returns tiktoken-go's tokens of s.
func refTokens(t testing.TB, s string) []string {
	t.Helper()
	_, toks, err := reference().Encode(s)
	if err != nil {
		t.Fatalf("tiktoken-go Encode(%q): %v", s, err)
	}
	return toks
}

// refPieces returns the pre-tokenizer pieces of s by tiktoken-go's matcher.
func refPieces(t testing.TB, s string) []string {
	t.Helper()
	re := splitRegexp()
	var out []string
	m, err := re.FindStringMatch(s)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		out = append(out, m.String())
	}
	if err != nil {
		t.Fatalf("regexp2 on %q: %v", s, err)
	}
	return out
}

func pieces(s string) []string {
	var out []string
	for i, j := nextPiece(s, 0); i < j; i, j = nextPiece(s, j) {
		out = append(out, s[i:j])
	}
	return out
}

// checkSame fails t if Count or Split disagree with tiktoken-go on s.
func checkSame(t testing.TB, s string) {
	t.Helper()
	want := refTokens(t, s)
	got := slices.Collect(Split(s))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Split(%q) differs from tiktoken-go (-want +got):\n%s", s, diff)
	}
	if n := Count(s); n != len(want) {
		t.Fatalf("Count(%q) = %d, tiktoken-go says %d", s, n, len(want))
	}
}

func TestKnownCounts(t *testing.T) {
	for in, want := range map[string]int{"": 0, "hello world": 2, "tiktoken is great!": 6, "\n \n": 2, "\x7f": 0} {
		if got := Count(in); got != want {
			t.Errorf("Count(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestTrickyMatchesTiktoken(t *testing.T) {
	for _, s := range tricky {
		checkSame(t, s)
	}
}

// randomText builds a string from fragments that reach every branch of the
// pre-tokenizer and of invalid-UTF-8 handling.
func randomText(rng *rand.Rand) string {
	pools := [][]string{
		{"the", "The", "HELLO", "a", "z", "word", "Tokenizer", "x", "of", "and", "encyclopaedia"},
		{"0", "1", "7", "42", "123", "2024", "1234567", "٣", "Ⅻ", "①", "½"},
		{" ", " ", " ", "  ", "\t", "\n", "\n", "\r\n", "\r", "\v", "\f", "\u00a0", "\u3000", "\u2028", "\u0085", "\u2003", "\u200b", "\x1c"},
		{"'", "'", "'s", "'S", "'t", "'ll", "'LL", "'lL", "'Re", "'ve", "'VE", "'m", "'d", "'ſ", "'r", "'l", "’", "ʼ"},
		{".", ",", "!", "?", "--", "...", "(", ")", "\"", "/", "<|endoftext|>", "#", "$", "{", "}", "_", "©", "€", "—", "…", "\x00", "\x7f"},
		{"é", "ñ", "ß", "Ø", "æ", "ÿ", "ſ", "µ", "ª"},
		{"e\u0301", "\u0301", "\u0308", "\u064b", "\u0903"},
		{"東京", "中文", "日本語", "ｱ", "한국어", "の", "ー", "Ω", "ж", "ש", "ع", "ก"},
		{"🎉", "👍🏽", "👨‍👩‍👧", "🇩🇪", "❤️", "🙂", "\u200d", "\ufe0f"},
		{"\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf", "\x80", "\xf4\x90\x80\x80", "\xe0\x80", "\xef\xbf\xbd"},
	}
	var b strings.Builder
	for k := rng.IntN(30) + 1; k > 0; k-- {
		pool := pools[rng.IntN(len(pools))]
		frag := pool[rng.IntN(len(pool))]
		if rng.IntN(40) == 0 { // now and then a long run, for merges past scanMax
			frag = strings.Repeat(frag, rng.IntN(80)+10)
		}
		b.WriteString(frag)
	}
	return b.String()
}

func TestRandomMatchesTiktoken(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		checkSame(t, randomText(rng))
	}
}

func TestPiecesMatchRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	inputs := slices.Clone(tricky)
	for range 2000 {
		inputs = append(inputs, randomText(rng))
	}
	for _, s := range inputs {
		s = replaceInvalid(s)
		if diff := cmp.Diff(refPieces(t, s), pieces(s)); diff != "" {
			t.Fatalf("pieces of %q (-regexp +ours):\n%s", s, diff)
		}
	}
}

// TestEveryRuneMatchesRegexp puts each Unicode scalar value in a context
// that gives different pieces for each class of rune (letter, number,
// space, \r or \n, other, DEL) and for contractions, so no rune's class can
// differ from regexp2's.
func TestEveryRuneMatchesRegexp(t *testing.T) {
	step := rune(1) // about 5 s
	if testing.Short() {
		step = 7
	}
	for r := rune(0); r <= utf8.MaxRune; r += step {
		if !utf8.ValidRune(r) {
			continue
		}
		s := "a" + string(r) + "b." + string(r) + "'" + string(r) + " " + string(r)
		want, got := refPieces(t, s), pieces(s)
		if !slices.Equal(want, got) {
			t.Fatalf("U+%04X: pieces of %q:\nregexp %q\nours   %q", r, s, want, got)
		}
	}
}

// TestMergeScanMatchesHeap checks the two merge strategies against each
// other on pieces short enough for both.
func TestMergeScanMatchesHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		for _, p := range pieces(replaceInvalid(randomText(rng))) {
			if len(p) <= scanMax {
				scan, heap := mergeScan(nil, p), mergeHeap(nil, p, nil)
				if !slices.Equal(scan, heap) {
					t.Fatalf("piece %q: scan %v, heap %v", p, scan, heap)
				}
			}
		}
	}
}

func TestVocabHasEveryToken(t *testing.T) {
	c := codec.NewCl100kBase()
	n := 0
	for id := uint(0); ; id++ {
		tok, err := c.Decode([]uint{id})
		if err != nil {
			break
		}
		n++
		if r, ok := rank(tok); !ok || r != int(id) {
			t.Fatalf("rank(%q) = %d, %v; want %d", tok, r, ok, id)
		}
	}
	if n != vocab.Len() || n != 100256 {
		t.Errorf("tiktoken-go has %d tokens, the table %d (cl100k_base has 100256)", n, vocab.Len())
	}
	for _, s := range []string{"", "<|endoftext|>", "\xff\xfe", strings.Repeat("a", 200), " the quick brown fox"} {
		if r, ok := rank(s); ok {
			t.Errorf("rank(%q) = %d, want no token", s, r)
		}
	}
}

func TestReplaceInvalid(t *testing.T) {
	for in, want := range map[string]string{
		"ok":               "ok",
		"\xff":             "\uFFFD",
		"a\xc3":            "a\uFFFD",
		"\xe2\x82(":        "\uFFFD(",
		"\xf0\x9f\x98x":    "\uFFFDx",
		"\xed\xa0\x80":     "\uFFFD\uFFFD\uFFFD", // surrogate: ED takes 80..9F only
		"\xe0\x80\x80":     "\uFFFD\uFFFD\uFFFD", // overlong: E0 takes A0..BF only
		"\xf4\x8f\xbf":     "\uFFFD",
		"\xf4\x90\x80\x80": "\uFFFD\uFFFD\uFFFD\uFFFD",
		"\xc3\xc3\xa9":     "\uFFFDé",
	} {
		if got := replaceInvalid(in); got != want {
			t.Errorf("replaceInvalid(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitStopsEarly(t *testing.T) {
	var got []string
	for tok := range Split("one two three four") {
		got = append(got, tok)
		if len(got) == 2 {
			break
		}
	}
	if diff := cmp.Diff([]string{"one", " two"}, got); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSame(t, s)
	})
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestCountLongWordBoundedMemory: a 4 MB word without spaces is one
// pre-tokenizer piece. Encoding it whole took working arrays of 20 bytes
// per input byte (80 MB here); in parts of maxPiece bytes the arrays stay
// the size of one part.
func TestCountLongWordBoundedMemory(t *testing.T) {
	w := strings.Repeat("qwertzuiopasdfghjkl", 4<<20/19)
	var n int
	got := allocated(func() { n = Count(w) })
	if limit := uint64(64 * maxPiece); got > limit {
		t.Errorf("Count of a %d-byte word allocated %d bytes, want at most %d", len(w), got, limit)
	}
	// The count of the parts stays close to the count of the whole (one
	// period of the pattern is 19 bytes; compare with its own count).
	per := float64(Count(strings.Repeat("qwertzuiopasdfghjkl", 200))) / 200
	want := per * float64(len(w)/19)
	if d := float64(n)/want - 1; d > 0.02 || d < -0.02 {
		t.Errorf("Count = %d, want about %.0f (off by %.1f%%)", n, want, 100*d)
	}
}

// TestLongPiecesUpToMaxPieceExact: pieces up to maxPiece bytes are encoded
// whole, exactly as tiktoken-go does; only longer ones are cut.
func TestLongPiecesUpToMaxPieceExact(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("abcdefghij", maxPiece/10),
		strings.Repeat("東京都", maxPiece/9),
		"x" + strings.Repeat("Zq", maxPiece/2-1),
	} {
		if len(s) > maxPiece {
			t.Fatalf("test input of %d bytes is longer than maxPiece", len(s))
		}
		checkSame(t, s)
	}
}

// TestSplitLongWordAddsUp: the tokens of a piece cut at maxPiece still add
// up to the text, and the cuts fall on rune boundaries.
func TestSplitLongWordAddsUp(t *testing.T) {
	w := strings.Repeat("日本語テキスト", 3*maxPiece/21+5)
	var b strings.Builder
	n := 0
	for tok := range Split(w) {
		b.WriteString(tok)
		n++
	}
	if b.String() != w {
		t.Errorf("tokens do not add up to the text")
	}
	if c := Count(w); c != n {
		t.Errorf("Count = %d, Split gave %d tokens", c, n)
	}
	for p := w; p != ""; {
		k := cutPiece(p)
		if !utf8.ValidString(p[:k]) {
			t.Fatalf("part %d bytes in is cut inside a rune", len(w)-len(p)+k)
		}
		p = p[k:]
	}
}
