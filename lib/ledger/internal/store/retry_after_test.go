package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// TestIndexHonoursRetryAfter: a failure whose error says when the server
// wants to be asked again (error.retry_after) is not retried earlier; one
// due sooner than the backoff keeps the backoff.
func TestIndexHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(ctx, filepath.Join(t.TempDir(), "ll.db"), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tt := range []struct{ url, retryAfter, want string }{
		{"https://example.com/later", "2026-01-02T05:04:05Z", "2026-01-02T05:04:05Z"},
		{"https://example.com/sooner", "2026-01-02T03:04:15Z", "2026-01-02T03:05:05Z"},
		{"https://example.com/none", "", "2026-01-02T03:05:05Z"},
	} {
		f := item(tt.url)
		f.Fail(record.StageFetch, record.CodeHTTPStatus, "HTTP 503", true)
		f.Error.RetryAfter = tt.retryAfter
		if _, err := s.Index(ctx, f, IndexOptions{}); err != nil {
			t.Fatal(err)
		}
		var next string
		if err := s.DB().Get(&next, "SELECT next_retry_at FROM items WHERE id = ?", f.ID); err != nil {
			t.Fatal(err)
		}
		if next != tt.want {
			t.Errorf("%s: next_retry_at %q, want %q", tt.url, next, tt.want)
		}
	}
}
