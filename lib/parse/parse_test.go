package parse

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/net/html"

	"github.com/linkledger/linkledger/lib/chunk"
	"github.com/linkledger/linkledger/lib/parse/mainext"
	"github.com/linkledger/linkledger/lib/record"
)

func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"crlf", "a\r\nb\rc", "a\nb\nc"},
		{"nfc", "Cafe\u0301", "Café"},
		{"soft hyphen", "Quin\u00adtus", "Quintus"},
		{"zero width", "zero\u200bwidth\u200d join\ufeff", "zerowidth join"},
		{"nbsp", "a\u00a0b\u202fc", "a b c"},
		{"spaces and tabs", "a  \t b", "a b"},
		{"trim lines", "  a  \n   b   ", "a\nb"},
		{"blank lines", "a\n\n\n\n b\n \n\t\nc", "a\n\nb\n\nc"},
		{"controls", "a\x00b\x07c", "abc"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"only space", " \n\t \u00a0 ", ""},
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("%s: Normalize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if got := Normalize(Normalize(tt.in)); got != tt.want {
			t.Errorf("%s: Normalize is not idempotent: %q", tt.name, got)
		}
	}
}

func TestChecksumStable(t *testing.T) {
	a := Normalize("Hello\r\n\r\n\r\nworld  again")
	b := Normalize("Hello\n\nworld again\n")
	if Checksum(a) != Checksum(b) {
		t.Errorf("same normalised text, different checksums: %s %s", Checksum(a), Checksum(b))
	}
	if want := "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"; Checksum("hello") != want {
		t.Errorf("Checksum(hello) = %s, want %s", Checksum("hello"), want)
	}
	if Checksum(a) == Checksum("Hello\n\nworld") {
		t.Error("different texts share a checksum")
	}
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func fetched(url, contentType, body string) *record.Record {
	return &record.Record{URL: url, Fetch: &record.FetchInfo{FinalURL: url, ContentType: contentType, Status: 200}, Body: &body}
}

// testMainText are the real extractors (lib/parse/mainext).
var testMainText = MainText{Readability: mainext.Readability, Trafilatura: mainext.Trafilatura}

func generic() []Adapter {
	return []Adapter{Article(testMainText), Markdown(), PlainText(), VisibleText()}
}

func TestArticle(t *testing.T) {
	rec := fetched("https://coastline.example/2024/bridge", "text/html; charset=utf-8", readFixture(t, "article.html"))
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatalf("error: %+v", rec.Error)
	}
	got := struct{ Title, Author, PublishedAt, SiteName, Lang, Description, Adapter string }{
		rec.Title, rec.Author, rec.PublishedAt, rec.SiteName, rec.Lang, rec.Description, rec.Parse.Adapter,
	}
	want := struct{ Title, Author, PublishedAt, SiteName, Lang, Description, Adapter string }{
		"Why the Harbour Bridge Sings in Winter", "Ines Calloway, Tomas Reyes", "2024-01-15T07:30:00Z",
		"Coastline Weekly", "en", "The low hum from the harbour bridge, explained.", "article",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	text := rec.TextValue()
	for _, s := range []string{"low, steady hum", "Measuring a bridge that hums", "named a seasonal loaf", "freezing quay at midnight."} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q", s)
		}
	}
	for _, s := range []string{"Advertisement", "Subscribe now", "Related stories", "All rights reserved", "Cookie settings", "do not index me"} {
		if strings.Contains(text, s) {
			t.Errorf("text keeps boilerplate %q", s)
		}
	}
	// Paragraph structure survives: one paragraph per <p>/<h2>.
	paras := Paragraphs(text)
	if len(paras) < 8 || !strings.HasPrefix(paras[0], "Residents along the eastern quay") || paras[2] != "Measuring a bridge that hums" {
		t.Errorf("paragraphs not kept: %q", paras)
	}
	if rec.Checksum != Checksum(text) || !strings.HasPrefix(rec.Checksum, "sha256:") {
		t.Errorf("checksum %q does not match the text", rec.Checksum)
	}
	if len(rec.Chunks) == 0 || rec.Chunks[0].Tokens != chunk.CountTokens(rec.Chunks[0].Text) {
		t.Errorf("chunks missing or miscounted: %+v", rec.Chunks)
	}
	if !strings.HasPrefix(rec.Excerpt, "Residents along") || !strings.HasSuffix(rec.Excerpt, "…") {
		t.Errorf("excerpt %q", rec.Excerpt)
	}
}

func TestArticleSoftHyphens(t *testing.T) {
	rec := fetched("https://texts.example/amicitia", "text/html", readFixture(t, "latin.html"))
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatalf("error: %+v", rec.Error)
	}
	text := rec.TextValue()
	if strings.ContainsRune(text, '\u00ad') {
		t.Error("soft hyphen left in text")
	}
	for _, w := range []string{"Quintus Mucius", "narrare", "prudenter"} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q: %q", w, text)
		}
	}
	if rec.Lang != "la" || rec.Title != "De Amicitia" {
		t.Errorf("lang %q title %q", rec.Lang, rec.Title)
	}
	if n := len(Paragraphs(text)); n != 3 {
		t.Errorf("%d paragraphs, want 3", n)
	}
}

func TestVisibleTextFallback(t *testing.T) {
	rec := fetched("https://allotments.example/plots", "text/html", readFixture(t, "nav-only.html"))
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatalf("error: %+v", rec.Error)
	}
	if rec.Parse.Adapter != "visible-text" || !cmp.Equal(rec.Parse.FallbackFrom, []string{"article"}) {
		t.Errorf("parse = %+v, want visible-text after article", rec.Parse)
	}
	want := "Plot 1 – beans and leeks\n\nPlot 2 – soft fruit\n\nPlot 3 – herbs\n\nPlot 4 – waiting list"
	if diff := cmp.Diff(want, rec.TextValue()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if rec.Title != "Lindenweg Allotments: plots" {
		t.Errorf("title %q", rec.Title)
	}
}

func TestMarkdown(t *testing.T) {
	rec := fetched("https://notes.example/tide.md", "text/markdown; charset=utf-8", readFixture(t, "notes.md"))
	Run(rec, generic(), Options{})
	if rec.Error != nil {
		t.Fatalf("error: %+v", rec.Error)
	}
	want := "Tide pools at low water\n\n" +
		"Small pools keep a whole world alive between tides. See the survey map and a crab.\n\n" +
		"limpets cling to the rock\nanemones close when exposed\n\n" +
		"Count only what you can see.\n\n" +
		"pool,species\n3,12"
	if diff := cmp.Diff(want, rec.TextValue()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
	if rec.Title != "Field notes: tide pools" || rec.Author != "R. Okafor" || rec.PublishedAt != "2023-06-02T00:00:00Z" {
		t.Errorf("front matter: title %q author %q date %q", rec.Title, rec.Author, rec.PublishedAt)
	}
	if rec.Parse.Adapter != "markdown" {
		t.Errorf("adapter %q", rec.Parse.Adapter)
	}
}

func TestMarkdownByExtensionAndHeadingTitle(t *testing.T) {
	rec := fetched("https://raw.example/README.md?x=1", "text/plain", "Intro\n=====\n\nSome `code` and __bold__ text.\n")
	Run(rec, generic(), Options{})
	if rec.Parse == nil || rec.Parse.Adapter != "markdown" || rec.Title != "Intro" || rec.TextValue() != "Intro\n\nSome code and bold text." {
		t.Errorf("got adapter %+v title %q text %q", rec.Parse, rec.Title, rec.TextValue())
	}
}

func TestPlainText(t *testing.T) {
	rec := fetched("file:///notes/note.txt", "text/plain; charset=utf-8", readFixture(t, "note.txt"))
	Run(rec, generic(), Options{})
	want := "First line of a plain note.\nStill the first paragraph.\n\nSecond paragraph with tabs."
	if rec.Error != nil || rec.TextValue() != want || rec.Parse.Adapter != "plain-text" {
		t.Errorf("got error %+v parse %+v text %q", rec.Error, rec.Parse, rec.TextValue())
	}
	// No content type: sniffed as text.
	body := "just words"
	rec = &record.Record{URL: "https://x.example/a", Body: &body}
	Run(rec, generic(), Options{})
	if rec.Parse == nil || rec.Parse.Adapter != "plain-text" {
		t.Errorf("sniffed plain text: %+v %+v", rec.Parse, rec.Error)
	}
}

// fakeAdapter matches everything and fails with err (or succeeds with
// text when err is nil).
type fakeAdapter struct {
	name string
	err  error
	text string
}

func (f fakeAdapter) Name() string                  { return f.name }
func (f fakeAdapter) Match(rec *record.Record) bool { return true }
func (f fakeAdapter) Parse(rec *record.Record) (*Result, error) {
	if f.err != nil {
		return nil, f.err
	}
	return &Result{Title: "fake", SourceType: record.SourceText, Source: "fake-upstream", Segments: []Segment{{Text: f.text}}}, nil
}

type panicAdapter struct{}

func (panicAdapter) Name() string                          { return "panics" }
func (panicAdapter) Match(*record.Record) bool             { return true }
func (panicAdapter) Parse(*record.Record) (*Result, error) { panic("boom") }

func TestChain(t *testing.T) {
	html := "<html><body><article>" + strings.Repeat("<p>A sentence about the chain and its fallbacks, long enough to count.</p>", 6) + "</article></body></html>"
	tests := []struct {
		name     string
		adapters []Adapter
		wantAd   string
		wantFrom []string
		wantErr  *record.Error
		wantType string
	}{
		{
			name:     "specific fails, article takes over",
			adapters: append([]Adapter{fakeAdapter{name: "youtube", err: errors.New("no player response")}}, generic()...),
			wantAd:   "article", wantFrom: []string{"youtube"},
		},
		{
			name:     "panicking adapter falls back",
			adapters: append([]Adapter{panicAdapter{}}, generic()...),
			wantAd:   "article", wantFrom: []string{"panics"},
		},
		{
			name:     "typed error ends the chain",
			adapters: append([]Adapter{fakeAdapter{name: "pdf", err: &record.Error{Code: record.CodeEncrypted, Message: "needs a password"}}}, generic()...),
			wantErr:  &record.Error{Stage: record.StageParse, Code: record.CodeEncrypted, Message: "needs a password"},
		},
		{
			name:     "non-retryable extract_failed falls back",
			adapters: append([]Adapter{fakeAdapter{name: "x", err: &record.Error{Code: record.CodeExtractFailed, Message: "no tweet"}}}, generic()...),
			wantAd:   "article", wantFrom: []string{"x"},
		},
		{
			name:     "empty result falls back",
			adapters: append([]Adapter{fakeAdapter{name: "empty"}}, generic()...),
			wantAd:   "article", wantFrom: []string{"empty"},
		},
		{
			name:     "source type corrected",
			adapters: []Adapter{fakeAdapter{name: "ok", text: "Fine text."}},
			wantAd:   "ok", wantType: record.SourceText,
		},
		{
			name:     "all fail",
			adapters: []Adapter{fakeAdapter{name: "a", err: errors.New("bad")}, fakeAdapter{name: "b", err: errors.New("worse")}},
			wantErr:  &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: "a: bad; b: worse"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := fetched("https://chain.example/p", "text/html", html)
			rec.SourceType = record.SourceArticle
			Run(rec, tt.adapters, Options{})
			if diff := cmp.Diff(tt.wantErr, rec.Error); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if tt.wantErr != nil {
				return
			}
			if rec.Parse.Adapter != tt.wantAd {
				t.Errorf("adapter %q, want %q", rec.Parse.Adapter, tt.wantAd)
			}
			if diff := cmp.Diff(tt.wantFrom, rec.Parse.FallbackFrom, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("fallback_from (-want +got):\n%s", diff)
			}
			if len(tt.wantFrom) > 0 && len(rec.Parse.Warnings) == 0 {
				t.Error("no warning says why the earlier adapter failed")
			}
			if tt.wantType != "" && rec.SourceType != tt.wantType {
				t.Errorf("source_type %q, want %q", rec.SourceType, tt.wantType)
			}
		})
	}
}

func TestRunPassThroughAndTextImport(t *testing.T) {
	body := "<p>x</p>"
	errRec := &record.Record{URL: "https://e.example", Body: &body, Error: &record.Error{Stage: "fetch", Code: "timeout"}}
	before := *errRec
	Run(errRec, generic(), Options{})
	if !cmp.Equal(before, *errRec) {
		t.Error("record with an error was changed")
	}

	nm := &record.Record{URL: "https://e.example", Fetch: &record.FetchInfo{NotModified: true, Status: 304}}
	Run(nm, generic(), Options{})
	if nm.Error != nil || nm.Parse != nil {
		t.Errorf("not-modified record was parsed: %+v", nm)
	}

	none := &record.Record{URL: "https://e.example"}
	Run(none, generic(), Options{})
	if none.Error == nil || none.Error.Code != record.CodeNoBody || none.Error.Stage != record.StageParse {
		t.Errorf("no body: error %+v", none.Error)
	}

	text := "A note.\r\n\r\n\r\nWith  two paragraphs."
	imp := &record.Record{URL: "https://notes.local/1", Text: &text}
	Run(imp, generic(), Options{})
	if imp.Parse == nil || imp.Parse.Adapter != AdapterTextImport || imp.TextValue() != "A note.\n\nWith two paragraphs." || len(imp.Chunks) != 1 || imp.Checksum != Checksum(imp.TextValue()) {
		t.Errorf("text import: %+v text %q", imp.Parse, imp.TextValue())
	}
}

func TestTextImportDetectsLanguage(t *testing.T) {
	text := "Die Fähre legt jeden Morgen um sieben Uhr ab und bringt die Pendler über den Fluss. " +
		"Im Winter fährt sie seltener, weil der Wind auf dem Wasser oft zu stark ist und die Strömung zunimmt. " +
		"Trotzdem ist sie für viele Menschen in der Stadt die schnellste Verbindung zur Arbeit."
	rec := &record.Record{URL: "https://notes.local/de", Text: &text}
	Run(rec, generic(), Options{})
	if rec.Lang != "de" {
		t.Errorf("lang %q, want de", rec.Lang)
	}
	declared := "en"
	rec = &record.Record{URL: "https://notes.local/de2", Text: &text, Lang: declared}
	Run(rec, generic(), Options{})
	if rec.Lang != declared {
		t.Errorf("declared lang replaced by %q", rec.Lang)
	}
}

func TestRunKeepsRecordMetadata(t *testing.T) {
	// A title given at save time survives a plain-text parse that has none.
	rec := fetched("https://x.example/n.txt", "text/plain", "Body text.")
	rec.Title = "Saved title"
	Run(rec, generic(), Options{})
	if rec.Title != "Saved title" {
		t.Errorf("title %q", rec.Title)
	}
}

func TestBase64TextBody(t *testing.T) {
	b := base64.StdEncoding.EncodeToString([]byte("Caf\xe9 text in an unknown charset."))
	rec := &record.Record{URL: "https://x.example/a.txt", Fetch: &record.FetchInfo{ContentType: "text/plain"}, BodyBase64: &b}
	Run(rec, generic(), Options{})
	if rec.Error != nil || rec.TextValue() != "Caf\ufffd text in an unknown charset." || rec.Body != nil || rec.BodyBase64 == nil {
		t.Errorf("error %+v text %q body %v", rec.Error, rec.TextValue(), rec.Body)
	}
}

func TestNoAdapter(t *testing.T) {
	b := "AAAA"
	rec := &record.Record{URL: "https://x.example/img.png", Fetch: &record.FetchInfo{ContentType: "image/png"}, BodyBase64: &b}
	Run(rec, generic(), Options{})
	if rec.Error == nil || rec.Error.Code != record.CodeExtractFailed || !strings.Contains(rec.Error.Message, "image/png") {
		t.Errorf("error %+v", rec.Error)
	}
}

func TestExtractMeta(t *testing.T) {
	tests := []struct {
		name, html string
		want       pageMeta
	}{
		{
			name: "json-ld article over webpage, author string, date without zone",
			html: `<html lang="de-AT"><head><title>T | Site</title><script type="application/ld+json">[{"@type":"WebPage","headline":"Page headline"},{"@type":["BlogPosting"],"headline":"Post headline","author":"Anna Berg","datePublished":"2021-03-04 05:06:07"}]</script></head></html>`,
			want: pageMeta{Title: "Post headline", Author: "Anna Berg", PublishedAt: "2021-03-04T05:06:07Z", Lang: "de"},
		},
		{
			name: "meta tags and title suffix",
			html: `<html><head><title>Story name - Example News</title><meta property="og:site_name" content="Example News"><meta name="author" content="By Jo Park"><meta name="description" content="  A  story. "><meta property="og:locale" content="fr_FR"><meta name="date" content="2020-02-01"></head></html>`,
			want: pageMeta{Title: "Story name", Author: "Jo Park", PublishedAt: "2020-02-01T00:00:00Z", SiteName: "Example News", Description: "A story.", Lang: "fr"},
		},
		{
			// issue 29: an embedded video's short caption is not the page's
			// title, and a theme's "View all posts by" is not part of a name.
			name: "og:title over an embedded video's json-ld, author link label",
			html: `<html><head><script type="application/ld+json">{"@type":"VideoObject","name":"Watch: the gates close","description":"A short clip."}</script><meta property="og:title" content="Valley flood gates pass their first test"><meta name="author" content="View all posts by Ana Ruiz"></head></html>`,
			want: pageMeta{Title: "Valley flood gates pass their first test", Author: "Ana Ruiz", Description: "A short clip."},
		},
		{
			name: "broken json-ld ignored, h1 title",
			html: `<html><head><script type="application/ld+json">{not json</script></head><body><h1>Only &amp; heading</h1></body></html>`,
			want: pageMeta{Title: "Only & heading"},
		},
	}
	for _, tt := range tests {
		doc := mustParse(t, tt.html)
		if diff := cmp.Diff(tt.want, extractMeta(doc)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestNormDate(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-15T08:30:00+01:00":       "2024-01-15T07:30:00Z",
		"2024-01-15T08:30:00.123Z":        "2024-01-15T08:30:00Z",
		"2024-01-15":                      "2024-01-15T00:00:00Z",
		"Mon, 15 Jan 2024 08:30:00 +0100": "2024-01-15T07:30:00Z",
		"January 15, 2024":                "2024-01-15T00:00:00Z",
		"yesterday":                       "",
		"0001-01-01":                      "",
	} {
		if got := normDate(in); got != want {
			t.Errorf("normDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func mustParse(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestArticleWithoutMainText: an article adapter built without its
// extractors (a program that did not link lib/parse/mainext) fails every
// page, and the chain falls back to the page's visible text, saying why.
func TestArticleWithoutMainText(t *testing.T) {
	page := "<html><head><title>Kettles</title></head><body><article><p>" + strings.Repeat("A kettle boils water quickly. ", 20) + "</p></article></body></html>"
	rec := fetched("https://x.example/k.html", "text/html", page)
	Run(rec, []Adapter{Article(MainText{}), Markdown(), PlainText(), VisibleText()}, Options{})
	if rec.Error != nil || rec.Parse == nil {
		t.Fatalf("error %+v parse %+v", rec.Error, rec.Parse)
	}
	if rec.Parse.Adapter != "visible-text" || !cmp.Equal(rec.Parse.FallbackFrom, []string{"article"}) {
		t.Errorf("adapter %q, fallback from %v; want visible-text after article", rec.Parse.Adapter, rec.Parse.FallbackFrom)
	}
	if !strings.Contains(strings.Join(rec.Parse.Warnings, "; "), "not linked") {
		t.Errorf("warnings %q do not say why", rec.Parse.Warnings)
	}
	if !strings.Contains(rec.TextValue(), "A kettle boils water quickly.") {
		t.Errorf("text %q", rec.TextValue())
	}
	// With the extractors, the same page is an article.
	rec = fetched("https://x.example/k.html", "text/html", page)
	Run(rec, generic(), Options{})
	if rec.Parse == nil || rec.Parse.Adapter != "article" {
		t.Errorf("with mainext: parse %+v", rec.Parse)
	}
}
