package replica

import "syscall"

// sysProcAttr: Windows has no process groups of this kind.
func sysProcAttr() *syscall.SysProcAttr { return nil }
