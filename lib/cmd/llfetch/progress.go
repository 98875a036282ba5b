package llfetch

import (
	"fmt"
	"io"
	"time"
)

// progress shows "N done, M failed, R/s" on one stderr line, rewritten in
// place with \r, when stderr is a terminal and -q is not given.
type progress struct {
	w            io.Writer
	on           bool
	start, shown time.Time
	done, failed int
	visible      bool
}

func newProgress(w io.Writer, on bool) *progress {
	return &progress{w: w, on: on, start: time.Now()}
}

// record counts one emitted record and redraws at most ten times a second.
func (p *progress) record(failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	if p.on && time.Since(p.shown) >= 100*time.Millisecond {
		p.draw()
	}
}

func (p *progress) draw() {
	p.shown = time.Now()
	rate := float64(p.done) / max(time.Since(p.start).Seconds(), 1e-3)
	fmt.Fprintf(p.w, "\r\x1b[Kll-fetch: %d done, %d failed, %.1f/s", p.done, p.failed, rate)
	p.visible = true
}

// clear erases the progress line so a diagnostic can take its place.
func (p *progress) clear() {
	if p.on && p.visible {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.visible = false
	}
}

// finish leaves the final counts on their own line.
func (p *progress) finish() {
	if p.on && p.done > 0 {
		p.draw()
		fmt.Fprintln(p.w)
	}
}
