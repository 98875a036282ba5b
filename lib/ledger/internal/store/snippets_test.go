package store

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Snippet choice, without a database.

// mark wraps each of words in text in the highlight markers FTS5's
// highlight() writes (\x02, \x03).
func mark(text string, words ...string) string {
	for _, w := range words {
		text = strings.ReplaceAll(text, w, "\x02"+w+"\x03")
	}
	return text
}

// TestChunkSnippet: marked matches first, then a CJK run matched by LIKE,
// then a semantic chunk's opening words; nothing for an unmarked chunk
// found by words.
func TestChunkSnippet(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("filler ", 60) + "quokka smiles " + strings.Repeat("tail ", 60)
	lead := strings.TrimSpace(strings.Repeat("filler ", 48)) + "…"
	for _, tc := range []struct {
		name, marked, text string
		cjk                []string
		semantic           bool
		want               string
		runs               []string
	}{
		{"marked", mark("the quokka smiles", "quokka"), "the quokka smiles", nil, false, "the quokka smiles", nil},
		{"marked wins over semantic", mark("a quokka", "quokka"), "a quokka", nil, true, "a quokka", nil},
		{"marked in a long text: cut around it", mark(long, "quokka"), long, nil, false,
			"…filler filler filler filler filler filler quokka smiles tail tail tail tail tail tail tail tail tail tail tail tail tail tail tail tail…", nil},
		{"a CJK run", "", "今日は東京で会議", []string{"東京"}, false, "今日は東京で会議", []string{"東京"}},
		{"runs the chunk does not hold", "", "今日は東京で会議", []string{"大阪", "会議"}, false, "今日は東京で会議", []string{"会議"}},
		{"semantic: the opening words", "", long, nil, true, lead, nil},
		{"found by words, nothing marked", "", "plain text", nil, false, "", nil},
	} {
		got, runs := chunkSnippet(tc.marked, tc.text, tc.cjk, tc.semantic)
		if got != tc.want {
			t.Errorf("%s: snippet %q, want %q", tc.name, got, tc.want)
		}
		if d := cmp.Diff(tc.runs, runs); d != "" {
			t.Errorf("%s: runs (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestMarkedSnippet: the window of n words with the most marks, started
// a quarter window before its first mark, ellipses where text was cut.
func TestMarkedSnippet(t *testing.T) {
	t.Parallel()
	words := func(from, to int) string {
		var w []string
		for i := from; i < to; i++ {
			w = append(w, "w"+string(rune('a'+i%26)))
		}
		return strings.Join(w, " ")
	}
	text := words(0, 20) + " hit " + words(20, 30) + " hit hit " + words(30, 50)
	for _, tc := range []struct {
		name, marked string
		n            int
		want         string
	}{
		{"no mark", "nothing here", 8, ""},
		{"short text, whole", mark("one hit here", "hit"), 8, "one hit here"},
		// the densest window holds two marks (the pair at words 31-32);
		// it starts at the first word holding marks, and the snippet two
		// words (8/4) before it
		{"densest window", mark(text, "hit"), 8, "…wc wd hit hit we wf wg wh…"},
	} {
		if got := markedSnippet(tc.marked, tc.n); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMarkedSpans(t *testing.T) {
	t.Parallel()
	got := markedSpans("a \x02Quokka\x03, the \x02(smile)\x03 and \x02--\x03 \x02open")
	if d := cmp.Diff([]string{"quokka", "smile"}, got); d != "" {
		t.Errorf("spans (-want +got):\n%s", d)
	}
}

func TestLikeAndLeadSnippet(t *testing.T) {
	t.Parallel()
	if got := likeSnippet("abcdefghij", []string{"zz", "ef"}, 2); got != "…cdefgh…" {
		t.Errorf("likeSnippet = %q", got)
	}
	if got := likeSnippet("東京で会議", []string{"東京"}, 1); got != "東京で…" {
		t.Errorf("likeSnippet at the start, runes = %q", got)
	}
	if got := likeSnippet("abc", []string{"x"}, 2); got != "" {
		t.Errorf("likeSnippet with no run = %q", got)
	}
	if got := leadSnippet("one two  three", 5); got != "one two three" {
		t.Errorf("leadSnippet short = %q", got)
	}
	if got := leadSnippet("one two three four", 2); got != "one two…" {
		t.Errorf("leadSnippet cut = %q", got)
	}
	for u, want := range map[string]string{
		"https://www.youtube.com/watch?v=x": "https://www.youtube.com/watch?v=x&t=61s",
		"https://youtu.be/x":                "https://youtu.be/x?t=61s",
	} {
		if got := youtubeAt(u, 61.9); got != want {
			t.Errorf("youtubeAt(%s) = %s, want %s", u, got, want)
		}
	}
}
