package cli

import (
	"fmt"
	"runtime/debug"

	ucli "github.com/urfave/cli/v3"
)

// Version is the release number (the VERSION file); `make build` sets it
// with -ldflags "-X .../lib/cli.Version=$(cat VERSION)". Keep the default
// in step with VERSION (TestVersionFile checks it).
var Version = "0.2.0"

// Commit is the git commit the binary was built from; `make build` sets it
// with -ldflags, else it comes from the Go build info (vcs.revision) when
// the build had it, else it is empty.
var Commit = ""

// VersionLine is what `--version` prints, the same shape from every
// binary: "ll-find 0.2.0 (commit a352473)", or without the commit part
// when the build does not know it.
func VersionLine(prog string) string {
	if c := commit(); c != "" {
		return fmt.Sprintf("%s %s (commit %s)", prog, Version, c)
	}
	return fmt.Sprintf("%s %s", prog, Version)
}

func commit() string {
	if Commit != "" {
		return Commit
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if len(rev) > 7 {
		rev = rev[:7]
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}

func init() {
	ucli.VersionPrinter = func(cmd *ucli.Command) {
		fmt.Fprintln(cmd.Root().Writer, VersionLine(cmd.Root().Name))
	}
}
