package web

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

// upload is the import form's post of data to the test server at url,
// with its session.
func upload(t *testing.T, url, name string, data []byte) *http.Request {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.WriteField("tags", "imported")
	mw.Close()
	req, _ := http.NewRequest("POST", url+"/import", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return withCookie(req)
}

// TestImportUpload: an uploaded bookmarks file is read by the importers;
// its web links are saved with the form's tags, a file:// link is refused
// and said, and a file over the cap is refused whole.
func TestImportUpload(t *testing.T) {
	ts, l := newTestServer(t)
	html := `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<DL><p>
<DT><A HREF="https://example.com/one" ADD_DATE="1700000000">One</A>
<DT><A HREF="https://example.com/two">Two</A>
<DT><A HREF="file:///etc/passwd">Secret</A>
</DL>`
	res, body := do(t, upload(t, ts.URL, "bookmarks.html", []byte(html)))
	// Post/Redirect/Get: the post answers a redirect to a result page, so
	// a reload shows the result again and posts nothing
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/import/") {
		t.Fatalf("import: %d Location %q, want 303 to /import/ID\n%s", res.StatusCode, loc, body)
	}
	for range 2 { // the page, then a reload of it
		res, body = do(t, withCookie(mustReq(t, "GET", ts.URL+loc, "")))
		if res.StatusCode != http.StatusOK || !strings.Contains(body, "2 new, 0 already saved, 1 refused") || !strings.Contains(body, "only http and https") {
			t.Errorf("import result not shown: %d\n%s", res.StatusCode, body)
		}
	}
	if res, _ := do(t, withCookie(mustReq(t, "GET", ts.URL+"/import/0123456789abcdef01234567", ""))); res.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown import result: %d, want 404", res.StatusCode)
	}
	got, err := l.Find(context.Background(), ledger.FindOptions{Tags: []string{"imported"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hits) != 2 {
		t.Errorf("%d items tagged imported, want 2", len(got.Hits))
	}
	// again: nothing new
	res, _ = do(t, upload(t, ts.URL, "bookmarks.html", []byte(html)))
	if _, body := do(t, withCookie(mustReq(t, "GET", ts.URL+res.Header.Get("Location"), ""))); !strings.Contains(body, "0 new, 2 already saved") {
		t.Errorf("second import:\n%s", body)
	}
	big := bytes.Repeat([]byte("https://example.com/x\n"), MaxImportBytes/20)
	if res, _ := do(t, upload(t, ts.URL, "urls.txt", big)); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload over the cap: %d, want 413", res.StatusCode)
	}
	if res, _ := do(t, upload(t, ts.URL, "junk.bin", []byte{0, 1, 2, 3})); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown format: %d, want 400", res.StatusCode)
	}
}

// TestImportOneAtATime: while an import runs, a second one is refused
// with 409 and a page saying why, and saves nothing; once the first is
// done, the same upload goes through.
func TestImportOneAtATime(t *testing.T) {
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken})
	if err != nil {
		t.Fatal(err)
	}
	h := signedIn(t, srv.Handler(), 7474)
	data := bookmarksFile(10)
	srv.importing.Lock() // an import in flight
	w := httptest.NewRecorder()
	h.ServeHTTP(w, importRequest(7474, "bookmarks.html", data))
	if w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "Another import is running") {
		t.Errorf("a second import: %d, want 409 saying why\n%s", w.Code, w.Body.String())
	}
	if n, _ := l.ItemCount(context.Background()); n != 0 {
		t.Errorf("the refused import saved %d items", n)
	}
	srv.importing.Unlock()
	w = httptest.NewRecorder()
	h.ServeHTTP(w, importRequest(7474, "bookmarks.html", data))
	if n, _ := l.ItemCount(context.Background()); w.Code != http.StatusSeeOther || n != 10 {
		t.Errorf("after the first: %d, %d items\n%s", w.Code, n, w.Body.String())
	}
}

// TestImportStopsWithItsRequest: an import whose client goes away (over
// real HTTP: the client's connection closes) stops between links, what
// was committed stays, and the import slot is free again: a 60,000-link
// upload given up once its first links are saved saves fewer than all.
func TestImportStopsWithItsRequest(t *testing.T) {
	l := openLedger(t, filepath.Join(t.TempDir(), "ll.db"))
	logged := make(chan string, 4)
	ts := serveTest(t, Options{Ledger: l, Logf: func(f string, a ...any) { logged <- fmt.Sprintf(f, a...) }})
	const n = 60000
	ctx, cancel := context.WithCancel(context.Background())
	req := upload(t, ts.URL, "bookmarks.html", bookmarksFile(n)).WithContext(ctx)
	go func() {
		if res, err := client().Do(req); err == nil {
			res.Body.Close()
		}
	}()
	// the first batch committed: the import is under way; then the
	// client gives up
	for {
		if c, _ := l.ItemCount(context.Background()); c > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case msg := <-logged:
		if !strings.Contains(msg, "stopped, its request ended") {
			t.Errorf("log %q", msg)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the import went on after its client went away")
	}
	if c, _ := l.ItemCount(context.Background()); c == 0 || c >= n {
		t.Errorf("%d items saved, want some and fewer than %d", c, n)
	}
	if res, body := do(t, upload(t, ts.URL, "more.html", bookmarksFile(5))); res.StatusCode != http.StatusSeeOther {
		t.Errorf("the next import: %d\n%s", res.StatusCode, body)
	}
}

// bookmarksFile is a Netscape bookmarks file of n distinct links.
func bookmarksFile(n int) []byte {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n<DT><H3>reading</H3>\n<DL><p>\n")
	for i := range n {
		fmt.Fprintf(&b, "<DT><A HREF=\"https://site%d.example/articles/%d/a-title-of-some-length\" ADD_DATE=\"%d\">Article %d about %s and %s</A>\n",
			i%997, i, 1700000000+i, i, benchWords[i%len(benchWords)], benchWords[(i*7)%len(benchWords)])
	}
	b.WriteString("</DL><p>\n</DL>\n")
	return b.Bytes()
}

// importRequest is the multipart upload of data as the import form sends it.
func importRequest(port int, name string, data []byte) *http.Request {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.Close()
	req := httptest.NewRequest("POST", "http://127.0.0.1:"+strconv.Itoa(port)+"/import", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return req
}
