package e2e

import (
	"os"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/llbrief"
	"github.com/linkledger/linkledger/lib/cmd/llembed"
	"github.com/linkledger/linkledger/lib/cmd/llenrich"
	"github.com/linkledger/linkledger/lib/cmd/llfetch"
	"github.com/linkledger/linkledger/lib/cmd/llfind"
	"github.com/linkledger/linkledger/lib/cmd/llimport"
	"github.com/linkledger/linkledger/lib/cmd/llindex"
	"github.com/linkledger/linkledger/lib/cmd/llparse"
	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

// commands maps each binary's name to its main, for testscript.
func commands() map[string]func() {
	return map[string]func(){
		"ll-save":   exitWith(llsave.Main),
		"ll-import": exitWith(llimport.Main),
		"ll-fetch":  exitWith(llfetch.Main),
		"ll-parse":  exitWith(llparse.Main),
		"ll-enrich": exitWith(llenrich.Main),
		"ll-embed":  exitWith(llembed.Main),
		"ll-index":  exitWith(llindex.Main),
		"ll-find":   exitWith(llfind.Main),
		"ll-brief":  exitWith(llbrief.Main),
		// Test helper: holds the database's write lock (lock_test.go).
		"ll-testlock": exitWith(testLock),
		// As the real binary: the verbs run the ll-* commands above as
		// processes (testscript puts them on PATH).
		"linkledger": exitWith(func() int {
			return linkledger.Main(linkledger.ExecFilters(""), cli.OSEnv(), os.Args)
		}),
	}
}
