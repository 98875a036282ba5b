package replica

import (
	"os/exec"
	"syscall"
)

// guardScript runs Litestream ("$@") under a small shell that forwards
// ONE SIGTERM to it. The kernel sends the shell SIGTERM when linkledger
// dies, even by kill -9 (Pdeathsig); but it sends it again each time the
// child is handed to another of linkledger's dying threads, and Litestream
// takes a second SIGTERM as "stop now", abandoning the final sync it
// began on the first: measured with v0.5.18, linkledger serve killed -9
// right after 40 acknowledged saves left 36 to 39 of them in the replica,
// its log saying "shutdown interrupted by terminated: shutdown sync
// interrupted". With the shell in between, Litestream gets one SIGTERM,
// ships what is left and exits; the shell then exits with its status.
const guardScript = `"$@" &
pid=$!
sent=
trap '[ -n "$sent" ] || { sent=1; kill -TERM "$pid" 2>/dev/null; }' TERM INT HUP
st=0
while :; do
	wait "$pid"; st=$?
	kill -0 "$pid" 2>/dev/null || break
done
exit "$st"`

// command is Litestream's command line run under guardScript, in its own
// process group (a Ctrl-C at the terminal reaches linkledger, which stops
// Litestream last, after its own writes), with the kernel sending the
// guard SIGTERM when linkledger dies.
func command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", guardScript, "litestream-guard", bin}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

// killAll kills the guard and Litestream (their process group).
func killAll(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
