package ledger

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/embed/embedfake"
	"github.com/linkledger/linkledger/lib/ledger/internal/store"
)

// TestFindGivesUpWithItsCaller: a hybrid Find whose query is embedded on
// the search's own goroutine still stops when its caller does (a closed
// browser tab, a cancelled MCP call): the endpoint's request is made with
// the caller's context, not the search's, so a slow endpoint does not
// hold the search until the client's timeout.
func TestFindGivesUpWithItsCaller(t *testing.T) {
	fake := &embedfake.Server{Slow: 30 * time.Second}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "ll.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	indexEmbedded(t, st, "hash-64", embedDoc{URL: "https://g.test/nac", Text: "Acetylcysteine lowers oxidative stress."})
	slow := &embed.Client{URL: srv.URL + "/slow/v1", Model: "hash-64", Attempts: 1, Timeout: 60 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = wrap(st).Find(ctx, FindOptions{Query: "NAC", Embedder: slow})
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Find took %v after its caller gave up at 200ms", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the caller's deadline", err)
	}
}
