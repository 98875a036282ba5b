package importer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// placesCopyPrefix begins the name of the private folder that holds a
// copy of a places.sqlite while it is read: ll-import-places-PID-RANDOM in
// the temporary directory. The pid lets a later import tell the folder of
// a killed import (kill -9 runs no deferred cleanup) from one still in
// use, and remove it.
const placesCopyPrefix = "ll-import-places-"

// placesCopyFiles are the only files a copy folder holds: the copy, its
// -wal, and what SQLite may make beside them.
var placesCopyFiles = map[string]bool{
	"places.sqlite": true, "places.sqlite-wal": true,
	"places.sqlite-shm": true, "places.sqlite-journal": true,
}

// newPlacesCopyDir removes the copy folders killed imports left in tmp
// (each said through notice), then makes this import's own.
func newPlacesCopyDir(tmp string, notice func(string)) (string, error) {
	removeStaleCopies(tmp, notice)
	return os.MkdirTemp(tmp, fmt.Sprintf("%s%d-", placesCopyPrefix, os.Getpid()))
}

// removeStaleCopies removes from tmp every folder named as ours whose pid
// is no running process, when it is a real folder of this user holding
// only regular files of a copy. Anything else is left alone: another
// user's folder, a link, a folder with other files, a folder of an older
// linkledger (no pid in its name), one whose process runs.
func removeStaleCopies(tmp string, notice func(string)) {
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, ok := placesCopyPID(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if removeCopyDir(dir) && notice != nil {
			notice(fmt.Sprintf("removed %s: a copy of a places.sqlite left by an import that was killed (pid %d)", dir, pid))
		}
	}
}

// placesCopyPID is the pid in the name of a copy folder
// (ll-import-places-PID-RANDOM), if name is one.
func placesCopyPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, placesCopyPrefix)
	if !ok {
		return 0, false
	}
	p, random, ok := strings.Cut(rest, "-")
	if !ok || !allDigits(p) || !allDigits(random) {
		return 0, false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// removeCopyDir removes dir and its files when it is a copy folder of
// this user holding only a copy's regular files, and says whether it did.
func removeCopyDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !ownedByMe(fi) {
		return false
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !placesCopyFiles[e.Name()] || !e.Type().IsRegular() {
			return false
		}
	}
	for _, e := range ents {
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
			return false
		}
	}
	return os.Remove(dir) == nil
}
