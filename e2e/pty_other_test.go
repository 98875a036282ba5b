//go:build !linux

package e2e

import (
	"os"
	"syscall"
)

func openPTY() (master, term *os.File, err error) { return nil, nil, errNoPTY }

func openInputPTY() (master, term *os.File, err error) { return nil, nil, errNoPTY }

func ttyAttr() *syscall.SysProcAttr { return nil }
