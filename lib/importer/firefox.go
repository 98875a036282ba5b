package importer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/localfile"
)

// A Firefox profile's places.sqlite: bookmarks (moz_bookmarks, type 1)
// with their URL (moz_places), dateAdded (microseconds), folders (the
// browser's own root folders left out) and Firefox tags. It is read from a
// private copy, so a running browser's lock does not matter.
var firefoxPlaces = register(&Format{
	Name: "firefox", Tool: "firefox",
	Doc:      "a Firefox profile's places.sqlite (copy it, or read it while Firefox runs)",
	Read:     func(data []byte, s *Sink) error { return readFirefox("", data, s) },
	ReadPath: readFirefox,
})

// readFirefox copies the database (and its -wal, when path names a file
// that has one) into a private folder and reads the copy. The folder is
// removed once the copy is read; one left by a killed import is removed by
// the next (newPlacesCopyDir).
func readFirefox(path string, data []byte, s *Sink) error {
	dir, err := newPlacesCopyDir(os.TempDir(), s.Notice)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	copyPath := filepath.Join(dir, "places.sqlite")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		return err
	}
	if path != "" {
		// the -wal only when it is a regular file, under the cap: a FIFO
		// there hung the import, a link to /dev/zero filled memory
		wal, err := localfile.ReadFile(path+"-wal", s.maxBytes())
		switch {
		case err == nil:
			if err := os.WriteFile(copyPath+"-wal", wal, 0o600); err != nil {
				return err
			}
		case !errors.Is(err, fs.ErrNotExist):
			msg := fmt.Sprintf("%s-wal %v", filepath.Base(path), err)
			if errors.Is(err, ErrTooLarge) {
				msg += " (raise it with --max-bytes)"
			}
			msg += "; read without it (bookmarks Firefox had not yet written into the database are missing)"
			if err := s.Bad(0, msg); err != nil {
				return err
			}
		}
	}
	marks, err := ReadPlaces(context.Background(), copyPath, PlacesLimits{})
	// the copy is not needed past here: gone before the links are written
	os.RemoveAll(dir)
	if err != nil {
		return err
	}
	for i, b := range marks {
		if strings.HasPrefix(b.URL, "place:") {
			continue // a smart folder (a saved query), not a link
		}
		l := &Link{URL: b.URL, Title: b.Title, Tags: append(append([]string(nil), b.Folders...), b.Tags...)}
		if b.Added > 0 {
			l.Saved = time.UnixMicro(b.Added).UTC()
		}
		if why := checkURL(l.URL); why != "" {
			if err := s.Bad(0, fmt.Sprintf("bookmark %d (%s): %s", i+1, firstLine(b.Title, 60), why)); err != nil {
				return err
			}
			continue
		}
		if err := s.Link(l); err != nil {
			return err
		}
	}
	return nil
}
