package llindex

// The image pass (docs/fetch.md "Images"): after a record's content
// committed, the images its record lists that have no stored copy yet
// are fetched by a small pool (imageWorkers items at a time) and stored
// in a transaction of their own. So the bytes never travel in the record
// stream, never wait in the pipeline's batches, and at most imageWorkers
// × the item cap are in memory. ll-index returns once every image job is
// done; a record is written out when its content committed, before its
// images are stored, and the pass's diagnostics come after the records'.

import (
	"context"
	"fmt"
	"sync"

	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/record"
)

// imageWorkers is how many items' images are fetched at once.
const imageWorkers = 4

// imageJob is one stored item whose images are to be fetched.
type imageJob struct {
	id, page, ref string
}

// images fetches and stores the images of stored items, off the
// pipeline's path. Nil when images are off.
type images struct {
	ctx   context.Context // the run's: the pipeline's own ends before the pass
	ix    *indexer
	f     *fetch.Fetcher
	opts  fetch.ImageOptions
	jobs  chan imageJob
	wg    sync.WaitGroup
	start sync.Once
	// notes are the pass's diagnostics, printed by wait: the writer
	// goroutine owns stderr and the progress line while the pass runs
	mu    sync.Mutex
	notes []string
}

// note keeps a diagnostic for wait; verbose ones only with -v.
func (im *images) note(verbose bool, format string, args ...any) {
	if verbose && !im.ix.diag.Verbose {
		return
	}
	im.mu.Lock()
	im.notes = append(im.notes, fmt.Sprintf(format, args...))
	im.mu.Unlock()
}

func newImages(ctx context.Context, ix *indexer, f *fetch.Fetcher, o fetch.ImageOptions) *images {
	return &images{ctx: ctx, ix: ix, f: f, opts: o, jobs: make(chan imageJob)}
}

// add queues rec's images when its content was just stored and it lists
// some; it waits while every worker is busy.
func (im *images) add(rec *record.Record) {
	if im == nil || rec.Error != nil || rec.Index == nil || len(rec.Images) == 0 || rec.Markdown == "" {
		return
	}
	ctx := im.ctx
	im.start.Do(func() {
		for range imageWorkers {
			im.wg.Go(func() {
				for j := range im.jobs {
					im.run(ctx, j)
				}
			})
		}
	})
	page := rec.URL
	if rec.Fetch != nil && rec.Fetch.FinalURL != "" {
		page = rec.Fetch.FinalURL
	}
	select {
	case im.jobs <- imageJob{id: rec.ID, page: page, ref: rec.Ref()}:
	case <-ctx.Done():
	}
}

// wait ends the pass: it returns once every queued item is done.
func (im *images) wait() {
	if im == nil {
		return
	}
	close(im.jobs)
	im.wg.Wait()
	for _, n := range im.notes {
		im.ix.diag.Printf("%s", n)
	}
}

func (im *images) run(ctx context.Context, j imageJob) {
	if ctx.Err() != nil {
		return
	}
	st := im.ix.st
	missing, stored, bytes, err := st.ImagesToFetch(ctx, j.id)
	if err != nil {
		im.note(false, "%s: images: %v", j.ref, err)
		return
	}
	if len(missing) == 0 {
		return
	}
	o := im.opts
	o.MaxImages -= stored
	o.MaxItemBytes -= bytes
	if o.MaxImages <= 0 || o.MaxItemBytes <= 0 {
		// the caps are spent on the copies stored before
		for i := range missing {
			missing[i].Error = fetch.ImageItemFull
			if o.MaxImages <= 0 {
				missing[i].Error = fetch.ImageTooMany
			}
		}
	} else if err := im.f.Images(ctx, j.page, missing, o); err != nil {
		return
	}
	if ctx.Err() != nil {
		return
	}
	if err := st.PutImages(ctx, j.id, missing); err != nil {
		im.note(false, "%s: images not stored: %v", j.ref, err)
		return
	}
	im.note(true, "%s: %s", j.ref, fetch.ImageSummary(missing))
}
