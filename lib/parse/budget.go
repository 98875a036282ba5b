package parse

import (
	"context"
	"sync"

	"github.com/linkledger/linkledger/lib/record"
)

// DefaultMemoryBudget is the default weight of the records ll-parse holds
// at once, shared by its workers (ll-parse --memory-budget).
const DefaultMemoryBudget = 256 << 20

// Budget is a weighted semaphore over bytes of memory: the records being
// parsed (and waiting to be written) together weigh at most its size, so
// N workers on N large inputs do not need N times the memory. A record
// heavier than the whole budget takes all of it and is parsed alone.
type Budget struct {
	size int64

	mu    sync.Mutex
	used  int64
	freed chan struct{} // closed and replaced at each Release
}

// NewBudget returns a budget of size bytes (at least 1).
func NewBudget(size int64) *Budget {
	return &Budget{size: max(size, 1), freed: make(chan struct{})}
}

// Acquire waits until n bytes (clamped to the budget's size) are free and
// takes them. It returns what it took, to hand to Release, or ctx's error.
func (b *Budget) Acquire(ctx context.Context, n int64) (int64, error) {
	n = min(max(n, 1), b.size)
	for {
		b.mu.Lock()
		if b.used+n <= b.size {
			b.used += n
			b.mu.Unlock()
			return n, nil
		}
		freed := b.freed
		b.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// Release gives back n bytes taken by Acquire.
func (b *Budget) Release(n int64) {
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// InUse returns the bytes taken now.
func (b *Budget) InUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Weight estimates the memory parsing rec needs: its body (the base64 form
// and the decoded bytes) and text, and what parsing makes of them (the
// normalised text and the chunks, about as much again each): four times
// their size, plus a little for the record itself.
func Weight(rec *record.Record) int64 {
	n := int64(len(rec.TextValue()))
	if rec.Body != nil {
		n += int64(len(*rec.Body))
	}
	if rec.BodyBase64 != nil {
		n += int64(len(*rec.BodyBase64))
	}
	return 4*n + 4<<10
}
