package importer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Chrome, Chromium, Edge and Brave keep bookmarks in a JSON file named
// Bookmarks in the profile folder: {"roots": {"bookmark_bar", "other",
// "synced": node}}, a node being {"type": "url"|"folder", "name", "url",
// "date_added", "children"}, date_added in microseconds since 1601-01-01
// UTC (as a string). Folders below the roots become tags.
var chromeJSON = register(&Format{
	Name: "chrome", Tool: "chrome",
	Doc:  "Chrome/Chromium/Edge/Brave profile Bookmarks file (JSON)",
	Read: readChrome,
})

type chromeNode struct {
	Type      string       `json:"type"`
	Name      string       `json:"name"`
	URL       string       `json:"url"`
	DateAdded string       `json:"date_added"`
	Children  []chromeNode `json:"children"`
}

// webkitEpoch is 1601-01-01 in Unix seconds.
const webkitEpoch = 11644473600

func chromeTime(v string) time.Time {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(n - webkitEpoch*1_000_000).UTC()
}

func readChrome(data []byte, s *Sink) error {
	var file struct {
		Roots map[string]json.RawMessage `json:"roots"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return fmt.Errorf("not a Bookmarks JSON file: %v", err)
	}
	if file.Roots == nil {
		return fmt.Errorf("not a Bookmarks JSON file: no roots")
	}
	n := 0
	var walk func(nd chromeNode, folders []string) error
	walk = func(nd chromeNode, folders []string) error {
		switch nd.Type {
		case "url":
			n++
			l := &Link{URL: nd.URL, Title: nd.Name, Saved: chromeTime(nd.DateAdded), Tags: append([]string(nil), folders...)}
			if why := checkURL(l.URL); why != "" {
				return s.Bad(0, fmt.Sprintf("bookmark %d (%s): %s", n, firstLine(nd.Name, 60), why))
			}
			return s.Link(l)
		case "folder":
			for _, c := range nd.Children {
				if err := walk(c, append(folders[:len(folders):len(folders)], nd.Name)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, name := range []string{"bookmark_bar", "other", "synced"} {
		raw, ok := file.Roots[name]
		if !ok {
			continue
		}
		var root chromeNode
		if err := json.Unmarshal(raw, &root); err != nil {
			return fmt.Errorf("roots.%s: %v", name, err)
		}
		for _, c := range root.Children {
			if err := walk(c, nil); err != nil {
				return err
			}
		}
	}
	return nil
}
