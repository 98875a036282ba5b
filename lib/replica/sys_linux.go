package replica

import "syscall"

// sysProcAttr puts Litestream in its own process group (a Ctrl-C at the
// terminal reaches linkledger, which stops Litestream last, after its own
// writes) and has the kernel send it SIGTERM when linkledger dies, even
// by kill -9: it then ships what is left and exits instead of running on.
// (Linux sends it when the thread that started the child ends; Go ends a
// thread only when a goroutine locked to it returns without unlocking,
// which linkledger does not do. Were it to happen, Litestream would stop
// cleanly and Process.Done would say so.)
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
