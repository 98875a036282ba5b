package web

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/ledger"
)

func upload(t *testing.T, url, name string, data []byte) (*http.Response, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	fw, _ := mw.CreateFormFile("file", name)
	fw.Write(data)
	mw.WriteField("tags", "imported")
	mw.Close()
	req, _ := http.NewRequest("POST", url+"/import", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return do(t, withCookie(req))
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
	res, body := upload(t, ts.URL, "bookmarks.html", []byte(html))
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
	res, _ = upload(t, ts.URL, "bookmarks.html", []byte(html))
	if _, body := do(t, withCookie(mustReq(t, "GET", ts.URL+res.Header.Get("Location"), ""))); !strings.Contains(body, "0 new, 2 already saved") {
		t.Errorf("second import:\n%s", body)
	}
	big := bytes.Repeat([]byte("https://example.com/x\n"), MaxImportBytes/20)
	if res, _ := upload(t, ts.URL, "urls.txt", big); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("an upload over the cap: %d, want 413", res.StatusCode)
	}
	if res, _ := upload(t, ts.URL, "junk.bin", []byte{0, 1, 2, 3}); res.StatusCode != http.StatusBadRequest {
		t.Errorf("an unknown format: %d, want 400", res.StatusCode)
	}
}
