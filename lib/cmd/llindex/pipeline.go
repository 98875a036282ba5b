package llindex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

// ll-index runs as a pipeline (issue 23): one reader decodes the input in
// order; workers on the other cores prepare records (parse, chunk, count
// tokens: no shared state); one writer takes them in input order, writes
// those that arrive together in one transaction (ledger.IndexBatch) and
// emits each record after the transaction that holds it committed. What
// stdout and stderr get, and in what order, is what a record-at-a-time
// loop gives. A record waits for no later one: the writer commits as soon
// as no prepared record is ready, so a slow input (ll-fetch) is indexed
// record by record as before.

const (
	// batchRecords and batchBytes bound one transaction: a longer one
	// holds the write lock longer (another writer waits) and keeps more
	// records in memory.
	batchRecords = 64
	batchBytes   = 8 << 20
	// flightBytes bounds the records read but not yet written out (their
	// text, body and chunks): a record over it goes through alone.
	flightBytes = 64 << 20
	// flightRecords bounds their number.
	flightRecords = 128
)

// job is one input line on its way through the pipeline.
type job struct {
	rec   *record.Record
	line  bool         // a malformed line: rec is its error record, emitted as is
	write bool         // prepare found something to store
	notes bytes.Buffer // prepare's diagnostics, printed in order
	size  int64        // bytes held against flightBytes
	done  chan struct{}
}

// recordBytes estimates what a record holds in memory once prepared: its
// body, text and chunk texts (chunking about doubles the text).
func recordBytes(rec *record.Record) int64 {
	n := int64(len(rec.TextValue()))*2 + 1024
	if rec.Body != nil {
		n += int64(len(*rec.Body))
	}
	if rec.BodyBase64 != nil {
		n += int64(len(*rec.BodyBase64))
	}
	for _, c := range rec.Chunks {
		n += int64(len(c.Text))
	}
	return n
}

// budget is a count of bytes in flight that blocks takers past its limit;
// a taker of more than the limit waits until nothing else is held.
type budget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	held  int64
	limit int64
}

func newBudget(limit int64) *budget {
	b := &budget{limit: limit}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *budget) take(n int64) {
	b.mu.Lock()
	for b.held > 0 && b.held+n > b.limit {
		b.cond.Wait()
	}
	b.held += n
	b.mu.Unlock()
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.held -= n
	b.mu.Unlock()
	b.cond.Broadcast()
}

// pipeline indexes the records of r and emits them to out, in order. It
// returns how many items got new content.
func (ix *indexer) pipeline(ctx context.Context, r io.Reader, out *cli.Output) (int, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	queue := make(chan *job, flightRecords) // in input order, to the writer
	work := make(chan *job, flightRecords)  // to the workers
	mem := newBudget(flightBytes)
	var readErr error
	go func() {
		defer close(queue)
		defer close(work)
		readErr = ix.read(ctx, r, mem, queue, work)
	}()
	workers := max(1, runtime.GOMAXPROCS(0)-1)
	for range workers {
		go func() {
			for j := range work {
				ix.prepareJob(j)
			}
		}()
	}
	indexed := 0
	var batch []*job
	var size int64
	for j := range queue {
		<-j.done
		batch = append(batch, j)
		size += j.size
		if len(batch) < batchRecords && size < batchBytes && ready(queue) {
			continue
		}
		n, err := ix.flush(ctx, batch, out)
		indexed += n
		for _, b := range batch {
			mem.give(b.size)
		}
		batch, size = batch[:0], 0
		if err != nil {
			return indexed, err
		}
	}
	if err := ctx.Err(); err != nil {
		return indexed, err
	}
	return indexed, readErr
}

// ready reports whether the next record has been read: the writer adds it
// to the batch rather than commit now.
func ready(queue chan *job) bool { return len(queue) > 0 }

// read decodes r line by line into jobs, sent in order to queue (the
// writer) and work (the workers). A malformed line becomes an error
// record in its place (reported with its line number).
func (ix *indexer) read(ctx context.Context, r io.Reader, mem *budget, queue, work chan<- *job) error {
	rd := ndjson.NewReader(r)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, _, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		j := &job{done: make(chan struct{})}
		var le *ndjson.LineError
		switch {
		case errors.As(err, &le):
			fmt.Fprintf(&j.notes, "%s: line %d: %v\n", ix.diag.Prog, le.Line, le.Err)
			j.rec, j.line = le.Record(record.StageIndex), true
			close(j.done)
		case err != nil:
			return fmt.Errorf("read stdin: %w", err)
		default:
			j.rec = rec
			j.size = min(recordBytes(rec), flightBytes)
		}
		mem.take(j.size)
		select {
		case queue <- j:
		case <-ctx.Done():
			mem.give(j.size)
			return ctx.Err()
		}
		if !j.line {
			select {
			case work <- j:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// prepareJob runs prepare on a worker, its diagnostics kept for the writer.
func (ix *indexer) prepareJob(j *job) {
	defer close(j.done)
	d := ix.diag
	d.W, d.Progress = &j.notes, nil
	j.write = ix.prepare(j.rec, d)
}

// flush writes the records of batch that have something to store (in one
// transaction where it can), then emits every record in order. It
// returns how many items got new content, and an error when the stream
// must stop.
func (ix *indexer) flush(ctx context.Context, batch []*job, out *cli.Output) (int, error) {
	tried := ix.busy == nil // after a lock lost, nothing more is tried
	var recs []*record.Record
	for _, j := range batch {
		if j.write && tried {
			recs = append(recs, j.rec)
		}
	}
	var results []spec.IndexResult
	if len(recs) > 0 {
		st, err := ix.store(ctx)
		if err != nil {
			return 0, err
		}
		results = st.IndexBatch(ctx, recs, ix.iopts)
	}
	indexed, k := 0, 0
	for _, j := range batch {
		if j.notes.Len() > 0 {
			ix.progress.Clear()
			ix.diag.W.Write(j.notes.Bytes())
		}
		if j.line {
			if err := out.Emit(j.rec); err != nil {
				return indexed, err
			}
			continue
		}
		switch {
		case !j.write:
		case !tried:
			ix.notTried(j.rec)
		default:
			res := results[k]
			k++
			if res.Res == nil && res.Err == nil {
				return indexed, ctx.Err() // cancelled before this record
			}
			if err := ix.stored(ctx, j.rec, res.Res, res.Err); err != nil {
				return indexed, err
			}
			ix.imgs.add(j.rec)
		}
		rec := j.rec
		if rec.Index != nil && rec.Index.Chunks > 0 && !rec.Index.Unchanged {
			indexed++
		}
		ix.progress.Tick(rec.Error != nil)
		if err := out.Emit(rec); err != nil {
			return indexed, err
		}
	}
	return indexed, nil
}
