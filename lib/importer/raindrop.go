package importer

import (
	"strings"
	"time"
)

// Raindrop's CSV export: id,title,note,excerpt,url,folder,tags,created,
// cover,highlights,favorite. tags are separated by commas, folder is a
// path ("Parent/Child": each part a tag), created is ISO 8601, favorite is
// true or false. highlights holds one highlight per "Highlight:" line,
// the user's note on it on a "Note:" line after it.
var raindropCSV = register(&Format{
	Name: "raindrop", Tool: "raindrop",
	Doc: "Raindrop CSV export (id,title,note,excerpt,url,folder,tags,created,...,highlights,favorite)",
	Read: func(data []byte, s *Sink) error {
		return eachCSV(data, s, []string{"url"}, func(r csvRow) error {
			l := &Link{URL: r.Get("url"), Title: r.Get("title"), Note: r.Get("note"), Saved: parseTime(r.Get("created")), Line: r.Line}
			for _, f := range strings.Split(r.Get("folder"), "/") {
				if f = strings.TrimSpace(f); f != "" && !strings.EqualFold(f, "unsorted") {
					l.Tags = append(l.Tags, f)
				}
			}
			l.Tags = append(l.Tags, strings.Split(r.Get("tags"), ",")...)
			if strings.EqualFold(strings.TrimSpace(r.Get("favorite")), "true") {
				l.Tags = append(l.Tags, TagStarred)
			}
			l.Highlights = raindropHighlights(r.Get("highlights"), l.Saved)
			return emit(s, l)
		})
	},
})

func init() {
	csvHeaders = append(csvHeaders, struct {
		f    *Format
		cols []string
	}{raindropCSV, []string{"url", "folder", "tags", "created", "highlights"}})
}

func raindropHighlights(v string, saved time.Time) []Highlight {
	var out []Highlight
	for _, line := range strings.Split(v, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "Highlight:"):
			out = append(out, Highlight{Text: strings.TrimSpace(strings.TrimPrefix(line, "Highlight:")), Created: saved})
		case strings.HasPrefix(line, "Note:") && len(out) > 0:
			out[len(out)-1].Note = strings.TrimSpace(strings.TrimPrefix(line, "Note:"))
		case line != "" && len(out) > 0 && out[len(out)-1].Note == "":
			out[len(out)-1].Text += "\n" + line // a highlight over several lines
		}
	}
	return out
}
