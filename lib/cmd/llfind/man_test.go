package llfind

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
)

// TestManPage: ll-find's manual page is made from the same definition as
// its --help (flags, examples, exit codes), and groff reads it without a
// warning.
func TestManPage(t *testing.T) {
	env := cli.Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Getenv: func(string) string { return "" }}
	var page bytes.Buffer
	if err := cli.Man(&page, Command(env)); err != nil {
		t.Fatal(err)
	}
	man := page.String()
	for _, want := range []string{
		".TH LL\\-FIND 1",
		".SH NAME\nll\\-find \\- search saved links",
		".SH SYNOPSIS\n.B ll\\-find [options] [\\-\\-] [QUERY ...]",
		".SH OPTIONS",
		"\\fB\\-\\-limit\\fR, \\fB\\-n\\fR \\fIN\\fR\nat most N items (default: 10)",
		"\\fB\\-\\-exit\\-status\\fR",
		"\\fB\\-\\-db\\fR \\fIFILE\\fR",
		".SH EXAMPLES\n.RS 4\n.nf\nll\\-find sqlite full text search\n",
		".SH EXIT STATUS\n.TP\n.B 0\nok\n",
		".B 4\nnothing matched",
	} {
		if !strings.Contains(man, want) {
			t.Errorf("man page lacks %q", want)
		}
	}
	if strings.Contains(man, "\\fB\\-\\-man\\fR") {
		t.Error("the hidden --man flag is listed")
	}
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff not installed: page not checked by groff")
	}
	f := filepath.Join(t.TempDir(), "ll-find.1")
	if err := os.WriteFile(f, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(groff, "-k", "-man", "-ww", "-z", f).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}
