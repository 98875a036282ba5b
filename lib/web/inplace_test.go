package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// indexedItem stores an item with text and returns its id.
func indexedItem(t *testing.T, l *ledger.Ledger, u string, paras ...string) string {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle, Title: "Item " + u,
		Chunks: []record.Chunk{{Index: 0, Text: strings.Join(paras, "\n\n"), Tokens: 40}}}
	if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	return rec.ID
}

// TestReaderActionAnchor: without the script, an action's redirect
// returns to the passage: /items/ID?done=…#a-NNN, and the page has that
// anchor on the new annotation's mark (or, for a note, on its entry).
func TestReaderActionAnchor(t *testing.T) {
	ts, l := newTestServer(t)
	id := indexedItem(t, l, "https://example.com/anchor", "Tides come twice a day.", "Moons pull the seas along.")
	for _, tc := range []struct{ typ, quote, note, el string }{
		{"highlight", "Moons pull the seas", "", "mark"},
		{"note", "", "a note on no passage", "span"},
	} {
		form := url.Values{"type": {tc.typ}, "quote": {tc.quote}, "note": {tc.note}, "back": {"/items/" + id}}
		res, body := do(t, withCookie(mustReq(t, "POST", ts.URL+"/items/"+id+"/annotate", form.Encode())))
		if res.StatusCode != 303 {
			t.Fatalf("%s: %d\n%s", tc.typ, res.StatusCode, body)
		}
		loc, _ := url.Parse(res.Header.Get("Location"))
		if loc.Path != "/items/"+id || !strings.HasPrefix(loc.Fragment, "a-") || loc.Query().Get("done") != "annotated" {
			t.Fatalf("%s: redirect to %s, want /items/ID?done=annotated#a-ID", tc.typ, loc)
		}
		_, page := do(t, withCookie(mustReq(t, "GET", ts.URL+loc.RequestURI(), "")))
		if !strings.Contains(page, "<"+tc.el+` `) || !strings.Contains(page, `id="`+loc.Fragment+`"`) {
			t.Errorf("%s: the page has no element with id %s", tc.typ, loc.Fragment)
		}
		if strings.Count(page, `id="`+loc.Fragment+`"`) != 1 {
			t.Errorf("%s: id %s is not unique", tc.typ, loc.Fragment)
		}
	}
	// tags return to the tags
	res, _ := do(t, withCookie(mustReq(t, "POST", ts.URL+"/items/"+id+"/tags", url.Values{"add": {"sea"}, "back": {"/items/" + id}}.Encode())))
	if loc := res.Header.Get("Location"); !strings.HasSuffix(loc, "#tags-box") {
		t.Errorf("tags: redirect to %s, want #tags-box", loc)
	}
}

// TestReaderFragment: the script's post (header Fragment: reader) gets
// the reader's content without the layout, with the new mark and the
// flash; the same post from another origin, or with neither Origin nor
// Sec-Fetch-Site, is refused as a form's is and changes nothing.
func TestReaderFragment(t *testing.T) {
	ts, l := newTestServer(t)
	id := indexedItem(t, l, "https://example.com/frag", "Tides come twice a day.", "Moons pull the seas along.")
	form := url.Values{"type": {"highlight"}, "quote": {"Tides come"}, "back": {"/items/" + id}}.Encode()
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"cross-site fetch metadata", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site other origin", map[string]string{"Sec-Fetch-Site": "same-site"}, 403},
		{"other Origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"neither Origin nor Sec-Fetch-Site", map[string]string{"Origin": ""}, 403},
	} {
		req := withCookie(mustReq(t, "POST", ts.URL+"/items/"+id+"/annotate", form))
		req.Header.Set("Fragment", "reader")
		for k, v := range tc.header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		if res, body := do(t, req); res.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d\n%s", tc.name, res.StatusCode, tc.want, body)
		}
	}
	if rec, _ := l.Show(context.Background(), id, ledger.ShowOptions{}); len(rec.Annotations) != 0 {
		t.Fatalf("refused posts saved %d annotations", len(rec.Annotations))
	}
	req := withCookie(mustReq(t, "POST", ts.URL+"/items/"+id+"/annotate", form))
	req.Header.Set("Fragment", "reader")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, body := do(t, req)
	if res.StatusCode != 200 {
		t.Fatalf("same origin: %d\n%s", res.StatusCode, body)
	}
	rec, _ := l.Show(context.Background(), id, ledger.ShowOptions{})
	if len(rec.Annotations) != 1 {
		t.Fatalf("%d annotations, want 1", len(rec.Annotations))
	}
	for _, want := range []string{`id="flash"`, "Annotation saved.", `id="text"`, `id="anns-box"`, `id="tags-box"`,
		fmt.Sprintf(`id="a-%d"`, rec.Annotations[0].ID), "Tides come</mark>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the fragment lacks %s", want)
		}
	}
	for _, not := range []string{"<html", "<nav", "<script"} {
		if strings.Contains(body, not) {
			t.Errorf("the fragment has the layout's %s", not)
		}
	}
	if res.Header.Get("Content-Security-Policy") == "" {
		t.Error("the fragment has no CSP")
	}
	// an error is the error page's status, for the script to say
	req = withCookie(mustReq(t, "POST", ts.URL+"/items/"+id+"/annotate", url.Values{"type": {"highlight"}}.Encode()))
	req.Header.Set("Fragment", "reader")
	if res, _ := do(t, req); res.StatusCode != 400 {
		t.Errorf("an empty highlight: %d, want 400", res.StatusCode)
	}
}

// agentAnns adds agent highlights of texts to item id and returns their ids.
func agentAnns(t *testing.T, l *ledger.Ledger, id string, texts ...string) []int64 {
	t.Helper()
	c := 0.6
	var anns []record.Annotation
	for _, s := range texts {
		anns = append(anns, record.Annotation{Type: record.AnnHighlight, Text: s, Actor: "agent:t", Confidence: &c})
	}
	out, err := l.Annotate(context.Background(), id, anns, ledger.SaveOptions{Actor: "agent:t"})
	if err != nil {
		t.Fatal(err)
	}
	return out.Save.AnnotationIDs
}

// versionOf is the version the review page shows for annotation aid.
func versionOf(t *testing.T, page string, aid int64) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, fmt.Sprintf(`data-ann="%d" data-version="`, aid))
	if !ok {
		t.Fatalf("no card for annotation %d", aid)
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// TestReviewStalePage: two pages show one annotation; the first page's
// confirm applies, the second page's reject is 409 with a message and
// changes nothing; the confirm is undone; a card shows its quote in its
// sentence; a batch with one stale annotation changes nothing.
func TestReviewStalePage(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	id := indexedItem(t, l, "https://example.com/stale", "Walruses haul out on ice. They use their tusks to climb. Calves stay close.", "Ice is thinning each year.")
	ids := agentAnns(t, l, id, "tusks to climb", "thinning")
	_, page := do(t, withCookie(mustReq(t, "GET", ts.URL+"/review", "")))
	if !strings.Contains(page, `<span class="ctx">They use their </span><mark class="highlight agent">tusks to climb</mark><span class="ctx">.</span>`) {
		t.Errorf("the card does not show the quote in its sentence:\n%s", page)
	}
	v := versionOf(t, page, ids[0])
	post := func(form url.Values) (int, string, string) {
		res, body := do(t, withCookie(mustReq(t, "POST", fmt.Sprintf("%s/items/%s/annotations/%d/review", ts.URL, id, ids[0]), form.Encode())))
		return res.StatusCode, res.Header.Get("Location"), body
	}
	code, loc, _ := post(url.Values{"decision": {"confirm"}, "if_version": {v}, "back": {"/review"}})
	if code != 303 || !strings.Contains(loc, "undo_ann=") {
		t.Fatalf("confirm: %d %s", code, loc)
	}
	code, _, body := post(url.Values{"decision": {"reject"}, "if_version": {v}, "back": {"/review"}})
	if code != 409 || !strings.Contains(body, "changed since the page showed it") || !strings.Contains(body, "confirmed by human") {
		t.Fatalf("the stale reject: %d, want 409 with a message\n%s", code, body)
	}
	if rec, _ := l.Show(ctx, id, ledger.ShowOptions{}); rec.Annotations[0].Review != "confirmed" {
		t.Errorf("after the stale reject: %q, want confirmed", rec.Annotations[0].Review)
	}
	// the page the confirm returns to offers its undo
	lu, _ := url.Parse(loc)
	_, page = do(t, withCookie(mustReq(t, "GET", ts.URL+lu.RequestURI(), "")))
	if !strings.Contains(page, "Confirmed") || !strings.Contains(page, `value="undo"`) {
		t.Fatalf("the page after a confirm offers no undo:\n%s", page)
	}
	nv := lu.Query().Get("undo_v")
	if code, _, body := post(url.Values{"decision": {"undo"}, "if_version": {nv}, "back": {"/review"}}); code != 303 {
		t.Fatalf("undo: %d\n%s", code, body)
	}
	if rec, _ := l.Show(ctx, id, ledger.ShowOptions{}); rec.Annotations[0].Review != "" {
		t.Errorf("after the undo: %q, want undecided", rec.Annotations[0].Review)
	}
	// the script's card: decided with its undo, then undecided again
	req := withCookie(mustReq(t, "POST", fmt.Sprintf("%s/items/%s/annotations/%d/review", ts.URL, id, ids[1]), url.Values{"decision": {"reject"}, "back": {"/review"}}.Encode()))
	req.Header.Set("Fragment", "review")
	res, card := do(t, req)
	if res.StatusCode != 200 || !strings.HasPrefix(strings.TrimSpace(card), `<li class="qitem decided rejected`) || !strings.Contains(card, `data-key="u"`) {
		t.Errorf("the decided card: %d\n%s", res.StatusCode, card)
	}
	// a batch: one stale version, nothing changed
	_, page = do(t, withCookie(mustReq(t, "GET", ts.URL+"/review", "")))
	v0 := versionOf(t, page, ids[0])
	form := url.Values{"decision": {"reject"}, "ann": {fmt.Sprintf("%s:%d:%s", id, ids[0], v0), fmt.Sprintf("%s:%d:%s", id, ids[1], "0123456789abcdef")}}
	res, body = do(t, withCookie(mustReq(t, "POST", ts.URL+"/review/batch", form.Encode())))
	if res.StatusCode != 409 || !strings.Contains(body, "nothing in the batch was changed") {
		t.Errorf("a stale batch: %d\n%s", res.StatusCode, body)
	}
	if rec, _ := l.Show(ctx, id, ledger.ShowOptions{}); rec.Annotations[0].Review != "" {
		t.Errorf("a failed batch decided annotation %d: %q", ids[0], rec.Annotations[0].Review)
	}
}

func TestQuoteContext(t *testing.T) {
	for _, tc := range []struct{ passage, quote, before, after string }{
		{"One. Two three four. Five.", "three", "Two", "four."},
		{"One. Two three four. Five.", "Two three four.", "", ""},
		{"First para ends\n\nSecond   para has the quote here and goes on. Next.", "the quote", "Second para has", "here and goes on."},
		{"A para.\n\nQuote at end\n\nNext para.", "at end", "Quote", ""},
		{"no such", "missing", "", ""},
		{"É café. Où est la quête? Là.", "est la", "Où", "quête?"},
	} {
		b, a := quoteContext(tc.passage, tc.quote)
		if strings.TrimSpace(b) != tc.before || strings.TrimSpace(a) != tc.after {
			t.Errorf("%q in %.40q: %q | %q, want %q | %q", tc.quote, tc.passage, b, a, tc.before, tc.after)
		}
	}
	// no sentence end near: at most contextLimit each side, cut at a space
	b, a := quoteContext(strings.Repeat("word ", 200)+"the quote "+strings.Repeat("more ", 200), "the quote")
	if !strings.HasPrefix(b, "…word ") || len(b) > contextLimit+len("…") || !strings.HasSuffix(a, " more…") || len(a) > contextLimit+len("…") {
		t.Errorf("long context: %q | %q", b, a)
	}
}
