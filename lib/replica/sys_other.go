//go:build !linux && !windows

package replica

import (
	"os/exec"
	"syscall"
)

// command runs Litestream in its own process group (a Ctrl-C at the
// terminal reaches linkledger, which stops Litestream last).
func command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killAll kills Litestream's process group.
func killAll(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
