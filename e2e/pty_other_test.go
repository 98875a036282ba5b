//go:build !linux

package e2e

import "os"

func openPTY() (master, term *os.File, err error) { return nil, nil, errNoPTY }
