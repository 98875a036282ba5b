package importer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"
)

// Pocket's CSV export (2024 on, alone or in its zip as part_000000.csv,
// part_000001.csv, ...): title,url,time_added,tags,status, with tags
// separated by '|', time_added in Unix seconds and status unread or
// archive. The zip may also hold annotations/part_*.json: an array of
// {"url", "title", "highlights": [{"quote", "created_at"}]}.
var pocketCSV = register(&Format{
	Name: "pocket", Tool: "pocket",
	Doc:  "Pocket export: the zip, or its CSV (title,url,time_added,tags,status)",
	Read: readPocket,
})

func init() {
	csvHeaders = append(csvHeaders, struct {
		f    *Format
		cols []string
	}{pocketCSV, []string{"title", "url", "time_added", "tags", "status"}})
}

func readPocketCSV(data []byte, s *Sink, highlights map[string][]Highlight) error {
	return eachCSV(data, s, []string{"url"}, func(r csvRow) error {
		l := &Link{URL: r.Get("url"), Title: r.Get("title"), Saved: unixTime(r.Get("time_added")), Line: r.Line}
		for _, t := range strings.Split(r.Get("tags"), "|") {
			l.Tags = append(l.Tags, t)
		}
		switch strings.ToLower(strings.TrimSpace(r.Get("status"))) {
		case "archive", "archived", "read":
			l.Tags = append(l.Tags, TagRead)
		}
		if hs, ok := highlights[strings.TrimSpace(l.URL)]; ok {
			l.Highlights = hs
			delete(highlights, strings.TrimSpace(l.URL))
		}
		return emit(s, l)
	})
}

type pocketAnnotated struct {
	URL        string `json:"url"`
	Title      string `json:"title"`
	Highlights []struct {
		Quote     string          `json:"quote"`
		CreatedAt json.RawMessage `json:"created_at"`
	} `json:"highlights"`
}

// detectZip tells the zip exports apart by the files inside.
func detectZip(data []byte) (*Format, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("unreadable zip: %v", err)
	}
	heads := 0 // CSV members whose head was read: at most 64
	for _, f := range zr.File {
		base := path.Base(f.Name)
		if strings.HasPrefix(base, "part_") && strings.HasSuffix(base, ".csv") {
			return pocketCSV, nil
		}
		if strings.HasSuffix(base, ".csv") && heads < 64 {
			heads++
			b, err := memberHead(f, 4096)
			if err == nil {
				if fm := detectCSV(b); fm != nil {
					return fm, nil
				}
			}
		}
	}
	for _, z := range zipDetectors {
		if fm := z(zr); fm != nil {
			return fm, nil
		}
	}
	return nil, ErrUnknown
}

// zipDetectors are the other zip exports (Omnivore).
var zipDetectors []func(*zip.Reader) *Format

// readPocketZip reads the CSV parts of Pocket's zip in order, with the
// highlights of its annotations files attached to their links.
func readPocketZip(data []byte, s *Sink) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("unreadable zip: %v", err)
	}
	var parts []*zip.File
	highlights := map[string][]Highlight{}
	titles := map[string]string{}
	var order []string
	for _, f := range zr.File {
		base := path.Base(f.Name)
		switch {
		case strings.HasSuffix(base, ".csv"):
			parts = append(parts, f)
		case strings.HasSuffix(base, ".json") && strings.Contains(f.Name, "annotations"):
			b, err := s.readMember(f)
			if err != nil {
				if err := s.Bad(0, err.Error()); err != nil {
					return err
				}
				continue
			}
			var items []pocketAnnotated
			if err := json.Unmarshal(b, &items); err != nil {
				if err := s.Bad(0, fmt.Sprintf("%s: not a list of annotated items: %v", f.Name, err)); err != nil {
					return err
				}
				continue
			}
			for _, it := range items {
				u := strings.TrimSpace(it.URL)
				if _, seen := highlights[u]; !seen {
					order = append(order, u)
				}
				titles[u] = it.Title
				for _, h := range it.Highlights {
					highlights[u] = append(highlights[u], Highlight{Text: h.Quote, Created: jsonTime(h.CreatedAt)})
				}
			}
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].Name < parts[j].Name })
	if len(parts) == 0 {
		return fmt.Errorf("no CSV file in the zip")
	}
	for _, f := range parts {
		b, err := s.readMember(f)
		if err != nil {
			if err := s.Bad(0, err.Error()); err != nil {
				return err
			}
			continue
		}
		if err := readPocketCSV(b, s, highlights); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	// highlighted links the CSV did not list are links too
	for _, u := range order {
		if hs, ok := highlights[u]; ok {
			if err := emit(s, &Link{URL: u, Title: titles[u], Highlights: hs}); err != nil {
				return err
			}
		}
	}
	return nil
}

func readPocket(data []byte, s *Sink) error {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return readPocketZip(data, s)
	}
	return readPocketCSV(data, s, nil)
}

// jsonTime reads a time given as a JSON number (Unix) or string.
func jsonTime(raw json.RawMessage) (t time.Time) {
	var str string
	if json.Unmarshal(raw, &str) == nil {
		return parseTime(str)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return unixTime(n.String())
	}
	return t
}
