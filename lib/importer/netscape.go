package importer

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
)

// Netscape bookmark HTML, the export of every browser (Chrome, Firefox,
// Safari, Edge) and of Pinboard, Raindrop and Karakeep: <DT><H3> opens a
// folder whose <DL> holds its links, <DT><A HREF ADD_DATE TAGS> is a link
// and the <DD> after it its description. Folders become tags (the
// browsers' own top folders, such as "Bookmarks bar", do not).
var netscapeHTML = register(&Format{
	Name: "netscape", Tool: "netscape",
	Doc:  "Netscape bookmark HTML (browsers, Pinboard, Raindrop, Karakeep)",
	Read: func(data []byte, s *Sink) error { return readBookmarkHTML(data, s, "") },
})

// Pocket's older export, ril_export.html: <h1>Unread</h1> and
// <h1>Read Archive</h1> each followed by a <ul> of
// <li><a href time_added tags>title</a>.
var pocketHTML = register(&Format{
	Name: "pocket-html", Tool: "pocket",
	Doc:  "Pocket's older export (ril_export.html)",
	Read: func(data []byte, s *Sink) error { return readBookmarkHTML(data, s, "pocket") },
})

// rootFolders are the browsers' own top folders: not tags.
var rootFolders = map[string]bool{
	"bookmarks bar": true, "bookmarks toolbar": true, "bookmarks menu": true, "other bookmarks": true,
	"mobile bookmarks": true, "favorites bar": true, "favourites bar": true, "other favorites": true,
	"bookmarks": true, "favorites": true, "unsorted bookmarks": true,
}

func readBookmarkHTML(data []byte, s *Sink, flavour string) error {
	z := html.NewTokenizer(bytes.NewReader(data))
	line := 1
	var (
		folders   []string // the open <DL>s' folder names ("" for none)
		named     []string // the names in folders that are not ""
		nextDL    string   // the folder of the next <DL>
		cur       *Link    // the last link, until its <DD> is read
		inA, inH  bool
		inDD      bool
		text      strings.Builder
		dd        strings.Builder
		heading   string // h1..h3 being read
		readState bool   // pocket: in the Read Archive list
	)
	flush := func() error {
		if cur == nil {
			return nil
		}
		if d := strings.TrimSpace(dd.String()); d != "" {
			cur.Note = d
		}
		dd.Reset()
		inDD = false
		l := cur
		cur = nil
		return emit(s, l)
	}
	for {
		tt := z.Next()
		raw := z.Raw()
		tokLine := line
		line += bytes.Count(raw, []byte("\n"))
		switch tt {
		case html.ErrorToken:
			if inA && cur != nil { // a file cut inside a link: keep its title so far
				cur.Title = text.String()
			}
			return flush()
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				attrs[string(k)] = string(v)
			}
			switch tag := string(name); tag {
			case "a":
				if err := flush(); err != nil {
					return err
				}
				cur = &Link{URL: attrs["href"], Line: tokLine, Saved: unixTime(attrs["add_date"])}
				if cur.Saved.IsZero() {
					cur.Saved = unixTime(attrs["time_added"])
				}
				cur.Tags = append(cur.Tags, innermost(named)...)
				cur.Tags = append(cur.Tags, strings.Split(attrs["tags"], ",")...)
				if attrs["toread"] == "1" {
					cur.Tags = append(cur.Tags, "toread")
				}
				if readState {
					cur.Tags = append(cur.Tags, TagRead)
				}
				if strings.HasPrefix(strings.ToLower(strings.TrimSpace(cur.URL)), "place:") {
					cur = nil // a Firefox smart folder (a saved query), not a link
					continue
				}
				inA = true
				text.Reset()
			case "h1", "h2", "h3":
				if err := flush(); err != nil {
					return err
				}
				inH, heading = true, tag
				text.Reset()
				if attrs["personal_toolbar_folder"] == "true" || attrs["unfiled_bookmarks_folder"] == "true" {
					heading = "root"
				}
			case "dl":
				if err := flush(); err != nil {
					return err
				}
				folders = append(folders, nextDL)
				if nextDL != "" {
					named = append(named, nextDL)
				}
				nextDL = ""
			case "dd":
				if cur != nil {
					inDD = true
				}
			case "dt", "li":
				if err := flush(); err != nil {
					return err
				}
			case "br", "p":
				if inDD {
					dd.WriteString("\n")
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "a":
				if inA && cur != nil {
					cur.Title = text.String()
				}
				inA = false
			case "h1", "h2", "h3":
				if !inH {
					continue
				}
				inH = false
				title := strings.TrimSpace(text.String())
				switch {
				case flavour == "pocket" && heading == "h1":
					readState = strings.Contains(strings.ToLower(title), "archive")
				case heading == "root" || rootFolders[strings.ToLower(title)]:
					nextDL = ""
				default:
					nextDL = title
				}
			case "dl":
				if err := flush(); err != nil {
					return err
				}
				if len(folders) > 0 {
					if folders[len(folders)-1] != "" {
						named = named[:len(named)-1]
					}
					folders = folders[:len(folders)-1]
				}
			}
		case html.TextToken:
			t := string(z.Text())
			switch {
			case inA || inH:
				text.WriteString(t)
			case inDD:
				dd.WriteString(t)
			}
		}
	}
}

// innermost returns the last maxFolderTags of folders (the ones nearest a
// link): the tags a link takes from the folders it is in.
func innermost(folders []string) []string {
	if len(folders) > maxFolderTags {
		return folders[len(folders)-maxFolderTags:]
	}
	return folders
}
