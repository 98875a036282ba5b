package brief

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/chunk"
)

func TestTailPointers(t *testing.T) {
	p, _, err := Build(testItems(10), Options{MaxTokens: 100000, MaxItems: 3, MaxPointers: 5, PointerWords: 20})
	if err != nil {
		t.Fatal(err)
	}
	bareTail, _, err := Build(testItems(10), Options{MaxTokens: 100000, MaxItems: 3, MaxPointers: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(bareTail.Pointers) != 5 || bareTail.Pointers[0] != (Pointer{Rank: 4, URL: "https://example.com/3", Title: "Item 3 about retrieval"}) {
		t.Errorf("pointers without sentences: %+v", bareTail.Pointers)
	}
	var got []int
	for _, pt := range p.Pointers {
		got = append(got, pt.Rank)
	}
	if diff := cmp.Diff([]int{4, 5, 6, 7, 8}, got); diff != "" {
		t.Errorf("pointer ranks (-want +got):\n%s", diff)
	}
	want := Pointer{Rank: 4, URL: "https://example.com/3", Title: "Item 3 about retrieval",
		Sentence: strings.TrimSpace(strings.Repeat("snippet words ", 10)) + "…"}
	if diff := cmp.Diff(want, p.Pointers[0]); diff != "" {
		t.Errorf("pointer (-want +got):\n%s", diff)
	}
	if len(p.Items) != 3 {
		t.Errorf("items: %d, want 3", len(p.Items))
	}

	// The tail only takes what the full items leave: at every budget the
	// items are those of a pack without a tail, the pack fits, and it
	// states its own size.
	bare, _, err := Build(testItems(10), Options{MaxTokens: 100000, MaxItems: 3})
	if err != nil {
		t.Fatal(err)
	}
	prev := -1
	for _, max := range []int{bare.Tokens - 200, bare.Tokens, bare.Tokens + 40, bare.Tokens + 120, bare.Tokens + 300, p.Tokens} {
		withTail, text, err := Build(testItems(10), Options{MaxTokens: max, MaxItems: 3, MaxPointers: 5, PointerWords: 20})
		if err != nil {
			t.Fatal(err)
		}
		without, _, err := Build(testItems(10), Options{MaxTokens: max, MaxItems: 3})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(without.Items, withTail.Items); diff != "" {
			t.Errorf("max %d: the tail changed the items (-without +with):\n%s", max, diff)
		}
		if diff := cmp.Diff(without.Dropped, withTail.Dropped); diff != "" {
			t.Errorf("max %d: the tail changed what was dropped:\n%s", max, diff)
		}
		n := chunk.CountTokens(text)
		if n > max {
			t.Errorf("max %d: %d tokens", max, n)
		}
		var back Pack
		if err := json.Unmarshal([]byte(text), &back); err != nil || back.Tokens != n {
			t.Errorf("max %d: pack says %d tokens, counted %d (%v)", max, back.Tokens, n, err)
		}
		if len(withTail.Pointers) < prev {
			t.Errorf("max %d: a bigger budget holds fewer pointers (%d < %d)", max, len(withTail.Pointers), prev)
		}
		prev = len(withTail.Pointers)
		// One more pointer would not have fitted.
		if k := len(withTail.Pointers); k < 5 && len(withTail.Dropped) == 0 {
			_, _, more := render(withTail.Items, nil, p.Pointers[:k+1], Options{MaxTokens: max, Format: FormatJSON, Count: chunk.CountTokens}, true)
			if more <= max {
				t.Errorf("max %d: %d pointers, but %d fit in %d tokens", max, k, k+1, more)
			}
		}
	}
	if prev != 5 {
		t.Errorf("the full budget held %d pointers, want 5", prev)
	}

	_, md, err := Build(testItems(10), Options{MaxTokens: 100000, MaxItems: 3, MaxPointers: 2, PointerWords: 20, Format: FormatMD})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md, "\n## More candidates\n- 4. Item 3 about retrieval · https://example.com/3: \"snippet words snippet") ||
		!strings.Contains(md, "\n- 5. Item 4 about retrieval · https://example.com/4: ") || strings.Contains(md, "- 6. ") {
		t.Errorf("markdown tail:\n%s", md)
	}
}

func TestSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"…a cut passage…", "a cut passage"},
		{"  one\ntwo  ", "one two"},
		{"", ""},
		{"w1 w2", "w1 w2"},
		{"w1 w2 w3 w4", "w1 w2 w3…"},
		{"…w1 w2 w3", "w1 w2 w3"},
	} {
		if got := sentence(tc.in, 3); got != tc.want {
			t.Errorf("sentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
