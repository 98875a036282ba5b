package replica

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// BinaryName is the name of the Litestream executable.
const BinaryName = "litestream"

// ErrNoBinary says no litestream binary was found (NoBinaryError is one).
var ErrNoBinary = errors.New("no litestream binary")

// NoBinaryError says no litestream binary was found, and how to get one.
type NoBinaryError struct {
	Named  string // LINKLEDGER_LITESTREAM, when it named one
	Reason string // what is wrong with it
}

func (e *NoBinaryError) Error() string {
	if e.Named != "" {
		return "LINKLEDGER_LITESTREAM=" + e.Named + ": " + e.Reason
	}
	return "no litestream binary: neither beside linkledger nor on PATH (copies and restores run Litestream as a process)"
}

// Hint says how to install Litestream.
func (e *NoBinaryError) Hint() string {
	return "run `make setup` in the linkledger source (it builds Litestream into bin/, beside linkledger), or install Litestream on PATH, or set LINKLEDGER_LITESTREAM=/path/to/litestream"
}

func (e *NoBinaryError) Is(target error) bool { return target == ErrNoBinary }

// FindBinary says which litestream binary to run, in this order: named
// (LINKLEDGER_LITESTREAM, read by the command layer) when not empty;
// litestream in exeDir, the folder of the running linkledger (`make setup`
// builds it into bin/ beside the project's binaries); litestream on PATH.
// None: a *NoBinaryError, which says how to install it.
func FindBinary(named, exeDir string) (string, error) {
	if named != "" {
		if reason := executable(named); reason != "" {
			return "", &NoBinaryError{Named: named, Reason: reason}
		}
		return named, nil
	}
	if exeDir != "" {
		p := filepath.Join(exeDir, BinaryName)
		if executable(p) == "" {
			return p, nil
		}
	}
	if p, err := exec.LookPath(BinaryName); err == nil {
		return p, nil
	}
	return "", &NoBinaryError{}
}

// executable says what keeps p from being run ("": nothing).
func executable(p string) string {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "no such file"
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return "not an executable file"
	}
	return ""
}
