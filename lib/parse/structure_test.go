package parse

import (
	nurl "net/url"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/record"
)

// TestStructureMarkdown parses a page with every structure and checks
// each is in the record's Markdown, while the text stays plain.
func TestStructureMarkdown(t *testing.T) {
	b, err := os.ReadFile("testdata/structure.html")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	rec := &record.Record{URL: "https://example.com/post", Body: &s, Fetch: &record.FetchInfo{ContentType: "text/html"}}
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	md := rec.Markdown
	for _, want := range []string{
		"## The setup\n",
		"### The code\n",
		"#### A note on variance\n",
		"1. generate the input once with a fixed seed;\n2. copy it",
		"- memory use of the sorts\n- sorting of strings or structs",
		"```\nfunc BenchmarkSort(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n",
		"| Sort        | Time (ms) | Relative |",
		"| sort.Ints   | 98        | 1.38     |",
		"![Bar chart of the three median times](https://example.com/img/chart.png)",
		"Figure 1: median times of the three sorts, lower is better.",
		"> Premature optimisation is the root of all evil",
		"grows as `n \\log n` while",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Copyright") || strings.Contains(md, "About") {
		t.Errorf("markdown has the page's chrome:\n%s", md)
	}
	if txt := rec.TextValue(); strings.Contains(txt, "## ") || strings.Contains(txt, "| ") {
		t.Errorf("text has markup:\n%s", txt)
	}
}

// TestStructurePrunesAndCleans checks the structure keeps only blocks the
// text kept, and that scripts, javascript: links and event attributes
// never reach it.
func TestStructurePrunesAndCleans(t *testing.T) {
	page := `<html><body><div>
<h2>Kept heading</h2>
<p>A paragraph the text kept, with <a href="javascript:alert(1)">a bad link</a> and <a href="/ok">a good one</a>.</p>
<p>Read also: a teaser the text filtered out.</p>
<script>alert(2)</script>
<p><img src="x" onerror="alert(3)" alt="picture"></p>
</div></body></html>`
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	paras := []string{"Kept heading", "A paragraph the text kept, with a bad link and a good one."}
	base, _ := nurl.Parse("https://example.com/post")
	md, cut := structureMarkdown([]*html.Node{doc}, paras, base, 0)
	if cut {
		t.Error("cut without a cap")
	}
	for _, want := range []string{"## Kept heading", "[a good one](https://example.com/ok)", "a bad link", "![picture](https://example.com/x)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	for _, bad := range []string{"teaser", "javascript", "alert", "onerror"} {
		if strings.Contains(md, bad) {
			t.Errorf("markdown has %q:\n%s", bad, md)
		}
	}
	// a page read from a file: its images have no web address, their alt
	// text stays
	doc, _ = html.Parse(strings.NewReader(page))
	local, _ := nurl.Parse("file:///tmp/post.html")
	md, _ = structureMarkdown([]*html.Node{doc}, paras, local, 0)
	if !strings.Contains(md, "*picture*") || strings.Contains(md, "file:") {
		t.Errorf("local page's image:\n%s", md)
	}
}

// TestCapMarkdown checks the cap cuts on a block boundary and closes an
// open code fence.
func TestCapMarkdown(t *testing.T) {
	md := "# Title\n\nfirst paragraph\n\n```\nline one\n\nline two\n```\n\nlast"
	got, cut := capMarkdown(md, 30)
	if !cut || len(got) > 34 {
		t.Fatalf("capMarkdown = %q, %v", got, cut)
	}
	if got != "# Title\n\nfirst paragraph" {
		t.Errorf("capMarkdown = %q", got)
	}
	got, _ = capMarkdown(md, 42)
	if !strings.HasSuffix(got, "line one\n```") {
		t.Errorf("open fence not closed: %q", got)
	}
	if got, cut := capMarkdown(md, 0); got != md || cut {
		t.Errorf("no cap: %q %v", got, cut)
	}
}

// TestMarkdownFileKeepsStructure checks a Markdown body is its own
// structure.
func TestMarkdownFileKeepsStructure(t *testing.T) {
	body := "---\ntitle: Notes\n---\n# Notes\n\n## Part\n\n- one\n- two\n"
	rec := &record.Record{URL: "https://example.com/notes.md", Body: &body, Fetch: &record.FetchInfo{ContentType: "text/markdown"}}
	Run(rec, generic(), Options{})
	if rec.Markdown != "# Notes\n\n## Part\n\n- one\n- two" {
		t.Errorf("markdown = %q", rec.Markdown)
	}
}

// TestStructureChunks: with the structure known, chunks start at the
// page's headings and the code block is whole in one chunk.
func TestStructureChunks(t *testing.T) {
	b, err := os.ReadFile("testdata/structure.html")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	rec := &record.Record{URL: "https://example.com/post", Body: &s, Fetch: &record.FetchInfo{ContentType: "text/html"}}
	Run(rec, generic(), Options{Chunk: chunk.Options{TargetTokens: 60, MaxTokens: 120, OverlapTokens: 10}})
	starts := map[string]bool{}
	for _, c := range rec.Chunks {
		first, _, _ := strings.Cut(c.Text, "\n")
		starts[first] = true
		for _, h := range []string{"The setup", "The code", "Results", "A note on variance"} {
			if i := strings.Index(c.Text, "\n\n"+h+"\n\n"); i >= 0 {
				t.Errorf("chunk %d crosses the heading %q:\n%s", c.Index, h, c.Text)
			}
		}
	}
	for _, h := range []string{"The setup", "The code", "Results", "A note on variance"} {
		if !starts[h] {
			t.Errorf("no chunk starts at %q", h)
		}
	}
	whole := false
	for _, c := range rec.Chunks {
		if strings.Contains(c.Text, "func BenchmarkSort(b *testing.B) {") && strings.Contains(c.Text, "slices.Sort(work)\n}\n}") {
			whole = true
		}
	}
	if !whole {
		t.Errorf("the first code block is not whole in one chunk: %+v", rec.Chunks)
	}
}

// TestReferenceSectionKind: the chunks of a page's reference list (under
// a "References" heading, its subheadings included, up to the next
// heading of its level) are marked; the text and the Markdown keep it.
func TestReferenceSectionKind(t *testing.T) {
	para := func(s string) string {
		return "<p>" + s + " The survey of the shore ran for three summers and counted every animal in the pools at low tide, from crabs to anemones and small fish.</p>"
	}
	page := `<html><head><title>Tide pools</title></head><body><article><h1>Tide pools</h1>` +
		para("Tide pools hold water when the sea goes out.") + `<h2>Animals</h2>` + para("Anemones close when the water drops.") +
		`<h2>7. References</h2><h3>Books</h3><ul><li>Smith, J. (2001). Tide pool anemones of the north. Shore Press.</li><li>Jones, K. (2003). Rocky shores. Sea Books.</li></ul>` +
		`<h2>About the survey</h2>` + para("The survey was paid for by the town.") + `</article></body></html>`
	rec := &record.Record{URL: "https://example.com/tide", Body: &page, Fetch: &record.FetchInfo{ContentType: "text/html"}}
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatal(rec.Error)
	}
	var refs, body []string
	for _, c := range rec.Chunks {
		if c.Kind == record.ChunkReferences {
			refs = append(refs, c.Text)
		} else {
			body = append(body, c.Text)
		}
	}
	r, b := strings.Join(refs, "\n"), strings.Join(body, "\n")
	if !strings.Contains(r, "7. References") || !strings.Contains(r, "Books") || !strings.Contains(r, "Smith, J. (2001)") || !strings.Contains(r, "Jones, K.") {
		t.Errorf("reference chunks:\n%s", r)
	}
	if strings.Contains(r, "About the survey") || strings.Contains(r, "Anemones close") || !strings.Contains(b, "paid for by the town") {
		t.Errorf("body text marked as references:\n%s\nbody:\n%s", r, b)
	}
	if !strings.Contains(rec.TextValue(), "Smith, J. (2001)") || !strings.Contains(rec.Markdown, "## 7. References") {
		t.Errorf("the reference list left the text or the document")
	}
	for h, want := range map[string]bool{"References": true, "Notes:": true, "Further reading": true, "VII. Bibliography": true,
		"Works cited [edit]": true, "Einzelnachweise": true, "参考文献": true, "Notes on the method": false, "Sources of water": false, "2024": false} {
		if got := referenceHeading(h); got != want {
			t.Errorf("referenceHeading(%q) = %v, want %v", h, got, want)
		}
	}
}
