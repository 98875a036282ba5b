package replica

import (
	"os"
	"os/exec"
)

// command runs Litestream.
func command(bin string, args ...string) *exec.Cmd { return exec.Command(bin, args...) }

// killAll kills Litestream.
func killAll(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
