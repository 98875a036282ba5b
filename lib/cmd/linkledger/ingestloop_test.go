package linkledger

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
)

// TestIngestLoopIngestsAndStops: passes run while items wait, a Wake
// makes the loop look at once, and Stop returns after the loop ended.
func TestIngestLoopIngestsAndStops(t *testing.T) {
	var mu sync.Mutex
	waiting := 3
	var passes atomic.Int32
	pass := func(context.Context) error {
		passes.Add(1)
		mu.Lock()
		defer mu.Unlock()
		waiting = max(waiting-2, 0) // a pass takes at most 2 items
		return nil
	}
	pending := func(context.Context) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return waiting, nil
	}
	l := newIngestLoop(pass, pending, cli.Diag{Prog: "test", W: &bytes.Buffer{}})
	l.poll = time.Hour // only Wake makes it look again
	l.Start(context.Background())
	waitFor(t, func() bool { return passes.Load() == 2 })
	mu.Lock()
	waiting = 1
	mu.Unlock()
	l.Wake()
	waitFor(t, func() bool { return passes.Load() == 3 })
	l.Stop()
	if n := passes.Load(); n != 3 {
		t.Errorf("%d passes, want 3", n)
	}
}

// TestIngestLoopBacksOff: a pass that ingests nothing (a broken filter)
// is not run again and again: the wait doubles, and its error is
// reported once.
func TestIngestLoopBacksOff(t *testing.T) {
	var passes atomic.Int32
	pass := func(context.Context) error { passes.Add(1); return errors.New("ll-fetch is not available") }
	pending := func(context.Context) (int, error) { return 5, nil }
	var stderr bytes.Buffer
	l := newIngestLoop(pass, pending, cli.Diag{Prog: "test", W: &stderr})
	l.poll = 10 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	if err := l.Run(ctx); err != nil {
		t.Fatal(err)
	}
	// 10, 20, 40, 80, 160, 320 ms: at most 7 passes in 700 ms (70 without)
	if n := passes.Load(); n < 2 || n > 7 {
		t.Errorf("%d passes in 700ms of a pass that never progresses, want 2..7", n)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "test: ll-fetch is not available") {
		t.Errorf("stderr %q: want the error once", got)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
