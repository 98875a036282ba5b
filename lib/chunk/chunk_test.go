package chunk

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four", []string{"One.", "Two!", "Three?", "Four"}},
		{"Dr. Smith met Mr. J. Doe at 5 p.m. today. Then he left.", []string{"Dr. Smith met Mr. J. Doe at 5 p.m. today.", "Then he left."}},
		{`He said "Stop." Then silence.`, []string{`He said "Stop."`, "Then silence."}},
		{"Version 1.2.3 is out. So is 1.2.4. but not lower case.", []string{"Version 1.2.3 is out.", "So is 1.2.4. but not lower case."}},
		{"a sentence wrapped\nover lines. Next\nOne. 2nd", []string{"a sentence wrapped\nover lines.", "Next\nOne.", "2nd"}},
		{"", nil},
		{"End of line.\nNew line starts. 東京。次", []string{"End of line.", "New line starts.", "東京。", "次"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range Sentences(tt.in) {
			got = append(got, s.Text)
		}
		// Joined with their separators the sentences give the input back.
		var b strings.Builder
		for _, s := range Sentences(tt.in) {
			b.WriteString(s.Sep + s.Text)
		}
		if b.String() != strings.TrimSpace(tt.in) {
			t.Errorf("Sentences(%q) joined back is %q", tt.in, b.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Sentences(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// para builds a paragraph of n numbered sentences of about 10 tokens each.
func para(p, n int) string {
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, fmt.Sprintf("Paragraph %d sentence %d talks about rivers and quiet stones.", p, i))
	}
	return strings.Join(s, " ")
}

func TestSplitEmpty(t *testing.T) {
	if got := Split(nil, Options{}); got != nil {
		t.Errorf("Split(nil) = %v, want nil", got)
	}
	if got := Split([]Piece{{Text: "  "}, {Text: ""}}, Options{}); got != nil {
		t.Errorf("Split(blank) = %v, want nil", got)
	}
}

func TestSplitSmallTextOneChunk(t *testing.T) {
	got := Split([]Piece{{Text: "Hello world."}, {Text: "Second paragraph."}}, Options{})
	want := "Hello world.\n\nSecond paragraph."
	if len(got) != 1 || got[0].Text != want || got[0].Index != 0 {
		t.Fatalf("got %+v, want one chunk %q", got, want)
	}
	if got[0].Tokens != CountTokens(want) {
		t.Errorf("tokens %d, want %d", got[0].Tokens, CountTokens(want))
	}
}

func TestSplitBoundariesAndOverlap(t *testing.T) {
	var pieces []Piece
	for p := 0; p < 12; p++ {
		pieces = append(pieces, Piece{Text: para(p, 3+p%5)})
	}
	opts := Options{TargetTokens: 100, MaxTokens: 150, OverlapTokens: 30}
	chunks := Split(pieces, opts)
	if len(chunks) < 4 {
		t.Fatalf("got %d chunks, want several", len(chunks))
	}
	all := map[string]bool{}
	for _, p := range pieces {
		for _, s := range Sentences(p.Text) {
			all[s.Text] = true
		}
	}
	seen := map[string]bool{}
	for i, c := range chunks {
		if c.Index != i {
			t.Errorf("chunk %d has index %d", i, c.Index)
		}
		if c.Tokens != CountTokens(c.Text) {
			t.Errorf("chunk %d: tokens %d, tokenizer says %d", i, c.Tokens, CountTokens(c.Text))
		}
		if c.Tokens > opts.MaxTokens {
			t.Errorf("chunk %d: %d tokens over max %d", i, c.Tokens, opts.MaxTokens)
		}
		// Every sentence is whole: chunks are made of sentences of the input.
		for _, para := range strings.Split(c.Text, "\n\n") {
			for _, s := range Sentences(para) {
				if !all[s.Text] {
					t.Errorf("chunk %d: %q is not a whole input sentence", i, s.Text)
				}
				seen[s.Text] = true
			}
		}
		if i == 0 {
			continue
		}
		// Overlap: the chunk starts with the last sentence(s) of the
		// previous one, within the budget.
		prev := chunks[i-1].Text
		first := Sentences(strings.Split(c.Text, "\n\n")[0])[0].Text
		if !strings.HasSuffix(prev, first) && !strings.Contains(prev, first) {
			t.Errorf("chunk %d does not start with an overlap of chunk %d: %q", i, i-1, first)
		}
		var overlap []string
		for _, s := range Sentences(strings.ReplaceAll(c.Text, "\n\n", "\n")) {
			if !strings.Contains(prev, s.Text) {
				break
			}
			overlap = append(overlap, s.Text)
		}
		if n := CountTokens(strings.Join(overlap, " ")); n > opts.OverlapTokens+2 {
			t.Errorf("chunk %d: overlap of %d tokens over budget %d", i, n, opts.OverlapTokens)
		}
	}
	if len(seen) != len(all) {
		t.Errorf("chunks hold %d of %d sentences", len(seen), len(all))
	}
}

func TestSplitPrefersParagraphBoundary(t *testing.T) {
	// Two paragraphs of ~60 tokens with target 100: each chunk should end
	// where a paragraph ends, not mid-paragraph.
	pieces := []Piece{{Text: para(0, 6)}, {Text: para(1, 6)}, {Text: para(2, 6)}}
	chunks := Split(pieces, Options{TargetTokens: 100, MaxTokens: 150, OverlapTokens: -1})
	for i, c := range chunks {
		if !strings.HasSuffix(c.Text, "sentence 5 talks about rivers and quiet stones.") {
			t.Errorf("chunk %d does not end at a paragraph end: ...%q", i, c.Text[len(c.Text)-40:])
		}
	}
	if len(chunks) != 3 {
		t.Errorf("got %d chunks, want 3", len(chunks))
	}
}

func TestSplitDefaultOverlap(t *testing.T) {
	var pieces []Piece
	for p := 0; p < 20; p++ {
		pieces = append(pieces, Piece{Text: para(p, 6)})
	}
	overlapping := func(chunks []record.Chunk) int {
		n := 0
		for i := 1; i < len(chunks); i++ {
			first := Sentences(strings.Split(chunks[i].Text, "\n\n")[0])[0].Text
			if strings.Contains(chunks[i-1].Text, first) {
				n++
			}
		}
		return n
	}
	def := Split(pieces, Options{})
	if len(def) < 3 || overlapping(def) != len(def)-1 {
		t.Errorf("default options: %d chunks, %d with overlap; want overlap on all but the first", len(def), overlapping(def))
	}
	for i, c := range def {
		if c.Tokens > DefaultMax {
			t.Errorf("chunk %d: %d tokens", i, c.Tokens)
		}
	}
	none := Split(pieces, Options{OverlapTokens: -1})
	if overlapping(none) != 0 {
		t.Errorf("negative overlap: %d chunks still overlap", overlapping(none))
	}
}

func TestSplitLongSentence(t *testing.T) {
	long := strings.Repeat("word ", 1000) + "end."
	chunks := Split([]Piece{{Text: long}}, Options{TargetTokens: 100, MaxTokens: 120, OverlapTokens: 10})
	if len(chunks) < 8 {
		t.Fatalf("got %d chunks for a 1000-word sentence, want at least 8", len(chunks))
	}
	words := 0
	for i, c := range chunks {
		if c.Tokens > 120 {
			t.Errorf("chunk %d has %d tokens, max 120", i, c.Tokens)
		}
		for _, w := range strings.Fields(c.Text) {
			if w != "word" && w != "end." {
				t.Errorf("chunk %d: word cut inside: %q", i, w)
			}
		}
		words += len(strings.Fields(c.Text))
	}
	if words < 1001 {
		t.Errorf("chunks hold %d words, want all 1001", words)
	}
}

func TestSplitHugeWord(t *testing.T) {
	w := strings.Repeat("ab9Zq", 400)
	chunks := Split([]Piece{{Text: w}}, Options{TargetTokens: 100, MaxTokens: 100, OverlapTokens: -1})
	var sb strings.Builder
	for i, c := range chunks {
		if c.Tokens > 100 {
			t.Errorf("chunk %d has %d tokens", i, c.Tokens)
		}
		sb.WriteString(c.Text)
	}
	if sb.String() != w {
		t.Errorf("pieces of a huge word do not add up to it")
	}
}

func TestSplitCarriesStartAndPage(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	var pieces []Piece
	for i := 0; i < 10; i++ {
		pieces = append(pieces, Piece{Text: para(i, 5), StartS: f(float64(i * 30)), Page: i + 1})
	}
	chunks := Split(pieces, Options{TargetTokens: 60, MaxTokens: 80, OverlapTokens: -1})
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks", len(chunks))
	}
	for i, c := range chunks {
		var p int
		if _, err := fmt.Sscanf(c.Text, "Paragraph %d", &p); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if c.StartS == nil || *c.StartS != float64(p*30) || c.Page != p+1 {
			t.Errorf("chunk %d starts in piece %d but has start_s %v page %d", i, p, c.StartS, c.Page)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := (Options{TargetTokens: 100, MaxTokens: 50}).Validate(); err == nil {
		t.Error("max below target accepted")
	}
	if err := (Options{TargetTokens: 100, OverlapTokens: 100}).Validate(); err == nil {
		t.Error("overlap equal to target accepted")
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

func TestCountTokens(t *testing.T) {
	// Known cl100k_base counts.
	for in, want := range map[string]int{"": 0, "hello world": 2, "tiktoken is great!": 6} {
		if got := CountTokens(in); got != want {
			t.Errorf("CountTokens(%q) = %d, want %d", in, got, want)
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n := CountTokens("hello world"); n != 2 {
				t.Errorf("concurrent count %d", n)
			}
		}()
	}
	wg.Wait()
}

func BenchmarkSplit(b *testing.B) {
	var pieces []Piece
	for p := 0; p < 40; p++ {
		pieces = append(pieces, Piece{Text: para(p, 8)})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Split(pieces, Options{})
	}
}

func TestSplitNeverSpansPages(t *testing.T) {
	pieces := []Piece{
		{Text: "Page one has a short paragraph.", Page: 1},
		{Text: "And a second one on the same page.", Page: 1},
		{Text: "Page two starts here with its own text.", Page: 2},
	}
	got := Split(pieces, Options{})
	var pages []int
	for i, c := range got {
		if c.Index != i {
			t.Errorf("chunk %d has index %d", i, c.Index)
		}
		pages = append(pages, c.Page)
	}
	if diff := cmp.Diff([]int{1, 2}, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if strings.Contains(got[0].Text, "Page two") {
		t.Errorf("chunk on page 1 holds page 2 text: %q", got[0].Text)
	}
}

// TestSplitHugeWordLinear: a 4 MB word without spaces used to be encoded
// whole several times over (to count the sentence, the word, then each
// window), allocating hundreds of bytes per input byte. Chunking now looks
// at most a chunk's worth of tokens past each decision.
func TestSplitHugeWordLinear(t *testing.T) {
	w := strings.Repeat("abcdefghij", 4<<20/10)
	var chunks []record.Chunk
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	chunks = Split([]Piece{{Text: w}}, Options{})
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(40*len(w)); got > limit {
		t.Errorf("Split of a %d-byte word allocated %d bytes (%d per input byte), want at most %d", len(w), got, got/uint64(len(w)), limit)
	}
	var sb strings.Builder
	for i, c := range chunks {
		if c.Tokens > DefaultMax {
			t.Fatalf("chunk %d has %d tokens, over the hard limit %d", i, c.Tokens, DefaultMax)
		}
		sb.WriteString(c.Text)
	}
	if sb.String() != w {
		t.Errorf("chunks of a huge word do not add up to it")
	}
}

// BenchmarkSplitHugeWord times chunking a 2 MB word with no spaces.
func BenchmarkSplitHugeWord(b *testing.B) {
	w := strings.Repeat("abcdefghij", 2<<20/10)
	b.SetBytes(int64(len(w)))
	for b.Loop() {
		Split([]Piece{{Text: w}}, Options{})
	}
}

// TestSplitHeadingsAndCode: a chunk never holds text from both sides of
// a heading (nor overlap across it), and a code block that fits in Max
// stays whole in one chunk.
func TestSplitHeadingsAndCode(t *testing.T) {
	words := func(prefix string, n int) string {
		var ws []string
		for i := 0; i < n; i++ {
			ws = append(ws, fmt.Sprintf("%s%d", prefix, i))
		}
		return strings.Join(ws, " ") + "."
	}
	opts := Options{TargetTokens: 200, MaxTokens: 300, OverlapTokens: 40}
	pieces := []Piece{
		{Text: words("intro", 30)},
		{Text: "Setup", Heading: true},
		{Text: words("setup", 30)},
		{Text: "Results", Heading: true},
		{Text: words("result", 20)},
	}
	chunks := Split(pieces, opts)
	if len(chunks) != 3 {
		t.Fatalf("%d chunks, want one per section: %+v", len(chunks), chunks)
	}
	for i, want := range []string{"intro0", "Setup\n\nsetup0", "Results\n\nresult0"} {
		if !strings.HasPrefix(chunks[i].Text, want) {
			t.Errorf("chunk %d starts %q, want %q", i, chunks[i].Text[:min(20, len(chunks[i].Text))], want)
		}
	}
	if strings.Contains(chunks[1].Text, "intro") || strings.Contains(chunks[2].Text, "setup") {
		t.Errorf("a chunk crosses a heading: %+v", chunks)
	}

	code := "func main() {\n" + strings.Repeat("\tfmt.Println(\"One line of the program. And another one\")\n", 20) + "}"
	pieces = []Piece{{Text: words("before", 40)}, {Text: code, Code: true}, {Text: words("after", 10)}}
	chunks = Split(pieces, opts)
	whole := 0
	for _, c := range chunks {
		if strings.Contains(c.Text, code) {
			whole++
		}
	}
	if whole != 1 {
		t.Errorf("the code block is not whole in one chunk: %+v", chunks)
	}
	// without the mark it is cut like a paragraph (the test can fail)
	pieces[1].Code = false
	chunks = Split(pieces, opts)
	for _, c := range chunks {
		if strings.Contains(c.Text, code) {
			t.Errorf("unmarked code fitted whole too; the case does not test the rule")
		}
	}
}

func TestSentenceSpans(t *testing.T) {
	text := "  Tide pools form on rocky shores. Dr. Ruiz counted 40 species!\n\nA new paragraph here.\nIt wraps over lines? Yes " + strings.Repeat("word ", 40) + "end"
	spans := SentenceSpans(text, 100)
	var got []string
	for _, s := range spans {
		if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
			t.Fatalf("span %v out of the text", s)
		}
		got = append(got, text[s.Start:s.End])
	}
	want := []string{"Tide pools form on rocky shores.", "Dr. Ruiz counted 40 species!", "A new paragraph here.", "It wraps over lines?"}
	if diff := cmp.Diff(want, got[:4]); diff != "" {
		t.Fatalf("sentences (-want +got):\n%s", diff)
	}
	// the run with no terminator is cut into pieces of at most 100 bytes
	// at white space, and the pieces put together are the run
	rest := got[4:]
	if len(rest) < 2 {
		t.Fatalf("a 200-byte run was not cut at 100 bytes: %q", rest)
	}
	for _, r := range rest {
		if len(r) > 100 || strings.HasPrefix(r, " ") || strings.HasSuffix(r, " ") {
			t.Errorf("piece %q: over 100 bytes or not cut at white space", r)
		}
	}
	if j := strings.Join(rest, " "); j != text[spans[4].Start:] {
		t.Errorf("pieces %q are not the run", j)
	}
	if SentenceSpans("   \n\n  ", 0) != nil {
		t.Error("blank text has sentences")
	}
}

// TestSplitKinds: a chunk holds pieces of one kind; a change of kind
// ends the chunk before, without overlap, like a heading.
func TestSplitKinds(t *testing.T) {
	pieces := []Piece{
		{Text: "The body of the page has one short paragraph."},
		{Text: "And a second one that ends the body."},
		{Text: "Smith, J. (2001). A book. Press.", Kind: record.ChunkReferences},
		{Text: "Jones, K. (2003). Another book. Press.", Kind: record.ChunkReferences},
	}
	got := Split(pieces, Options{})
	if len(got) != 2 {
		t.Fatalf("%d chunks, want 2: %+v", len(got), got)
	}
	if got[0].Kind != "" || strings.Contains(got[0].Text, "Smith") {
		t.Errorf("chunk 0 = %+v, want the body only", got[0])
	}
	if got[1].Kind != record.ChunkReferences || !strings.HasPrefix(got[1].Text, "Smith") || strings.Contains(got[1].Text, "body") {
		t.Errorf("chunk 1 = %+v, want the references only, marked", got[1])
	}
}
