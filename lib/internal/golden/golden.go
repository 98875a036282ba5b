// Package golden holds the one flag that regenerates what tests compare
// against (golden pages, want files, screenshots, generated source):
//
//	go test -tags sqlite_fts5 ./lib/PKG -run TestX -update
//
// Only test files import it (TestTestHelpersNotShipped keeps it so).
package golden

import "flag"

var update = flag.Bool("update", false, "rewrite the files the tests compare against (golden pages, want files, screenshots, generated source) instead of failing on a difference")

// Update reports whether the test run was given -update.
func Update() bool { return *update }
