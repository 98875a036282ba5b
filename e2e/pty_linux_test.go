//go:build linux

package e2e

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPTY opens a new pseudo-terminal pair through /dev/ptmx. The terminal
// side passes output bytes unchanged (no OPOST, so no \n to \r\n) and does
// not echo; it is 100 columns by 24 rows.
func openPTY() (master, term *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		m.Close()
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		return fail(err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		return fail(err)
	}
	t, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return fail(err)
	}
	tfd := int(t.Fd())
	tio, err := unix.IoctlGetTermios(tfd, unix.TCGETS)
	if err == nil {
		tio.Oflag &^= unix.OPOST
		tio.Lflag &^= unix.ECHO | unix.ICANON
		err = unix.IoctlSetTermios(tfd, unix.TCSETS, tio)
	}
	if err == nil {
		err = unix.IoctlSetWinsize(tfd, unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 100})
	}
	if err != nil {
		t.Close()
		return fail(err)
	}
	return m, t, nil
}

// openInputPTY opens a pseudo-terminal for a program's stdin as a shell
// leaves it: line mode, Ctrl-D ends input, Ctrl-C sends SIGINT; no echo.
func openInputPTY() (master, term *os.File, err error) {
	m, t, err := openPTY()
	if err != nil {
		return nil, nil, err
	}
	tfd := int(t.Fd())
	tio, err := unix.IoctlGetTermios(tfd, unix.TCGETS)
	if err == nil {
		tio.Lflag |= unix.ICANON | unix.ISIG
		tio.Lflag &^= unix.ECHO
		err = unix.IoctlSetTermios(tfd, unix.TCSETS, tio)
	}
	if err != nil {
		m.Close()
		t.Close()
		return nil, nil, fmt.Errorf("open pty: %w", err)
	}
	return m, t, nil
}

// ttyAttr starts a program in a new session whose controlling terminal is
// its stdin.
func ttyAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}
