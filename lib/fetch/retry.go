package fetch

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// retry runs once until it succeeds, fails for good, or runs out of
// attempts. Each attempt holds a politeness slot of target's host and runs
// under the total timeout. Between attempts it waits the server's
// Retry-After or else an exponential backoff with full jitter. A
// Retry-After longer than MaxRetryAfter is not waited for in-process, nor
// retried early: the record fails now and its error carries the time
// (error.retry_after), which ll-index keeps as the item's next_retry_at.
// It returns an error only when ctx ended.
func (f *Fetcher) retry(ctx context.Context, target string, once func(context.Context) *result) (*result, error) {
	host := hostOf(target)
	for attempt := 1; ; attempt++ {
		if err := f.hosts.acquire(ctx, host); err != nil {
			return nil, err
		}
		actx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		res := once(actx)
		cancel()
		f.hosts.release(host)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.attempts = attempt
		if res.err != nil && res.retryAfter > 0 {
			res.err.RetryAfter = record.FormatTime(f.opts.Now().Add(res.retryAfter))
		}
		if res.err == nil || !res.err.Retryable || attempt >= f.opts.MaxAttempts || res.retryAfter > f.opts.MaxRetryAfter {
			return res, nil
		}
		wait := f.backoff(attempt)
		if res.retryAfter > 0 {
			wait = res.retryAfter
		}
		if err := f.opts.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
}

// backoff is the wait after the given failed attempt (1-based): uniform in
// [0, min(MaxBackoff, BaseBackoff * 2^(attempt-1))) ("full jitter").
func (f *Fetcher) backoff(attempt int) time.Duration {
	ceil := f.opts.BaseBackoff
	for i := 1; i < attempt && ceil < f.opts.MaxBackoff; i++ {
		ceil *= 2
	}
	ceil = min(ceil, f.opts.MaxBackoff)
	return time.Duration(f.opts.Rand() * float64(ceil))
}

// hostOf is the politeness key of a URL: its lower-case host and port.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// hostLimiter caps the requests in flight per host and spaces the starts
// of requests to the same host by a minimum interval.
type hostLimiter struct {
	perHost  int
	interval time.Duration
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error

	mu    sync.Mutex
	hosts map[string]*hostState
}

type hostState struct {
	slots chan struct{}
	next  time.Time // earliest start of the next request
	users int       // goroutines holding or waiting for a slot
}

func newHostLimiter(perHost int, interval time.Duration, now func() time.Time, sleep func(context.Context, time.Duration) error) *hostLimiter {
	return &hostLimiter{perHost: perHost, interval: max(interval, 0), now: now, sleep: sleep, hosts: map[string]*hostState{}}
}

// acquire waits for a slot of host and for its turn to start. On success
// the caller must call release.
func (l *hostLimiter) acquire(ctx context.Context, host string) error {
	l.mu.Lock()
	h := l.hosts[host]
	if h == nil {
		h = &hostState{slots: make(chan struct{}, l.perHost)}
		l.hosts[host] = h
	}
	h.users++
	l.mu.Unlock()

	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		l.leave(host, h)
		return ctx.Err()
	}
	l.mu.Lock()
	now := l.now()
	start := h.next
	if start.Before(now) {
		start = now
	}
	h.next = start.Add(l.interval)
	l.mu.Unlock()
	if wait := start.Sub(now); wait > 0 {
		if err := l.sleep(ctx, wait); err != nil {
			l.release(host)
			return err
		}
	}
	return nil
}

// release gives back a slot taken by acquire.
func (l *hostLimiter) release(host string) {
	l.mu.Lock()
	h := l.hosts[host]
	l.mu.Unlock()
	<-h.slots
	l.leave(host, h)
}

// leave forgets a host nobody uses whose interval has passed, so the map
// does not grow with every host ever fetched.
func (l *hostLimiter) leave(host string, h *hostState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h.users--
	if h.users == 0 && !h.next.After(l.now()) {
		delete(l.hosts, host)
	}
}
