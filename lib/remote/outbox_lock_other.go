//go:build !unix

package remote

import "errors"

// errLocked is a lock another process holds (tryLock).
var errLocked = errors.New("locked by another command")

var errNoFlock = errors.New("the outbox needs flock(2), which this system lacks")

func lockFile(string, bool) (func(), error) { return nil, errNoFlock }

func tryLock(string) (func(), error) { return nil, errNoFlock }
