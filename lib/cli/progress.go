package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress prints "prog: N done, M failed, R/s" on one stderr line (N
// succeeded, M failed, R records a second),
// rewritten in place. It prints nothing unless enabled (stderr is a
// terminal and -q was not given), so pipes and logs never see it. The
// Output that made it (Output.Progress) clears the line before it writes a
// record, and a Diag that carries it clears it before a diagnostic, so a
// terminal never shows a record glued to the counts.
type Progress struct {
	prog    string
	w       io.Writer
	on      bool
	mu      sync.Mutex
	done    int
	failed  int
	visible bool
	started time.Time
	last    time.Time
}

// NewProgress returns a Progress; enabled is usually
// !quiet && IsTerminal(stderr). Commands get theirs from Output.Progress.
func NewProgress(prog string, w io.Writer, enabled bool) *Progress {
	return &Progress{prog: prog, w: w, on: enabled, started: time.Now()}
}

// Tick counts one record and redraws at most ten times a second.
func (p *Progress) Tick(failed bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if failed {
		p.failed++
	}
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw()
}

func (p *Progress) draw() {
	rate := float64(p.done) / max(time.Since(p.started).Seconds(), 1e-3)
	// "done" are the records that succeeded: a failed one is not also done
	fmt.Fprintf(p.w, "\r\x1b[K%s: %d done, %d failed, %.1f/s", p.prog, p.done-p.failed, p.failed, rate)
	p.visible = true
}

// Clear erases the progress line, if one is showing, so that a record or a
// diagnostic can take its place; the next Tick draws it again.
func (p *Progress) Clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.visible {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.visible = false
	}
}

// Done leaves the final counts on their own line.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.done > 0 {
		p.draw()
		fmt.Fprintln(p.w)
		p.visible = false
	}
}
