// Package sharedtest finds ../shared — the evaluation data and captured
// third-party fixtures that sit beside the repository — for optional tests.
// A test that reads it skips with a message when it is absent, so a fresh
// clone still passes.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns ../shared/<elem...> seen from the repository root (found
// upward from the test's working directory by its go.mod), or skips t.
func Dir(t testing.TB, elem ...string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(append([]string{dir, "..", "shared"}, elem...)...)
			if _, err := os.Stat(p); err != nil {
				t.Skipf("shared data not present (%s from the repo root)", filepath.Join(append([]string{"..", "shared"}, elem...)...))
			}
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root not found")
		}
		dir = parent
	}
}
