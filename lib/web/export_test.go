package web

import (
	"context"
	"fmt"
	"mime"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/exporter"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/parse"
	"github.com/linkledger/linkledger/lib/record"
)

// hostileTitle is a page title written to break out of Markdown (a
// heading, a list, raw HTML, a script link) and of a header (a line
// break, quotes).
const hostileTitle = "# Owned\r\n- <script>alert(1)</script> [x](javascript:alert(1)) \"q\"; filename=evil.sh"

// exportLedger saves two items over HTTP's ledger: a hostile one tagged
// ai with a highlight and a note, and a plain one with 450 highlights
// (more than a batch of the download), and returns their ids.
func exportLedger(t *testing.T, l *ledger.Ledger) (evil, many string) {
	t.Helper()
	ctx := context.Background()
	rec, err := l.Save(ctx, &record.Record{URL: "https://example.com/evil", Title: hostileTitle, Tags: []string{"ai"},
		Annotations: []record.Annotation{
			{Type: record.AnnHighlight, Text: "quote one\n# not a heading\n<img src=x onerror=alert(1)>", Actor: "human"},
			{Type: record.AnnNote, Text: "my note *on* it", Actor: "human"},
		}}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	evil = rec.ID
	var anns []record.Annotation
	for i := range 450 {
		anns = append(anns, record.Annotation{Type: record.AnnHighlight, Text: fmt.Sprintf("plain highlight %03d", i), Actor: "human"})
	}
	rec, err = l.Save(ctx, &record.Record{URL: "https://example.com/plain", Title: "Plain", Annotations: anns}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return evil, rec.ID
}

// download GETs path and checks it is a Markdown attachment; it returns
// the file name and the body.
func download(t *testing.T, url string) (string, string) {
	t.Helper()
	res, body := do(t, withCookie(mustReq(t, "GET", url, "")))
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", url, res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/markdown; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q, want text/markdown; charset=utf-8", url, ct)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET %s: no nosniff", url)
	}
	cd := res.Header.Get("Content-Disposition")
	if strings.ContainsAny(cd, "\r\n") {
		t.Fatalf("Content-Disposition has a line break: %q", cd)
	}
	disp, params, err := mime.ParseMediaType(cd)
	if err != nil || disp != "attachment" {
		t.Fatalf("GET %s: Content-Disposition %q: %v", url, cd, err)
	}
	return params["filename"], body
}

func TestExportHighlights(t *testing.T) {
	ts, l := newTestServer(t)
	evil, many := exportLedger(t, l)

	// one item: its highlights and notes, the title escaped, the name
	// a vault file's
	name, md := download(t, ts.URL+"/items/"+evil+"/highlights.md")
	if want := exporter.FileName(hostileTitle, evil); name != want {
		t.Errorf("file name %q, want %q", name, want)
	}
	if strings.ContainsAny(name, "/\\\"") {
		t.Errorf("file name %q has a path or quote character", name)
	}
	for _, want := range []string{
		"# Highlights: \\# Owned  - \\<script\\>alert(1)\\</script\\> \\[x\\](javascript:alert(1)) \"q\"; filename=evil.sh\n",
		"Source: [https://example.com/evil](<https://example.com/evil>)\n",
		"### Highlights\n\n- quote one\n  \\# not a heading\n  \\<img src=x onerror=alert(1)\\>  \n  — human, ",
		"### Notes\n\n- my note \\*on\\* it  \n  — human, ",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("item export lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "plain highlight") {
		t.Error("item export has another item's highlights")
	}

	// all highlights: every page of them, grouped by item
	name, md = download(t, ts.URL+"/highlights.md")
	if name != "linkledger-highlights.md" {
		t.Errorf("file name %q", name)
	}
	if n := strings.Count(md, "\n- plain highlight "); n != 450 {
		t.Errorf("%d of 450 highlights of the plain item", n)
	}
	if strings.Count(md, "\n## Plain\n") != 1 || !strings.Contains(md, "quote one") || strings.Contains(md, "my note") {
		t.Errorf("all highlights: not one section per item, or a note among highlights:\n%.600s", md)
	}
	if !strings.Contains(md, "All highlights, exported from linkledger at ") {
		t.Errorf("no note of the filter:\n%.300s", md)
	}

	// filtered as the page is: by tag, by text, by kind
	_, md = download(t, ts.URL+"/highlights.md?tag=ai")
	if !strings.Contains(md, "quote one") || strings.Contains(md, "plain highlight") || !strings.Contains(md, `The highlights with tag "ai"`) {
		t.Errorf("tag filter:\n%s", md)
	}
	_, md = download(t, ts.URL+"/highlights.md?q=highlight+017")
	if strings.Count(md, "\n- plain highlight ") != 1 || !strings.Contains(md, "plain highlight 017") {
		t.Errorf("text filter:\n%s", md)
	}
	_, md = download(t, ts.URL+"/highlights.md?type=note")
	if !strings.Contains(md, "my note") || strings.Contains(md, "quote one") {
		t.Errorf("kind filter:\n%s", md)
	}

	// the page links to the download of its own filter; the reader to
	// the item's
	res, page := do(t, withCookie(mustReq(t, "GET", ts.URL+"/highlights?tag=ai&q=one&page=2", "")))
	if res.StatusCode != 200 || !strings.Contains(page, `href="/highlights.md?q=one&amp;tag=ai"`) {
		t.Errorf("highlights page: %d, no download link of its filter", res.StatusCode)
	}
	res, page = do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+many, "")))
	if res.StatusCode != 200 || !strings.Contains(page, `href="/items/`+many+`/highlights.md"`) {
		t.Errorf("reader: %d, no download link", res.StatusCode)
	}

	// errors: an unknown item, a bad filter, no session
	for path, code := range map[string]int{
		"/items/ll_0000000000000000/highlights.md": 404,
		"/highlights.md?conf=2":                    400,
		"/highlights.md?type=bogus":                400,
	} {
		if res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+path, ""))); res.StatusCode != code || strings.HasPrefix(res.Header.Get("Content-Type"), "text/markdown") {
			t.Errorf("GET %s: %d %s, want %d and a page\n%.200s", path, res.StatusCode, res.Header.Get("Content-Type"), code, body)
		}
	}
	if res, _ := do(t, mustReq(t, "GET", ts.URL+"/highlights.md", "")); res.StatusCode == 200 {
		t.Error("download without a session")
	}
}

// TestInboxSearchBox: the inbox has its own search box, a GET form to
// the search page (issue 30: it was only behind the Search link).
func TestInboxSearchBox(t *testing.T) {
	ts, _ := newTestServer(t)
	res, page := do(t, withCookie(mustReq(t, "GET", ts.URL+"/", "")))
	if res.StatusCode != 200 {
		t.Fatalf("inbox: %d", res.StatusCode)
	}
	form := `<form method="get" action="/search" class="search" role="search" id="inbox-search">`
	i := strings.Index(page, form)
	if i < 0 || !strings.Contains(page[i:], `<input id="inbox-q" name="q" type="search"`) || !strings.Contains(page, `<label for="inbox-q" class="sr">`) {
		t.Errorf("the inbox has no labelled search box posting q to /search")
	}
}

// TestHistoryInWords: the History page says which tag was added and
// shows an event's detail as labelled values, not raw JSON or "{}"
// (issue 30).
func TestHistoryInWords(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	rec, err := l.Save(ctx, &record.Record{URL: "https://example.com/h", Title: "H", Tags: []string{"ai"},
		Annotations: []record.Annotation{{Type: record.AnnHighlight, Text: "a <quoted> passage", Actor: "human"}}}, ledger.SaveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Tag(ctx, rec.ID, nil, []string{"ai"}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	res, page := do(t, withCookie(mustReq(t, "GET", ts.URL+"/items/"+rec.ID+"/history", "")))
	if res.StatusCode != 200 {
		t.Fatalf("history: %d", res.StatusCode)
	}
	for _, want := range []string{"<td>item created</td>", "<td>tag “ai” added</td>", "<td>tag “ai” removed</td>", "annotation 1 created</td>",
		"<dt>type</dt><dd>highlight</dd>", "<dt>text</dt><dd>a &lt;quoted&gt; passage</dd>"} {
		if !strings.Contains(page, want) {
			t.Errorf("history lacks %q", want)
		}
	}
	for _, bad := range []string{"{}", "{&#34;", "tag added", "<code>"} {
		if strings.Contains(page, bad) {
			t.Errorf("history has %q", bad)
		}
	}
}

// TestInboxTotalsCountCopiesOnce: one page saved under two links (one
// with a tracking parameter the canonical URL keeps) is one result in
// find and one item in the inbox's totals (issue 30: it was two).
func TestInboxTotalsCountCopiesOnce(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"https://example.com/post", "https://example.com/post?ref=newsletter", "https://example.com/other"} {
		text := "The same text of one page, saved under two links."
		if strings.HasSuffix(u, "other") {
			text = "A different page altogether."
		}
		rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "T",
			Chunks: []record.Chunk{{Index: 0, Text: text, Tokens: 12}}, Checksum: parse.Checksum(text)}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	res, err := l.Find(ctx, ledger.FindOptions{Limit: 10, Snippets: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, page := do(t, withCookie(mustReq(t, "GET", ts.URL+"/", "")))
	if want := fmt.Sprintf("<li><b>%d</b> items <span class=\"muted\">(and 1 copy of a text saved under another link, shown as one)</span></li>", len(res.Hits)); len(res.Hits) != 2 || !strings.Contains(page, want) {
		t.Errorf("find shows %d results; the inbox lacks %q", len(res.Hits), want)
	}
}
