package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeInstall: `make install PREFIX=...` installs the binaries, one
// man page per binary and the bash, zsh and fish completion scripts where
// each looks for them, and the installed ll-find(1) shows its flags.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	prefix := filepath.Join(tmp, "p")
	cmd := exec.Command(mk, "-C", root, "install", "PREFIX="+prefix, "BIN="+filepath.Join(tmp, "bin"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	bins := []string{"linkledger", "ll-save", "ll-fetch", "ll-parse", "ll-index", "ll-find", "ll-brief"}
	var want []string
	for _, b := range bins {
		want = append(want, "bin/"+b, "share/man/man1/"+b+".1")
	}
	want = append(want, "share/bash-completion/completions/linkledger", "share/zsh/site-functions/_linkledger",
		"share/fish/vendor_completions.d/linkledger.fish")
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("not installed: %s", f)
		}
	}
	out, err := exec.Command(filepath.Join(prefix, "bin", "ll-find"), "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "ll-find ") || !strings.Contains(string(out), "(commit ") {
		t.Errorf("installed ll-find --version: %q %v", out, err)
	}
	page, err := os.ReadFile(filepath.Join(prefix, "share/man/man1/ll-find.1"))
	if err != nil || !strings.Contains(string(page), `\fB\-\-limit\fR`) {
		t.Errorf("ll-find.1 lacks --limit (%v)", err)
	}
	if zsh, _ := os.ReadFile(filepath.Join(prefix, "share/zsh/site-functions/_linkledger")); !strings.HasPrefix(string(zsh), "#compdef linkledger\n") {
		t.Errorf("_linkledger does not start with #compdef linkledger: %.40q", zsh)
	}
	man, err := exec.LookPath("man")
	if err != nil {
		t.Skip("man not installed: the page is not rendered")
	}
	c := exec.Command(man, "-l", filepath.Join(prefix, "share/man/man1/ll-find.1"))
	c.Env = append(os.Environ(), "MANPAGER=cat", "PAGER=cat", "MANWIDTH=100")
	text, err := c.Output()
	if err != nil {
		t.Fatalf("man -l: %v", err)
	}
	for _, w := range []string{"NAME", "ll-find - search saved links", "--limit", "EXIT STATUS"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("man -l ll-find.1 lacks %q", w)
		}
	}
}
