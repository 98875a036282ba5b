package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkOutboxAppend is one queued write (lock, read and count what
// waits, one line, fsync) with n entries already waiting: the cost a
// save pays offline, growing with the outbox.
func BenchmarkOutboxAppend(b *testing.B) {
	for _, n := range []int{0, 1000, 9000} {
		b.Run(fmt.Sprintf("waiting=%d", n), func(b *testing.B) {
			o := &Outbox{Path: filepath.Join(b.TempDir(), "outbox.ndjson")}
			fill(b, o, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := o.Append("save", []string{"https://example.com/bench", "--note=a note of some length"}, time.Now()); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if err := o.Remove(lastID(b, o)); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkOutboxRemove is the removal of the first entry after its
// replay (lock, read, rewrite to a new file, fsync, rename, fsync the
// directory) with n entries waiting: a push of n entries pays this n
// times.
func BenchmarkOutboxRemove(b *testing.B) {
	for _, n := range []int{10, 1000, 9000} {
		b.Run(fmt.Sprintf("waiting=%d", n), func(b *testing.B) {
			o := &Outbox{Path: filepath.Join(b.TempDir(), "outbox.ndjson")}
			fill(b, o, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				es, _, err := o.Read()
				if err != nil {
					b.Fatal(err)
				}
				if err := o.Remove(es[0].ID); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, _, err := o.Append(es[0].Verb, es[0].Args, time.Now()); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

func fill(b *testing.B, o *Outbox, n int) {
	b.Helper()
	var es []Entry
	for i := 0; i < n; i++ {
		es = append(es, Entry{ID: fmt.Sprintf("ob_%016x", i), Verb: "save", Args: []string{fmt.Sprintf("https://example.com/item/%d", i), "--note=a note of some length"}, QueuedAt: "2026-11-28T12:00:00Z"})
	}
	if _, err := o.Update(func([]Entry) ([]Entry, error) { return es, nil }); err != nil {
		b.Fatal(err)
	}
}

func lastID(b *testing.B, o *Outbox) string {
	b.Helper()
	es, _, err := o.Read()
	if err != nil || len(es) == 0 {
		b.Fatal(err)
	}
	return es[len(es)-1].ID
}

// BenchmarkPush is a push of 1,000 waiting entries to a loopback server
// that answers each at once: the outbox's own cost of a replay (HTTP
// round trips and the batched write-back), per entry.
func BenchmarkPush(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_ = json.NewEncoder(w).Encode(Response{})
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := &Client{Base: u, Token: "t"}
	const n = 1000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		o := &Outbox{Path: filepath.Join(b.TempDir(), "outbox.ndjson")}
		fill(b, o, n)
		b.StartTimer()
		sum, err := Push(context.Background(), o, c, true, nil)
		if err != nil || sum.Replayed != n || sum.Waiting != 0 {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/entry")
}
