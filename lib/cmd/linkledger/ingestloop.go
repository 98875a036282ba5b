package linkledger

// The ingest loop: the worker that keeps running. `linkledger worker
// --watch` runs it in the foreground; `linkledger mcp` and `linkledger ui`
// run it in the background (backgroundWorker, mcp.go) while they
// serve, so a link saved there is readable seconds later.

import (
	"context"
	"errors"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
)

// Timings of the ingest loop.
const (
	// ingestPoll is how often the loop asks the store whether items wait
	// (one indexed count), when nothing wakes it sooner.
	ingestPoll = 2 * time.Second
	// ingestMaxBackoff bounds the wait after passes that made no progress
	// (a dead filter, a database locked by another process).
	ingestMaxBackoff = time.Minute
)

// ingestLoop runs one pass of the worker pipeline at a time whenever the
// pending queue is not empty: after a save (Wake), or when a poll of the
// store finds items waiting (saved by another process, or failed ones
// whose retry has come due). A pass that leaves as many items waiting as
// before (nothing could be ingested) doubles the wait before the next,
// up to ingestMaxBackoff, so a broken setup never spins.
type ingestLoop struct {
	// pass runs the worker pipeline once over the pending queue.
	pass func(ctx context.Context) error
	// pending counts the items the pass would ingest now.
	pending func(ctx context.Context) (int, error)
	// poll is the wait between checks (0: ingestPoll).
	poll time.Duration
	// diag reports a failed pass or count (the pass's own diagnostics
	// are its stages').
	diag cli.Diag

	wake chan struct{}
	stop context.CancelFunc
	done chan struct{}
}

// newIngestLoop returns a loop of pass over the queue counted by pending.
func newIngestLoop(pass func(context.Context) error, pending func(context.Context) (int, error), diag cli.Diag) *ingestLoop {
	return &ingestLoop{pass: pass, pending: pending, poll: ingestPoll, diag: diag, wake: make(chan struct{}, 1)}
}

// Wake makes the loop check the queue now (after a save). It never blocks.
func (l *ingestLoop) Wake() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Start runs the loop in the background until Stop or until ctx ends.
func (l *ingestLoop) Start(ctx context.Context) {
	ctx, l.stop = context.WithCancel(ctx)
	l.done = make(chan struct{})
	go func() {
		defer close(l.done)
		l.Run(ctx)
	}()
}

// Stop ends a started loop and waits for it: a pass in flight is asked to
// stop between records (its filters get SIGTERM), so what it committed
// stays and nothing is half-written.
func (l *ingestLoop) Stop() {
	if l.stop == nil {
		return
	}
	l.stop()
	<-l.done
}

// Run runs passes until ctx ends, then returns nil.
func (l *ingestLoop) Run(ctx context.Context) error {
	poll := l.poll
	if poll <= 0 {
		poll = ingestPoll
	}
	wait := poll
	var lastErr string
	report := func(err error) {
		// one line per distinct failure, not one per poll
		var ee *cli.ExitError
		if err == nil || (errors.As(err, &ee) && ee.Err == nil) || err.Error() == lastErr {
			return
		}
		lastErr = err.Error()
		l.diag.Printf("%v", err)
	}
	for {
		n, err := l.pending(ctx)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err != nil:
			report(err)
			wait = min(2*wait, ingestMaxBackoff)
		case n > 0:
			perr := l.pass(ctx)
			if ctx.Err() != nil {
				return nil
			}
			after, err := l.pending(ctx)
			if err == nil && after < n {
				wait = poll
				lastErr = ""
				continue // more may wait past the pass's limit: look again now
			}
			report(perr)
			wait = min(2*wait, ingestMaxBackoff)
		default:
			wait = poll
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-l.wake:
			wait = poll
		case <-t.C:
		}
		t.Stop()
	}
}
