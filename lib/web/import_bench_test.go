//go:build unix

package web

// BenchmarkImportUpload measures the server time of one import upload of
// 30,000, 60,000 and 120,000 links (a Netscape bookmarks file, each link
// with a title and a folder tag) into a fresh ledger, through the whole
// handler (docs/reliability.md, "Third pass (issue 27)"). Run it with
// -benchtime=1x: one import each.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

func BenchmarkImportUpload(b *testing.B) {
	for _, n := range []int{30000, 60000, 120000} {
		data := bookmarksFile(n)
		b.Run(strconv.Itoa(n/1000)+"k", func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				ctx := context.Background()
				// as linkledger ui opens it
				l, err := ledger.Open(ctx, filepath.Join(b.TempDir(), "ll.db"), ledger.OpenOptions{BulkImports: true})
				if err != nil {
					b.Fatal(err)
				}
				h, cookie := benchSession(b, l)
				req := importRequest(7474, "bookmarks.html", data)
				req.AddCookie(cookie)
				w := httptest.NewRecorder()
				cpu0 := cpuTime()
				b.StartTimer()
				h.ServeHTTP(w, req)
				b.StopTimer()
				b.ReportMetric((cpuTime() - cpu0).Seconds(), "cpu-s")
				if w.Code != 200 || !strings.Contains(w.Body.String(), strconv.Itoa(n)+" new") {
					b.Fatalf("import: %d\n%.2000s", w.Code, w.Body.String())
				}
				l.Close()
			}
			b.ReportMetric(float64(len(data))/(1<<20), "MiB")
		})
	}
}

// cpuTime is the process's CPU time so far, user and system: the
// machine the figures come from is shared, so wall time says little.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSession is the app of l with a session cookie.
func benchSession(b *testing.B, l *ledger.Ledger) (http.Handler, *http.Cookie) {
	srv, err := New(Options{Ledger: l, Port: 7474, Token: testToken})
	if err != nil {
		b.Fatal(err)
	}
	return srv.Handler(), signIn(b, srv.Handler(), 7474)
}
