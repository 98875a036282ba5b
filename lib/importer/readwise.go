package importer

import (
	"encoding/json"
	"strings"
)

// Readwise Reader's CSV export: Title,URL,ID,Document tags,Saved date,
// Reading progress,Location,Seen. Document tags is a list written as
// ['a', 'b']; Location is new, later, shortlist, archive or feed (archive
// is the tag read, shortlist the tag starred).
var readerCSV = register(&Format{
	Name: "readwise-reader", Tool: "readwise",
	Doc: "Readwise Reader CSV export (Title,URL,ID,Document tags,Saved date,...,Location)",
	Read: func(data []byte, s *Sink) error {
		return eachCSV(data, s, []string{"url"}, func(r csvRow) error {
			l := &Link{URL: r.Get("url"), Title: r.Get("title"), Saved: parseTime(r.Get("saved date")), Line: r.Line}
			l.Tags = pyList(r.Get("document tags"))
			switch strings.ToLower(strings.TrimSpace(r.Get("location"))) {
			case "archive":
				l.Tags = append(l.Tags, TagRead)
			case "shortlist":
				l.Tags = append(l.Tags, TagStarred)
			}
			return emit(s, l)
		})
	},
})

// Readwise's highlights CSV export: Highlight,Book Title,Book Author,
// Amazon Book ID,Note,Color,Tags,Location Type,Location,Highlighted at,
// Document tags (and, in exports of articles, URL). A row is one highlight
// with its note; rows of one URL make one item. Book highlights have no
// URL: those rows are bad rows.
var readwiseCSV = register(&Format{
	Name: "readwise", Tool: "readwise",
	Doc: "Readwise highlights CSV export (Highlight,Book Title,...,Highlighted at[,URL])",
	Read: func(data []byte, s *Sink) error {
		return eachCSV(data, s, []string{"highlight"}, func(r csvRow) error {
			l := &Link{URL: r.Get("url"), Title: r.Get("book title"), Line: r.Line}
			if strings.TrimSpace(l.URL) == "" {
				return s.Bad(r.Line, "no url (a book's highlight has none)")
			}
			at := parseTime(r.Get("highlighted at"))
			l.Highlights = []Highlight{{Text: r.Get("highlight"), Note: r.Get("note"), Created: at}}
			l.Tags = append(pyList(r.Get("document tags")), pyList(r.Get("tags"))...)
			return emit(s, l)
		})
	},
})

func init() {
	csvHeaders = append(csvHeaders, struct {
		f    *Format
		cols []string
	}{readerCSV, []string{"title", "url", "document tags", "saved date", "location"}}, struct {
		f    *Format
		cols []string
	}{readwiseCSV, []string{"highlight", "book title", "highlighted at"}})
}

// pyList reads a list column written as ['a', 'b'] (Python's form), as
// JSON, or as names separated by commas.
func pyList(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" || v == "[]" {
		return nil
	}
	var list []string
	if json.Unmarshal([]byte(v), &list) == nil {
		return list
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		p = strings.Trim(p, `'"`)
		if p != "" {
			list = append(list, p)
		}
	}
	return list
}
