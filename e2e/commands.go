package e2e

import (
	"github.com/linkledger/linkledger/lib/cmd/llsave"
)

// commands maps each binary's name to its main, for testscript.
func commands() map[string]func() {
	return map[string]func(){
		"ll-save": exitWith(llsave.Main),
	}
}
