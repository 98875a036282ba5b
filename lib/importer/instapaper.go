package importer

import (
	"encoding/json"
	"strings"
)

// Instapaper's CSV export: URL,Title,Selection,Folder,Timestamp (newer
// exports add Tags, a JSON list). Folder is Unread, Archive, Starred or a
// folder of the user's; Selection is the text selected when the link was
// saved, kept as a highlight; Timestamp is Unix seconds.
var instapaperCSV = register(&Format{
	Name: "instapaper", Tool: "instapaper",
	Doc: "Instapaper CSV export (URL,Title,Selection,Folder,Timestamp[,Tags])",
	Read: func(data []byte, s *Sink) error {
		return eachCSV(data, s, []string{"url"}, func(r csvRow) error {
			l := &Link{URL: r.Get("url"), Title: r.Get("title"), Saved: unixTime(r.Get("timestamp")), Line: r.Line}
			switch f := strings.TrimSpace(r.Get("folder")); strings.ToLower(f) {
			case "", "unread":
			case "archive":
				l.Tags = append(l.Tags, TagRead)
			case "starred":
				l.Tags = append(l.Tags, TagStarred)
			default:
				l.Tags = append(l.Tags, f)
			}
			l.Tags = append(l.Tags, listField(r.Get("tags"))...)
			if sel := strings.TrimSpace(r.Get("selection")); sel != "" {
				l.Highlights = append(l.Highlights, Highlight{Text: sel, Created: l.Saved})
			}
			return emit(s, l)
		})
	},
})

func init() {
	csvHeaders = append(csvHeaders, struct {
		f    *Format
		cols []string
	}{instapaperCSV, []string{"url", "title", "selection", "folder"}})
}

// listField reads a list column: a JSON list of strings, or names
// separated by commas.
func listField(v string) []string {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	var list []string
	if strings.HasPrefix(v, "[") && json.Unmarshal([]byte(v), &list) == nil {
		return list
	}
	return strings.Split(v, ",")
}
