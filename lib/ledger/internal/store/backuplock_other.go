//go:build !unix

package store

import "os"

// lockBackup does nothing where flock(2) is missing.
func lockBackup(*os.File) error { return nil }

// staleBackup never says a temporary file is stale where no lock can
// tell a running backup's from a dead one's: nothing is removed.
func staleBackup(*os.File) bool { return false }
