package cli

import "fmt"

// Hintf prints a "hint: ..." line after a diagnostic: the next command to
// try, in the user's terms.
func (d Diag) Hintf(format string, args ...any) {
	d.Progress.Clear()
	fmt.Fprintf(d.W, "hint: "+format+"\n", args...)
}
