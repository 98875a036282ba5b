package web

// BenchmarkImportUpload measures the server time of one import upload of
// 30,000, 60,000 and 120,000 links (a Netscape bookmarks file, each link
// with a title and a folder tag) into a fresh ledger, through the whole
// handler (docs/reliability.md, "Third pass (issue 27)"). Run it with
// -benchtime=1x: one import each.

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

	"github.com/linkledger/linkledger/lib/ledger"
)

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

func BenchmarkImportUpload(b *testing.B) {
	for _, n := range []int{30000, 60000, 120000} {
		data := bookmarksFile(n)
		b.Run(strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				ctx := context.Background()
				l, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "ll.db"), ledger.OpenOptions{})
				if err != nil {
					b.Fatal(err)
				}
				h, cookie := benchSession(b, l)
				req := importRequest(7474, "bookmarks.html", data)
				req.AddCookie(cookie)
				w := httptest.NewRecorder()
				b.StartTimer()
				h.ServeHTTP(w, req)
				b.StopTimer()
				if w.Code != 200 || !strings.Contains(w.Body.String(), strconv.Itoa(n)+" new") {
					b.Fatalf("import: %d\n%.2000s", w.Code, w.Body.String())
				}
				l.Close()
			}
			b.ReportMetric(float64(len(data))/(1<<20), "MiB")
		})
	}
}

// benchSession is the app of l with a session cookie.
func benchSession(b *testing.B, l *ledger.Ledger) (http.Handler, *http.Cookie) {
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler(), signIn(b, srv.Handler(), 7474)
}
