//go:build !linux && !windows

package replica

import "syscall"

// sysProcAttr puts Litestream in its own process group (a Ctrl-C at the
// terminal reaches linkledger, which stops Litestream last).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
