package exporter

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// Bookmarks writes Netscape bookmark HTML: one flat list, each item a link
// with its saved time (ADD_DATE), tags (TAGS) and its notes as the
// description (<DD>). Browsers, Pinboard, Raindrop and ll-import read it.
type Bookmarks struct {
	w       *bufio.Writer
	started bool
}

// NewBookmarks returns a writer of bookmark HTML on w.
func NewBookmarks(w io.Writer) *Bookmarks { return &Bookmarks{w: bufio.NewWriter(w)} }

const bookmarksHead = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<!-- This is an automatically generated file. It will be read and overwritten. DO NOT EDIT! -->
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
`

// Item writes one item.
func (b *Bookmarks) Item(rec *record.Record) error {
	if !b.started {
		b.w.WriteString(bookmarksHead)
		b.started = true
	}
	url := rec.URL
	if url == "" {
		url = rec.CanonicalURL
	}
	fmt.Fprintf(b.w, `    <DT><A HREF="%s"`, html.EscapeString(url))
	if t := unix(ingestOf(rec).SavedAt); t > 0 {
		fmt.Fprintf(b.w, ` ADD_DATE="%d"`, t)
	}
	if tags := tagsOf(rec); len(tags) > 0 {
		fmt.Fprintf(b.w, ` TAGS="%s"`, html.EscapeString(strings.Join(tags, ",")))
	}
	fmt.Fprintf(b.w, ">%s</A>\n", html.EscapeString(titleOf(rec)))
	var notes []string
	for _, a := range rec.Annotations {
		if a.Type == record.AnnNote {
			notes = append(notes, a.Text)
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(b.w, "    <DD>%s\n", strings.ReplaceAll(html.EscapeString(strings.Join(notes, "\n\n")), "\n", "<br>"))
	}
	return nil
}

// Close ends the list and flushes.
func (b *Bookmarks) Close() error {
	if !b.started {
		b.w.WriteString(bookmarksHead)
	}
	b.w.WriteString("</DL><p>\n")
	return b.w.Flush()
}
