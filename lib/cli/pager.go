package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/linkledger/linkledger/lib/cli/human"
)

// Page makes a human view that is longer than the terminal go through a
// pager, as git does: the view is gathered until ClosePager, then written
// as it is when it fits on the screen, else given to $LINKLEDGER_PAGER,
// else $PAGER, else less (with LESS=FRX when LESS is unset: colours kept,
// quit at once when it fits). A pager set to cat, or one that cannot be
// found, means plain output. Only a terminal on stdout is ever paged:
// records, --format human into a pipe or file, and --jq are never; and
// only with a terminal on stdin too, a person who can page (a program
// that runs linkledger on a pseudo-terminal without input must not wait
// in less).
func (o *Output) Page(env Env) {
	if o.human == nil {
		return
	}
	p := newPager(env)
	if p == nil {
		return
	}
	o.page = p
	r := human.New(&o.page.buf, o.human.Color())
	r.SetWidth(p.cols)
	o.human = r
	o.out = &o.page.buf
}

// newPager is the pager of env: nil unless stdout and stdin are both
// terminals (Page).
func newPager(env Env) *pager {
	f, ok := env.Stdout.(*os.File)
	in, inOK := env.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) || !inOK || !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	cols, rows, err := term.GetSize(int(f.Fd()))
	if err != nil || rows <= 0 {
		return nil
	}
	return &pager{term: f, rows: rows, cols: cols, getenv: env.Getenv, stderr: env.Stderr}
}

// WritePaged writes text for a person that is ready made (the human
// view a server rendered for the front command's remote client) to
// env.Stdout as Page and ClosePager would: through the pager when stdout
// and stdin are terminals and it is longer than the screen, else as it
// is.
func WritePaged(env Env, text []byte) error {
	p := newPager(env)
	if p == nil {
		_, err := env.Stdout.Write(text)
		return err
	}
	p.buf.Write(text)
	return p.close()
}

// pager is the state of a paged Output.
type pager struct {
	buf        bytes.Buffer
	term       *os.File
	rows, cols int
	getenv     func(string) string
	stderr     io.Writer
}

// ClosePager writes what Page gathered: through the pager when it is
// longer than the screen. It does nothing when the output is not paged,
// and may be called more than once.
func (o *Output) ClosePager() error {
	p := o.page
	if p == nil {
		return nil
	}
	o.page = nil
	return p.close()
}

// close writes what the pager gathered: through the pager command when it
// is longer than the screen.
func (p *pager) close() error {
	if p.buf.Len() == 0 {
		return nil
	}
	cmd := p.command()
	if cmd == nil || screenLines(p.buf.String(), p.cols) < p.rows {
		_, err := p.term.Write(p.buf.Bytes())
		return err
	}
	cmd.Stdin = bytes.NewReader(p.buf.Bytes())
	cmd.Stdout, cmd.Stderr = p.term, p.stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 127 {
		// the shell found no such pager: show the text anyway
		_, err = p.term.Write(p.buf.Bytes())
		return err
	}
	// a pager quit before the end (q in less) is a normal end
	return nil
}

// command is the pager to run through sh, nil for none.
func (p *pager) command() *exec.Cmd {
	get := func(k string) string {
		if p.getenv == nil {
			return ""
		}
		return p.getenv(k)
	}
	pg := get("LINKLEDGER_PAGER")
	if pg == "" {
		pg = get("PAGER")
	}
	if pg == "" {
		pg = "less"
	}
	pg = strings.TrimSpace(pg)
	if pg == "" || pg == "cat" {
		return nil
	}
	if _, err := exec.LookPath(strings.Fields(pg)[0]); err != nil {
		return nil
	}
	if _, err := exec.LookPath("sh"); err != nil {
		return nil
	}
	cmd := exec.Command("sh", "-c", pg)
	cmd.Env = os.Environ()
	if get("LESS") == "" {
		cmd.Env = append(cmd.Env, "LESS=FRX")
	}
	return cmd
}

// screenLines is how many terminal rows s takes at cols columns.
func screenLines(s string, cols int) int {
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		w := utf8.RuneCountInString(stripANSI(line))
		if cols <= 0 || w <= cols {
			n++
			continue
		}
		n += (w + cols - 1) / cols
	}
	return n
}

// stripANSI drops the colour sequences the human view writes.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
