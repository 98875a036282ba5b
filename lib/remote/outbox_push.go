package remote

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Outcome is what became of one entry in a push.
type Outcome struct {
	Entry Entry
	// Result: "replayed" (the server ran it, exit 0: removed from the
	// outbox) or "failed" (the server answered with an error: kept, marked
	// failed).
	Result string
}

// PushSummary is what Push did.
type PushSummary struct {
	Replayed, Failed int
	// Waiting are the entries still waiting after the push.
	Waiting int
	// Stopped is why the push stopped before the last entry: the server
	// is unreachable (Queueable), refused the token (401, 403) or failed
	// (500); nil when every waiting entry was answered.
	Stopped error
	// Busy: another command was pushing this outbox; nothing was done.
	Busy bool
	// Bad are the lines set aside (not entries).
	Bad []BadLine
}

// Push replays the waiting entries in order through c. An entry is
// removed from the file only after the server answered it (exit 0; the
// removals are written in batches), so a
// command killed between the answer and the removal leaves it waiting and
// replays it again: the writes the outbox takes are idempotent on the
// server (docs/several-machines.md). A run that exits with an error, or
// a 400, 404, 413 or 415 (the request itself refused), marks the entry
// failed. The push stops, the entry waiting, at the first entry the
// server was not reached for (Queueable) or answered with another status
// (401 or 403: a refused token, every entry would be refused alike; a
// 500; a 429): not the entry's fault. wait false: when another command is
// pushing the same outbox, Push returns at once with Busy. each, when not
// nil, is called for every entry answered.
func Push(ctx context.Context, o *Outbox, c *Client, wait bool, each func(Outcome)) (PushSummary, error) {
	var sum PushSummary
	if err := o.mkdir(); err != nil {
		return sum, err
	}
	lock := tryLock
	if wait {
		lock = func(p string) (func(), error) { return lockFile(p, true) }
	}
	unlock, err := lock(o.Path + ".push")
	if errors.Is(err, errLocked) {
		sum.Busy = true
		return sum, nil
	}
	if err != nil {
		return sum, err
	}
	defer unlock()
	es, bad, err := o.Read()
	if err != nil {
		return sum, err
	}
	if len(bad) > 0 {
		// the lines that are not entries are set aside first, said once
		if sum.Bad, err = o.Update(func(es []Entry) ([]Entry, error) { return es, nil }); err != nil {
			return sum, err
		}
	}
	// what the server answered is written back in batches (one rewrite
	// for up to pushBatch entries, or every pushFlush): a removal still
	// comes only after the answer, so a command killed before the write
	// replays those entries again, which adds nothing on the server
	done := map[string]*Failure{} // id: nil replayed, else failed
	last := time.Now()
	flush := func() error {
		if len(done) == 0 {
			return nil
		}
		bad, err := o.Update(func(es []Entry) ([]Entry, error) {
			out := es[:0]
			for _, e := range es {
				f, ok := done[e.ID]
				switch {
				case !ok:
				case f == nil:
					continue
				default:
					e.Failed = f
				}
				out = append(out, e)
			}
			return out, nil
		})
		sum.Bad = append(sum.Bad, bad...)
		clear(done)
		last = time.Now()
		return err
	}
	err = pushEntries(ctx, es, c, &sum, func(e Entry, f *Failure) error {
		done[e.ID] = f
		if each != nil {
			result := "replayed"
			if f != nil {
				e.Failed, result = f, "failed"
			}
			each(Outcome{Entry: e, Result: result})
		}
		if len(done) >= pushBatch || time.Since(last) >= pushFlush {
			return flush()
		}
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return sum, err
	}
	left, _, err := o.Read()
	if err != nil {
		return sum, err
	}
	sum.Waiting = Waiting(left)
	return sum, nil
}

// The batches of Push's write-back.
const (
	pushBatch = 64
	pushFlush = time.Second
)

// pushEntries sends the waiting entries of es in order and calls answered
// with each one the server answered (f nil: ran, exit 0; else failed),
// counting them in sum; it stops as Push says, setting sum.Stopped.
func pushEntries(ctx context.Context, es []Entry, c *Client, sum *PushSummary, answered func(e Entry, f *Failure) error) error {
	for _, e := range es {
		if e.Failed != nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		resp, err := c.Run(ctx, Request{Verb: e.Verb, Args: e.Args})
		var se *ServerError
		var f *Failure
		switch {
		case err == nil && resp.ExitCode == 0:
			sum.Replayed++
			if err := answered(e, nil); err != nil {
				return err
			}
			continue
		case err == nil:
			f = &Failure{ExitCode: resp.ExitCode, Message: lastLine(resp.Stderr)}
		case Queueable(err):
			sum.Stopped = err
		case errors.As(err, &se) && refusedRequest(se.Status):
			f = &Failure{Status: se.Status, Message: se.Error()}
		case errors.As(err, &se):
			// a refused token (401, 403), a server error (500), a
			// limit (429): not this entry's fault; it waits
			sum.Stopped = err
		default:
			// a timeout waiting for the answer, a context ended: the
			// server may have run it; it stays waiting (replays are
			// idempotent) and the push stops here
			sum.Stopped = err
		}
		if sum.Stopped != nil {
			return nil
		}
		f.At = time.Now().UTC().Format(time.RFC3339)
		sum.Failed++
		if err := answered(e, f); err != nil {
			return err
		}
	}
	return nil
}

// refusedRequest reports whether status says the request itself was
// refused (bad, unknown verb, too large, wrong type): sending it again
// would be refused again.
func refusedRequest(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType:
		return true
	}
	return false
}

// lastLine is the last line of a verb's stderr that is not a hint, at
// most 500 bytes: the message of a failed replay.
func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte(" ")))), "\n")
	msg := ""
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "hint:") {
			msg = l
			break
		}
	}
	if msg == "" {
		msg = "the server answered with an error and said nothing"
	}
	for len(msg) > 500 {
		_, size := utf8.DecodeLastRuneInString(msg)
		msg = msg[:len(msg)-size]
	}
	return msg
}
