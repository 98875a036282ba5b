package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// indexItems stores n parsed items "Item NN" on two sites, tagged by
// parity, with an excerpt and text of a few hundred tokens.
func indexItems(t *testing.T, l *ledger.Ledger, n int) []string {
	t.Helper()
	ctx := context.Background()
	st, err := ledger.Open(ctx, l.Path(), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var ids []string
	for i := 0; i < n; i++ {
		host := "alpha.example"
		if i%2 == 1 {
			host = "beta.example"
		}
		u := fmt.Sprintf("https://%s/post-%02d", host, i)
		rec := &record.Record{URL: u, CanonicalURL: u, ID: record.ItemID(u), SourceType: record.SourceArticle,
			Title: fmt.Sprintf("Item %02d", i), Excerpt: fmt.Sprintf("The excerpt of item %02d.", i)}
		rec.Chunks = []record.Chunk{{Index: 0, Text: fmt.Sprintf("Item %02d is about herons. ", i) + strings.Repeat("More words about wading birds. ", 60), Tokens: 400}}
		if _, err := st.Index(ctx, rec, spec.IndexOptions{}); err != nil {
			t.Fatal(err)
		}
		tag := "even"
		if i%2 == 1 {
			tag = "odd"
		}
		if _, err := l.Tag(ctx, rec.ID, []string{tag}, nil, ledger.SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.ID)
	}
	return ids
}

// TestLibrary: every item reachable through pages, filters by reading
// state, archive, tag, site and type; star, read, progress and unread
// posts, with and without the script's JSON; a search that matches only
// archived items says so, with a link that shows them.
func TestLibrary(t *testing.T) {
	ts, l := newTestServer(t)
	ctx := context.Background()
	ids := indexItems(t, l, 25)
	get := func(path string) string {
		t.Helper()
		res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+path, "")))
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%s", path, res.StatusCode, body)
		}
		return body
	}
	post := func(path, form string, jsonAnswer bool) (*http.Response, string) {
		t.Helper()
		req := withCookie(mustReq(t, "POST", ts.URL+path, form))
		if jsonAnswer {
			req.Header.Set("Accept", "application/json")
		}
		return do(t, req)
	}
	// paging: 20 + 5, every item once
	seen := map[string]int{}
	for _, p := range []string{"/library", "/library?page=2"} {
		body := get(p)
		for _, id := range ids {
			if strings.Contains(body, `data-id="`+id+`"`) {
				seen[id]++
			}
		}
	}
	if len(seen) != 25 {
		t.Errorf("two pages show %d of 25 items", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s on %d pages", id, n)
		}
	}
	one := get("/library")
	for _, want := range []string{`rel="next"`, "The excerpt of item 24.", "1 min", `href="/library?site=alpha.example"`, `href="/library?tag=even"`, "<b>unread</b>"} {
		if !strings.Contains(one, want) {
			t.Errorf("library page 1 lacks %q", want)
		}
	}

	// star without script: a redirect back to the reader; with: JSON
	res, _ := post("/items/"+ids[3]+"/star", "star=1", false)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/items/"+ids[3]) {
		t.Errorf("star: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res, body := post("/items/"+ids[5]+"/star", "star=1", true)
	if res.StatusCode != 200 || !strings.Contains(body, `"starred":true`) {
		t.Errorf("star (script): %d %s", res.StatusCode, body)
	}
	starred := get("/library?show=starred")
	if !strings.Contains(starred, `data-id="`+ids[3]+`"`) || !strings.Contains(starred, `data-id="`+ids[5]+`"`) || strings.Count(starred, `class="libitem`) != 2 {
		t.Errorf("starred view: want items 3 and 5 only")
	}
	if !strings.Contains(starred, `class="starmark"`) {
		t.Errorf("starred view: no star mark")
	}
	// the reader shows the star; progress marks read
	if r := get("/items/" + ids[3]); !strings.Contains(r, `aria-pressed="true"`) || !strings.Contains(r, "Mark read") {
		t.Errorf("reader of a starred unread item: no pressed star or no Mark read")
	}
	res, _ = post("/items/"+ids[7]+"/progress", "part=0&progress=0.5", false)
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("progress: %d", res.StatusCode)
	}
	if r := get("/items/" + ids[7]); !strings.Contains(r, `data-progress="0.5"`) || !strings.Contains(r, "Mark unread") {
		t.Errorf("reader of a read item: no saved place or no Mark unread")
	}
	for _, bad := range []string{"progress=2", "progress=NaN", "progress=x"} {
		if res, _ := post("/items/"+ids[7]+"/progress", bad, false); res.StatusCode != http.StatusBadRequest {
			t.Errorf("progress %s: %d, want 400", bad, res.StatusCode)
		}
	}
	if res, _ := post("/items/ll_0000000000000000/progress", "progress=0.5", false); res.StatusCode != http.StatusNotFound {
		t.Errorf("progress of an unknown item: %d, want 404", res.StatusCode)
	}
	read := get("/library?show=read")
	if strings.Count(read, `class="libitem`) != 1 || !strings.Contains(read, `data-id="`+ids[7]+`"`) {
		t.Errorf("read view: want item 7 only")
	}
	if strings.Count(get("/library?show=unread"), `class="libitem`) != 20 {
		t.Errorf("unread view page 1: want 20 items")
	}
	// mark unread goes back to the unread items
	res, _ = post("/items/"+ids[7]+"/read", "read=0", false)
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/library?") || !strings.Contains(loc, "show=unread") {
		t.Errorf("unread: %d %s", res.StatusCode, loc)
	}
	if strings.Contains(get("/library?show=read"), `data-id="`+ids[7]+`"`) {
		t.Errorf("item 7 still read")
	}

	// filters: tag, site, type
	if b := get("/library?tag=odd"); strings.Count(b, `class="libitem`) != 12 || strings.Contains(b, "Item 02") {
		t.Errorf("tag odd: want the 12 odd items")
	}
	if b := get("/library?site=beta.example"); strings.Count(b, `class="libitem`) != 12 || strings.Contains(b, "Item 04") {
		t.Errorf("site beta.example: want the 12 odd items")
	}
	if b := get("/library?type=pdf"); strings.Contains(b, `class="libitem`) {
		t.Errorf("type pdf lists articles")
	}
	for bad, words := range map[string]string{
		"/library?show=blue": "show &#34;blue&#34;: want unread, read, starred or archived",
		// the words of ledger.CheckType, as every face says them
		"/library?type=movie": "type &#34;movie&#34;: want article, x, youtube, pdf or text",
	} {
		if res, body := do(t, withCookie(mustReq(t, "GET", ts.URL+bad, ""))); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, words) {
			t.Errorf("%s: %d, want 400 saying %s\n%s", bad, res.StatusCode, words, body)
		}
	}

	// archived means read, still findable
	if _, err := l.Archive(ctx, ids[9], true, ledger.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if b := get("/library?show=archived"); strings.Count(b, `class="libitem`) != 1 || !strings.Contains(b, "Item 09") || !strings.Contains(b, "<h1>Archive</h1>") {
		t.Errorf("archive view: want item 9 only")
	}
	if strings.Contains(get("/library?show=unread&page=2"), "Item 09") {
		t.Errorf("an archived item is unread")
	}
	// words only an archived item holds
	words := "\"Item 09 is about\""
	s := get("/search?q=" + strings.ReplaceAll(words, " ", "+"))
	if !strings.Contains(s, "Only archived items match") || !strings.Contains(s, "archived=only") {
		t.Errorf("search matching only an archived item does not say so:\n%s", s)
	}
	if strings.Contains(s, "Nothing matched") {
		t.Errorf("search matching only an archived item says Nothing matched")
	}
	if b := get("/search?archived=only&q=" + strings.ReplaceAll(words, " ", "+")); !strings.Contains(b, "Item 09") {
		t.Errorf("the archived matches' link does not find item 9")
	}
	lib := get("/library?q=" + strings.ReplaceAll(words, " ", "+"))
	if !strings.Contains(lib, "Only archived items match") || !strings.Contains(lib, "show=archived") {
		t.Errorf("library words matching only an archived item do not say so")
	}
	if s := get("/search?q=zzzqqq"); strings.Contains(s, "Only archived") {
		t.Errorf("a search matching nothing at all talks about the archive")
	}
	// the history keeps star and read
	evs, err := l.History(ctx, ids[7])
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range evs {
		actions = append(actions, e.Event.Action)
	}
	if got := strings.Join(actions, " "); !strings.Contains(got, "read unread") {
		t.Errorf("history of item 7: %s, want read then unread", got)
	}
}
