package fetch

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/linkledger/linkledger/lib/record"
)

// Run fetches a stream of records. It calls next for the next record until
// next returns io.EOF, fetches up to Concurrency records at once, and calls
// emit for each in input order (a reorder buffer holds the records that
// finished early). It never reads more than about 2×Concurrency records
// ahead of the one it waits for, so memory stays bounded on endless input.
// Records that already carry an error are emitted untouched, in order.
//
// Run returns nil at the end of input, next's error when reading failed,
// emit's error when writing failed (it then stops), or ctx's error when ctx
// ended; records fetched but not yet emitted are then dropped.
func (f *Fetcher) Run(ctx context.Context, next func() (*record.Record, error), emit func(*record.Record) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type job struct {
		rec  *record.Record
		done chan struct{}
	}
	n := f.opts.Concurrency
	pending := make(chan *job, 2*n-1) // plus the one emit waits for: 2n in flight
	work := make(chan *job)
	var readErr error

	go func() {
		defer close(pending)
		defer close(work)
		for {
			rec, err := next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					readErr = err
				}
				return
			}
			j := &job{rec: rec, done: make(chan struct{})}
			select {
			case pending <- j:
			case <-ctx.Done():
				return
			}
			if rec.Error != nil {
				close(j.done)
				continue
			}
			select {
			case work <- j:
			case <-ctx.Done():
				return
			}
		}
	}()

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // runs before wg.Wait: stop the workers first
	for range n {
		wg.Go(func() {
			for {
				select {
				case j, ok := <-work:
					if !ok {
						return
					}
					f.Fetch(ctx, j.rec) // an error means ctx ended; the writer sees it
					close(j.done)
				case <-ctx.Done():
					return
				}
			}
		})
	}

	for {
		var j *job
		select {
		case jj, ok := <-pending:
			if !ok {
				return readErr
			}
			j = jj
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := emit(j.rec); err != nil {
			return err
		}
	}
}
