package parse

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAgreeFilter(t *testing.T) {
	article := []string{
		"The council voted on Tuesday to keep the harbour open through the winter months.",
		"Fishermen had asked for the change after two seasons of storms closed the quay.",
		"Sign up for our newsletter and never miss a story from the coast again today.",
		"Ok.",
	}
	check := []string{
		"The council voted on Tuesday to keep the harbour open through the winter months.",
		"Fishermen had asked for the change after two seasons of storms closed the quay.",
		"Ok.",
	}
	got := agreeFilter(article, check, 0.5, 0.5)
	want := []string{article[0], article[1], article[3]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("agreeFilter (-want +got):\n%s", diff)
	}
	// When the check extractor found something else entirely, the primary
	// text is kept whole.
	other := []string{"A completely different page about mountain railways and their tunnels."}
	if got := agreeFilter(article, other, 0.5, 0.5); !cmp.Equal(got, article) {
		t.Errorf("disagreeing extractors: got %q, want the primary text whole", got)
	}
}

// TestAgreeFilterKeepsJoinedLines (issue 29): when the check extractor
// joined short lines into one paragraph (a poem in Chinese with its
// romanisation, labels of a list), the primary's separate lines are still
// found in it. Every Chinese line was dropped: with no spaces a line was
// one "word", looked up whole among the check's paragraphs.
func TestAgreeFilterKeepsJoinedLines(t *testing.T) {
	primary := []string{
		"This short poem is printed with its romanisation, one line of each in turn, as children learn it.",
		"床前明月光，", "Chuáng qián míng yuè guāng,", "疑是地上霜。", "Yí shì dì shàng shuāng.",
		"Ingredients", "Two eggs",
	}
	check := []string{
		"This short poem is printed with its romanisation, one line of each in turn, as children learn it.",
		"床前明月光， Chuáng qián míng yuè guāng, 疑是地上霜。 Yí shì dì shàng shuāng.",
		"Ingredients Two eggs and a cup of flour",
	}
	if got := agreeFilter(primary, check, 0.5, 0.5); !cmp.Equal(got, primary) {
		t.Errorf("lines dropped (-want +got):\n%s", cmp.Diff(primary, got))
	}
	// A short line the check extractor does not have still goes.
	got := agreeFilter(append(primary, "Share this"), check, 0.5, 0.5)
	if !cmp.Equal(got, primary) {
		t.Errorf("unfound short line kept (-want +got):\n%s", cmp.Diff(primary, got))
	}
}

func TestTextBlocks(t *testing.T) {
	tests := []struct {
		name, html string
		trimmed    bool
		want       []string
	}{
		{"blocks and inline", `<div>One <b>bold</b> word</div><p>Two<br>lines</p><ul><li>a</li><li>b</li></ul>`, false, []string{"One bold word", "Two\nlines", "a", "b"}},
		{"table cells", `<table><tr><td>x</td><td>y</td></tr></table>`, false, []string{"x y"}},
		{"pre keeps lines", "<pre>a  b\n  c</pre>", false, []string{"a b\nc"}},
		{"hidden content", `<p>seen<script>var x</script><style>p{}</style></p>`, false, []string{"seen"}},
		{"nbsp edge keeps words apart", "<p>in\u00a0<a>our</a> town</p>", false, []string{"in our town"}},
		{"trimmed nodes get spaces", `<p>in<a>our</a>town<b>,</b> (<i>x</i>)</p>`, true, []string{"in our town, (x)"}},
	}
	for _, tt := range tests {
		doc := mustParse(t, tt.html)
		var got []string
		for _, b := range textBlocks(doc, nil, tt.trimmed) {
			got = append(got, Normalize(b))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestRunConcurrent(t *testing.T) {
	page := readFixture(t, "article.html")
	want := ""
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := fetched("https://coastline.example/2024/bridge", "text/html", page)
			Run(rec, generic(), Options{})
			mu.Lock()
			defer mu.Unlock()
			if want == "" {
				want = rec.Checksum
			}
			if rec.Checksum != want || !strings.HasPrefix(want, "sha256:") {
				t.Errorf("concurrent runs disagree: %q vs %q", rec.Checksum, want)
			}
		}()
	}
	wg.Wait()
}

func TestHugePageSkipsTrafilatura(t *testing.T) {
	var b strings.Builder
	b.WriteString("<html><body><article>")
	for i := 0; b.Len() <= maxTrafilaturaBytes; i++ {
		b.WriteString("<p>A long book page, paragraph " + strings.Repeat("x", i%7) + " with enough words to be read as text.</p>")
	}
	b.WriteString("</article></body></html>")
	rec := fetched("https://big.example/book", "text/html", b.String())
	Run(rec, generic(), Options{})
	if rec.Error != nil || rec.Parse.Adapter != "article" || len(rec.Parse.Warnings) == 0 || !strings.Contains(rec.Parse.Warnings[0], "readability only") {
		t.Fatalf("error %+v parse %+v", rec.Error, rec.Parse)
	}
	if n := len(Paragraphs(rec.TextValue())); n < 10000 {
		t.Errorf("%d paragraphs extracted", n)
	}
}
