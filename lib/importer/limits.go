package importer

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/linkledger/linkledger/lib/localfile"
	"github.com/linkledger/linkledger/lib/record"
)

// Limits of what one import file may make ll-import read or hold: an
// export file is untrusted input (docs/import-export.md, Limits).
const (
	// DefaultMaxBytes caps what is read for one file: the file itself
	// (and a places.sqlite's -wal), and, for a zip, the sum of the
	// uncompressed members read (each member once).
	DefaultMaxBytes = 256 << 20
	// maxLineBytes caps one line of a line-based format (URL lists,
	// Markdown, Omnivore highlights): a longer line is a bad row, and the
	// lines after it are read.
	maxLineBytes = 16 << 20
	// maxFolderTags caps the folders that become tags of one link: the
	// innermost 64 folders above it (a deeper link keeps its place and
	// those tags), so a file of 10,000 nested folders is read in linear
	// time.
	maxFolderTags = 64
)

// maxBytes is the sink's cap on what one file reads.
func (s *Sink) maxBytes() int64 {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// ErrTooLarge is wrapped by the error of a file or zip member over the
// cap.
var ErrTooLarge = localfile.ErrTooLarge

// readMember reads a zip member under the sink's cap on the sum of the
// members read from one file. The bytes are not kept: a reader reads a
// member once.
func (s *Sink) readMember(f *zip.File) ([]byte, error) {
	max := s.maxBytes()
	left := max - s.unzipped
	if f.UncompressedSize64 > uint64(left) {
		return nil, fmt.Errorf("%s is %s uncompressed, over what is left of the %s one file may unpack (%w; raise it with --max-bytes)",
			f.Name, localfile.Size(int64(min(f.UncompressedSize64, 1<<62))), localfile.Size(max), ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	defer rc.Close()
	// archive/zip refuses a member longer than its header says; the cap
	// holds whatever the header claims
	b, err := localfile.ReadCapped(rc, left, int64(f.UncompressedSize64))
	if errors.Is(err, ErrTooLarge) {
		return nil, fmt.Errorf("%s: unpacks to more than the %s one file may unpack (%w; raise it with --max-bytes)", f.Name, localfile.Size(max), ErrTooLarge)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", f.Name, err)
	}
	s.unzipped += int64(len(b))
	return b, nil
}

// maxHighlightBytes is ll-save's cap on an annotation's text: a longer
// highlight (or note on one) would make ll-save refuse the whole link, so
// it is left out with a bad row and the link is imported (a note quotes
// its highlight's first 200 characters: 1 KiB is kept for that).
const maxHighlightBytes = 64 << 10

// dropLongHighlights leaves out the highlights of l whose text or note is
// over maxHighlightBytes, each with a bad row (where names the link when
// the format has no lines).
func dropLongHighlights(s *Sink, l *Link, where string) error {
	kept := l.Highlights[:0]
	for i, h := range l.Highlights {
		if len(h.Text) <= maxHighlightBytes && len(h.Note) <= maxHighlightBytes-1024 {
			kept = append(kept, h)
			continue
		}
		msg := fmt.Sprintf("highlight %d of %s is over the %s a highlight (or its note) may have; left out, the link is imported", i+1, record.Quote(strings.TrimSpace(l.URL)), localfile.Size(maxHighlightBytes))
		if where != "" {
			msg = where + ": " + msg
		}
		if err := s.Bad(l.Line, msg); err != nil {
			return err
		}
	}
	l.Highlights = kept
	return nil
}

// memberHead returns at most the first n bytes of a zip member (to
// recognise its format), outside the cap: n is small.
func memberHead(f *zip.File, n int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, n))
}
