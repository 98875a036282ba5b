package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestVersionFile: the default Version (builds without ldflags) is the
// VERSION file's, which make build sets.
func TestVersionFile(t *testing.T) {
	b, err := os.ReadFile("../../VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if v := strings.TrimSpace(string(b)); v != Version {
		t.Errorf("VERSION is %q, cli.Version %q: keep them in step", v, Version)
	}
}

func TestVersionLine(t *testing.T) {
	defer func(c string) { Commit = c }(Commit)
	Commit = "a352473"
	if got, want := VersionLine("ll-find"), "ll-find "+Version+" (commit a352473)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	Commit = ""
	if got := VersionLine("ll-find"); !regexp.MustCompile(`^ll-find \d+\.\d+\.\d+( \(commit [0-9a-f]{7}(-dirty)?\))?$`).MatchString(got) {
		t.Errorf("without ldflags: %q", got)
	}
}
