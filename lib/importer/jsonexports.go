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

	"github.com/linkledger/linkledger/lib/record"
)

// Karakeep's (formerly Hoarder) JSON export: {"bookmarks": [{"createdAt"
// (Unix seconds), "title", "tags": [names], "content": {"type": "link",
// "url"} or {"type": "text", "text"}, "note", "archived", "favourited"}]}.
// A text bookmark has no URL: it is a bad row.
var karakeepJSON = register(&Format{
	Name: "karakeep", Tool: "karakeep",
	Doc: "Karakeep/Hoarder JSON export ({\"bookmarks\": [...]})",
	Read: func(data []byte, s *Sink) error {
		var file struct {
			Bookmarks []struct {
				CreatedAt  json.RawMessage `json:"createdAt"`
				Title      *string         `json:"title"`
				Tags       []string        `json:"tags"`
				Note       *string         `json:"note"`
				Archived   bool            `json:"archived"`
				Favourited bool            `json:"favourited"`
				Content    struct {
					Type  string `json:"type"`
					URL   string `json:"url"`
					Title string `json:"title"`
				} `json:"content"`
			} `json:"bookmarks"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			return fmt.Errorf("not a Karakeep export: %v", err)
		}
		for i, b := range file.Bookmarks {
			if b.Content.Type != "" && b.Content.Type != "link" {
				if err := s.Bad(0, fmt.Sprintf("bookmark %d: a %s bookmark, not a link", i+1, b.Content.Type)); err != nil {
					return err
				}
				continue
			}
			l := &Link{URL: b.Content.URL, Title: b.Content.Title, Tags: b.Tags, Saved: jsonTime(b.CreatedAt)}
			if b.Title != nil && *b.Title != "" {
				l.Title = *b.Title
			}
			if b.Note != nil {
				l.Note = *b.Note
			}
			if b.Archived {
				l.Tags = append(l.Tags, TagRead)
			}
			if b.Favourited {
				l.Tags = append(l.Tags, TagStarred)
			}
			if why := checkURL(l.URL); why != "" {
				if err := s.Bad(0, fmt.Sprintf("bookmark %d: %s", i+1, why)); err != nil {
					return err
				}
				continue
			}
			if err := s.Link(l); err != nil {
				return err
			}
		}
		return nil
	},
})

// Linkwarden's JSON export (its backup): {"collections": [{"name",
// "links": [{"name", "url", "description", "createdAt", "tags":
// [{"name"}]}]}]}. The collection is a tag, the description the note.
var linkwardenJSON = register(&Format{
	Name: "linkwarden", Tool: "linkwarden",
	Doc: "Linkwarden JSON export ({\"collections\": [{\"links\": [...]}]})",
	Read: func(data []byte, s *Sink) error {
		var file struct {
			Collections []struct {
				Name  string `json:"name"`
				Links []struct {
					Name        string          `json:"name"`
					URL         string          `json:"url"`
					Description string          `json:"description"`
					CreatedAt   json.RawMessage `json:"createdAt"`
					Tags        []struct {
						Name string `json:"name"`
					} `json:"tags"`
				} `json:"links"`
			} `json:"collections"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			return fmt.Errorf("not a Linkwarden export: %v", err)
		}
		n := 0
		for _, c := range file.Collections {
			for _, k := range c.Links {
				n++
				l := &Link{URL: k.URL, Title: k.Name, Note: k.Description, Saved: jsonTime(k.CreatedAt)}
				if c.Name != "" && !strings.EqualFold(c.Name, "unorganized") {
					l.Tags = append(l.Tags, c.Name)
				}
				for _, t := range k.Tags {
					l.Tags = append(l.Tags, t.Name)
				}
				if why := checkURL(l.URL); why != "" {
					if err := s.Bad(0, fmt.Sprintf("link %d (%s): %s", n, firstLine(k.Name, 60), why)); err != nil {
						return err
					}
					continue
				}
				if err := s.Link(l); err != nil {
					return err
				}
			}
		}
		return nil
	},
})

// Omnivore's export zip: metadata_*.json (arrays of {"slug", "title",
// "description", "url", "state", "labels", "savedAt"}) and
// highlights/<slug>.md, where each highlight is a "> " quote and the lines
// after it, up to the next quote, are the user's note on it. state
// Archived is the tag read; labels (names or {"name"}) are tags.
var omnivoreZip = register(&Format{
	Name: "omnivore", Tool: "omnivore",
	Doc:  "Omnivore export zip (metadata_*.json + highlights/*.md)",
	Read: readOmnivore,
})

func init() {
	jsonDetectors = append(jsonDetectors, func(trim []byte) *Format {
		head := trim
		if len(head) > 512 {
			head = head[:512]
		}
		switch {
		case !bytes.HasPrefix(trim, []byte("{")):
			return nil
		case bytes.Contains(head, []byte(`"bookmarks"`)):
			return karakeepJSON
		case bytes.Contains(head, []byte(`"collections"`)):
			return linkwardenJSON
		}
		return nil
	})
	zipDetectors = append(zipDetectors, func(zr *zip.Reader) *Format {
		for _, f := range zr.File {
			if b := path.Base(f.Name); strings.HasPrefix(b, "metadata_") && strings.HasSuffix(b, ".json") {
				return omnivoreZip
			}
		}
		return nil
	})
}

func readOmnivore(data []byte, s *Sink) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("unreadable zip: %v", err)
	}
	var metas []*zip.File
	highlights := map[string]*zip.File{}
	for _, f := range zr.File {
		b := path.Base(f.Name)
		switch {
		case strings.HasPrefix(b, "metadata_") && strings.HasSuffix(b, ".json"):
			metas = append(metas, f)
		case strings.HasSuffix(b, ".md") && strings.Contains(f.Name, "highlights"):
			highlights[strings.TrimSuffix(b, ".md")] = f
		}
	}
	sort.Slice(metas, func(i, j int) bool { return metas[i].Name < metas[j].Name })
	if len(metas) == 0 {
		return fmt.Errorf("no metadata_*.json in the zip")
	}
	usedBy := map[string]string{} // slug -> the item its highlights went to
	for _, mf := range metas {
		b, err := s.readMember(mf)
		if err != nil {
			if err := s.Bad(0, err.Error()); err != nil {
				return err
			}
			continue
		}
		var items []struct {
			Slug        string            `json:"slug"`
			Title       string            `json:"title"`
			Description string            `json:"description"`
			URL         string            `json:"url"`
			State       string            `json:"state"`
			Labels      []json.RawMessage `json:"labels"`
			SavedAt     json.RawMessage   `json:"savedAt"`
		}
		if err := json.Unmarshal(b, &items); err != nil {
			if err := s.Bad(0, fmt.Sprintf("%s: not a list of items: %v", mf.Name, err)); err != nil {
				return err
			}
			continue
		}
		for i, it := range items {
			l := &Link{URL: it.URL, Title: it.Title, Saved: jsonTime(it.SavedAt)}
			for _, raw := range it.Labels {
				var name string
				if json.Unmarshal(raw, &name) != nil {
					var obj struct {
						Name string `json:"name"`
					}
					json.Unmarshal(raw, &obj)
					name = obj.Name
				}
				l.Tags = append(l.Tags, name)
			}
			if strings.EqualFold(it.State, "archived") {
				l.Tags = append(l.Tags, TagRead)
			}
			if first, ok := usedBy[it.Slug]; ok && it.Slug != "" {
				// a highlights file is one item's (slugs are unique): given
				// to every item naming it, one file would be read and
				// written out again for each
				if err := s.Bad(0, fmt.Sprintf("%s item %d: its highlights (slug %s) went to %s; not attached again", mf.Name, i+1, record.Quote(it.Slug), first)); err != nil {
					return err
				}
			} else if hf, ok := highlights[it.Slug]; ok && it.Slug != "" {
				usedBy[it.Slug] = fmt.Sprintf("%s item %d", mf.Name, i+1)
				md, err := s.readMember(hf)
				if err != nil {
					if err := s.Bad(0, fmt.Sprintf("%s item %d: highlights not read: %v", mf.Name, i+1, err)); err != nil {
						return err
					}
				} else if l.Highlights, err = omnivoreHighlights(md, l.Saved, s, hf.Name); err != nil {
					return err
				}
			}
			if why := checkURL(l.URL); why != "" {
				if err := s.Bad(0, fmt.Sprintf("%s item %d: %s", mf.Name, i+1, why)); err != nil {
					return err
				}
				continue
			}
			if err := dropLongHighlights(s, l, fmt.Sprintf("%s item %d", mf.Name, i+1)); err != nil {
				return err
			}
			if err := s.Link(l); err != nil {
				return err
			}
		}
	}
	return nil
}

// omnivoreHighlights reads a highlights Markdown file: a "> " block is a
// highlight, the text after it (up to the next block) the note on it. The
// text of each is built in one buffer (grown with += it took 67 s for a
// block of 200,000 lines). A line over the line cap is a bad row.
func omnivoreHighlights(md []byte, saved time.Time, s *Sink, name string) ([]Highlight, error) {
	var out []Highlight
	var text, note strings.Builder
	open := false // out has a highlight whose text and note are in the builders
	finish := func() {
		if open {
			out = append(out, Highlight{Text: text.String(), Note: note.String(), Created: saved})
			text.Reset()
			note.Reset()
			open = false
		}
	}
	inQuote := false
	sub := &Sink{Bad: func(line int, msg string) error { return s.Bad(0, fmt.Sprintf("%s line %d: %s", name, line, msg)) }}
	err := eachLine(md, sub, func(_ int, b []byte) error {
		t := strings.TrimSpace(string(b))
		switch {
		case strings.HasPrefix(t, ">"):
			q := strings.TrimSpace(strings.TrimPrefix(t, ">"))
			if inQuote && open {
				if text.Len() <= maxHighlightBytes { // past it, the highlight is left out whole
					text.WriteString("\n")
					text.WriteString(q)
				}
			} else {
				finish()
				open = true
				text.WriteString(q)
			}
			inQuote = true
		case t == "":
			inQuote = false
		case strings.HasPrefix(t, "#"):
			inQuote = false // a heading, not a note
		default:
			inQuote = false
			if open && note.Len() <= maxHighlightBytes {
				if note.Len() > 0 {
					note.WriteString("\n")
				}
				note.WriteString(t)
			}
		}
		return nil
	})
	finish()
	return out, err
}
