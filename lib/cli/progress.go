package cli

import (
	"fmt"
	"io"
	"time"
)

// Progress prints "prog: N done, M failed, R/s" on one overwritten stderr
// line. It prints nothing unless enabled (stderr is a terminal and -q was
// not given), so pipes and logs never see it.
type Progress struct {
	prog    string
	w       io.Writer
	on      bool
	done    int
	failed  int
	started time.Time
	last    time.Time
}

// NewProgress returns a Progress; enabled is usually
// !quiet && IsTerminal(stderr).
func NewProgress(prog string, w io.Writer, enabled bool) *Progress {
	return &Progress{prog: prog, w: w, on: enabled, started: time.Now()}
}

// Tick counts one record.
func (p *Progress) Tick(failed bool) {
	p.done++
	if failed {
		p.failed++
	}
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.print()
}

func (p *Progress) print() {
	rate := float64(p.done) / time.Since(p.started).Seconds()
	fmt.Fprintf(p.w, "\r%s: %d done, %d failed, %.1f/s", p.prog, p.done, p.failed, rate)
}

// Done prints the final counts and ends the line.
func (p *Progress) Done() {
	if p.on && p.done > 0 {
		p.print()
		fmt.Fprintln(p.w)
	}
}
