package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

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
// written (false: the file was already current). The file is written to
// a new temporary file in the vault (created exclusively, so a link
// planted under its name is never followed) and renamed over the old one;
// the old one is read for the comparison only when it is a regular file,
// and no further than the new content's length.
func (v *Vault) Item(rec *record.Record) (string, bool, error) {
	name, ok := v.byID[rec.ID]
	if !ok {
		name = fileName(titleOf(rec), rec.ID)
		v.byID[rec.ID] = name
	}
	path := filepath.Join(v.dir, name)
	body := Markdown(rec)
	if same(path, body) {
		return path, false, nil
	}
	tmp, err := os.CreateTemp(v.dir, "."+rec.ID+".*.tmp")
	if err != nil {
		return path, false, err
	}
	_, err = tmp.Write(body)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return path, false, err
	}
	return path, true, nil
}

// same reports whether the regular file at path (not a link, a device or
// a FIFO) holds exactly body.
func same(path string, body []byte) bool {
	li, err := os.Lstat(path)
	if err != nil || !li.Mode().IsRegular() || li.Size() != int64(len(body)) {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !os.SameFile(li, fi) {
		return false // replaced since the Lstat
	}
	old, err := io.ReadAll(io.LimitReader(f, int64(len(body))+1))
	return err == nil && bytes.Equal(old, body)
}

// maxTitleBytes bounds the title part of a file name: with " ll_" and the
// id and ".md" (23 bytes) a name stays far under the 255 bytes most file
// systems allow, whatever the script (a CJK character takes 3 bytes).
const maxTitleBytes = 200

// fileName is a file name from a title: characters file systems or
// Obsidian links refuse made spaces, at most 80 characters and
// maxTitleBytes bytes (cut on a character boundary), then the id.
func fileName(title, id string) string {
	clean := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|#^[]`, r) || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(title, " "))
	clean = strings.Join(strings.Fields(clean), " ")
	clean = strings.TrimLeft(clean, ".")
	if r := []rune(clean); len(r) > 80 {
		clean = string(r[:80])
	}
	if len(clean) > maxTitleBytes {
		cut := maxTitleBytes
		for cut > 0 && !utf8.RuneStart(clean[cut]) {
			cut--
		}
		clean = clean[:cut]
	}
	clean = strings.TrimSpace(clean)
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
// lowlights and notes with actor and confidence, then the item's
// structured document (record.Markdown) when it has one.
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
	fmt.Fprintf(&b, "# %s\n\n", Inline(titleOf(rec)))
	if rec.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", Inline(rec.Description))
	}
	writeAnnotations(&b, rec, "##")
	if md := strings.TrimSpace(rec.Markdown); md != "" {
		b.WriteString("---\n\n" + md + "\n")
	}
	return b.Bytes()
}
