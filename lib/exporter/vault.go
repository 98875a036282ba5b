package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/linkledger/linkledger/lib/record"
)

// Vault writes a Markdown vault: one file per item in a folder, named
// from its title and id ("The quokka's island ll_0123456789abcdef.md").
// A file is found again by the id in its name, so it keeps its name when
// the title changes or the user renames the part before the id; it is
// rewritten only when its content changed. Files without an item id in
// their name (the user's own) are never touched, and nothing is deleted.
type Vault struct {
	dir  string
	byID map[string]string // item id -> file name already there
}

var vaultIDRe = regexp.MustCompile(`(ll_[0-9a-f]{16})\.md$`)

// OpenVault reads the file names of dir (created when missing).
func OpenVault(dir string) (*Vault, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	v := &Vault{dir: dir, byID: map[string]string{}}
	for _, e := range ents {
		if m := vaultIDRe.FindStringSubmatch(e.Name()); m != nil && !e.IsDir() {
			v.byID[m[1]] = e.Name()
		}
	}
	return v, nil
}

// Item writes one item's file and returns its path and whether it was
// written (false: the file was already current).
func (v *Vault) Item(rec *record.Record) (string, bool, error) {
	name, ok := v.byID[rec.ID]
	if !ok {
		name = fileName(titleOf(rec), rec.ID)
		v.byID[rec.ID] = name
	}
	path := filepath.Join(v.dir, name)
	body := Markdown(rec)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, body) {
		return path, false, nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, body, 0o644); err != nil {
		return path, false, err
	}
	return path, true, os.Rename(tmp, path)
}

// fileName is a file name from a title: characters file systems or
// Obsidian links refuse made spaces, at most 80 characters, then the id.
func fileName(title, id string) string {
	clean := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|#^[]`, r) || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, title)
	clean = strings.Join(strings.Fields(clean), " ")
	clean = strings.TrimLeft(clean, ".")
	if r := []rune(clean); len(r) > 80 {
		clean = strings.TrimSpace(string(r[:80]))
	}
	if clean == "" {
		return id + ".md"
	}
	return clean + " " + id + ".md"
}

// yamlString quotes s for YAML (a JSON string is a YAML string).
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Markdown is an item's vault file: YAML front matter (url, title, author,
// source, saved and published dates, tags, status, id) and its highlights,
// lowlights and notes with actor and confidence.
func Markdown(rec *record.Record) []byte {
	var b bytes.Buffer
	in := ingestOf(rec)
	b.WriteString("---\n")
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, yamlString(v))
		}
	}
	url := rec.URL
	if url == "" {
		url = rec.CanonicalURL
	}
	field("url", url)
	field("title", rec.Title)
	field("author", rec.Author)
	source := rec.SourceType
	if rec.SiteName != "" {
		source = rec.SiteName + " (" + rec.SourceType + ")"
	}
	field("source", source)
	field("saved", in.SavedAt)
	field("published", rec.PublishedAt)
	tags := tagsOf(rec)
	if tags == nil {
		tags = []string{}
	}
	tj, _ := json.Marshal(tags)
	fmt.Fprintf(&b, "tags: %s\n", tj)
	field("status", in.Status)
	field("archived", rec.ArchivedAt)
	field("linkledger_id", rec.ID)
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", titleOf(rec))
	if rec.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", rec.Description)
	}
	for _, sec := range []struct{ typ, head string }{
		{record.AnnHighlight, "Highlights"}, {record.AnnLowlight, "Lowlights"}, {record.AnnNote, "Notes"},
	} {
		var items []record.Annotation
		for _, a := range rec.Annotations {
			if a.Type == sec.typ {
				items = append(items, a)
			}
		}
		if len(items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n", sec.head)
		for _, a := range items {
			text := strings.ReplaceAll(strings.TrimSpace(a.Text), "\n", "\n  ")
			who := a.Actor
			if a.Confidence != nil {
				who += fmt.Sprintf(", confidence %.2g", *a.Confidence)
			}
			if a.Pinned {
				who += ", pinned"
			}
			// a quote that is not in the source, or one a person
			// rejected, says so: it is not evidence
			switch a.Anchor {
			case record.AnchorUnanchored:
				who += ", unanchored: not in the text, not a quote of the source"
			case record.AnchorPending:
				who += ", pending: not yet checked against the text"
			}
			if a.Review != "" {
				who += ", " + a.Review
			}
			fmt.Fprintf(&b, "- %s  \n  — %s, %s\n", text, who, a.CreatedAt)
		}
		b.WriteString("\n")
	}
	return b.Bytes()
}
