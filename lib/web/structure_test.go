package web

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/parse/mainext"
	"github.com/linkledger/linkledger/lib/record"
)

// indexParsed parses body (HTML at u) with the real adapters and stores
// it, as ll-parse | ll-index do; it returns the item's id.
func indexParsed(t *testing.T, l *ledger.Ledger, u, body string) string {
	t.Helper()
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Body: &body,
		Fetch: &record.FetchInfo{ContentType: "text/html", Status: 200, FinalURL: u}}
	adapters := []parse.Adapter{parse.Article(parse.MainText{Readability: mainext.Readability, Trafilatura: mainext.Trafilatura}), parse.VisibleText()}
	parse.Run(rec, adapters, parse.Options{})
	if rec.Error != nil || rec.Markdown == "" {
		t.Fatalf("parse: %+v, markdown %q", rec.Error, rec.Markdown)
	}
	rec.Body = nil
	indexRecord(t, l, rec)
	return rec.ID
}

func indexRecord(t *testing.T, l *ledger.Ledger, rec *record.Record) {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestReaderStructure: the reader shows a parsed page's structure
// (headings, lists, code with its line breaks, a table, a figure, a
// quote, a formula's source) and marks a highlight across a paragraph
// break, a lowlight overlapping it and a note's quote; nothing of the
// page's script, javascript: links or event attributes reaches it.
func TestReaderStructure(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	b, err := os.ReadFile("testdata/structure.html")
	if err != nil {
		t.Fatal(err)
	}
	id := indexParsed(t, l, "https://example.com/sorts", string(b))
	anns := []record.Annotation{
		// across the break between two paragraphs
		{Type: record.AnnHighlight, Text: "hides most of that noise.\n\nThat is why the median", Actor: "human"},
		// overlapping the highlight's end
		{Type: record.AnnLowlight, Text: "That is why the median was used throughout", Actor: "agent:r"},
		// a note made in the reader, quoting a list item
		{Type: record.AnnNote, Text: "check this\n\n> copy it before each run", Actor: "human"},
		// in a table cell
		{Type: record.AnnHighlight, Text: "radix sort", Actor: "human"},
	}
	if _, err := l.Annotate(ctx, id, anns, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+id, "")))
	if res.StatusCode != 200 {
		t.Fatalf("reader: %d", res.StatusCode)
	}
	doc := body[strings.Index(body, `<div class="doc">`):]
	doc = doc[:strings.Index(doc, `<aside`)]
	doc = strings.ReplaceAll(doc, ">\n<", "><") // line breaks between elements
	for _, want := range []string{
		"<h2>The setup</h2>", "<h3>The code</h3>", "<h4>A note on variance</h4>",
		"<ol><li>generate the input once with a fixed seed;</li>",
		"<ul><li>memory use of the sorts</li>",
		"<pre><code>func BenchmarkSort(b *testing.B) {\n\tfor i := 0; i &lt; b.N; i&#43;&#43; {\n",
		"slices.Sort(work) // &lt;script&gt;alert(3)&lt;/script&gt;",
		"<tr><th>Sort</th><th>Time (ms)</th><th>Relative</th></tr>",
		"<td>98</td>",
		`<figure><span class="img" role="img" aria-label="image: Bar chart of the three median times">`,
		"<figcaption>Figure 1: median times of the three sorts, lower is better.</figcaption></figure>",
		"<blockquote><p>Premature optimisation is the root of all evil",
		"grows as <code>n \\log n</code> while",
		`<a href="https://go.dev/doc/" rel="noreferrer noopener nofollow">the docs</a>`,
		"not measured, on purpose:</p>",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("reader lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "javascript:", "onerror", "onclick", "alert(1)", "alert(2)", "alert(4)", "alert(5)", "Copyright", "pwned"} {
		if strings.Contains(doc, bad) {
			t.Errorf("reader has %q", bad)
		}
	}
	// every annotation is marked in place: the highlight in both
	// paragraphs, the lowlight inside it, the note's quote, the cell
	shown, err := l.Show(ctx, id, ledger.ShowOptions{})
	if err != nil || len(shown.Annotations) != len(anns) {
		t.Fatalf("show: %v, %d annotations", err, len(shown.Annotations))
	}
	for i, a := range shown.Annotations {
		n := strings.Count(doc, `data-ann="`+strconv.FormatInt(a.ID, 10)+`"`)
		want := 1
		if i == 0 || i == 1 {
			want = 2 // two paragraphs / a mark of its own and one inside the highlight
		}
		if n < want {
			t.Errorf("annotation %d (%s %q) marked %d times, want %d", a.ID, a.Type, a.Text, n, want)
		}
	}
	if regexp.MustCompile(`(?s)<mark class="highlight human"[^>]*>hides most of that noise.</mark></p><p><mark class="highlight human"[^>]*><mark class="lowlight inner agent"[^>]*>That is why the median</mark></mark><mark class="lowlight agent"[^>]*> was used throughout</mark>`).FindString(doc) == "" {
		t.Errorf("highlight across the paragraph break and the overlapping lowlight not marked as expected:\n%s", doc[strings.Index(doc, "<h4>"):])
	}
}

// TestReaderHostileMarkdown: a record's Markdown is untrusted: raw HTML,
// javascript: links and images, event attributes never reach the page.
func TestReaderHostileMarkdown(t *testing.T) {
	ts, l := newTestServer(t)
	u := "https://example.com/hostile"
	text := "Title\n\nA paragraph with a link and an image.\n\nalert(1)"
	md := "# Title\n\n<script>alert(1)</script>\n\nA paragraph with [a link](javascript:alert(2)) and an ![image](javascript:alert(3)).\n\n<img src=x onerror=alert(4)>\n\n<div onclick=\"alert(5)\">raw</div>\n\n[ok](https://example.com/ok \"t\") <b>bold</b>"
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "Hostile",
		Text: &text, Markdown: md, Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 20}}}
	indexRecord(t, l, rec)
	_, body := do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+rec.ID, "")))
	doc := body[strings.Index(body, `<div class="doc">`):]
	doc = doc[:strings.Index(doc, `<aside`)]
	for _, bad := range []string{"<script", "javascript:", "onerror", "onclick", "alert(2)", "alert(3)", "alert(4)", "alert(5)", "<div onclick", "<b>", "<img"} {
		if strings.Contains(doc, bad) {
			t.Errorf("reader has %q:\n%s", bad, doc)
		}
	}
	for _, want := range []string{"<h2>Title</h2>", "<span>a link</span>", `<a href="https://example.com/ok" rel="noreferrer noopener nofollow">ok</a>`} {
		if !strings.Contains(doc, want) {
			t.Errorf("reader lacks %q:\n%s", want, doc)
		}
	}
}
