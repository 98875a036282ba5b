package exporter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// Item writes one item's file, and its stored images (rec.Images with
// their Data) into images/ beside it, and returns its path and whether
// anything was written (false: the files were already current). The file is written to
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
	// the images first: the note links them
	wrote := false
	for i, im := range rec.Images {
		if im.ContentType == "" || im.Data == nil {
			continue
		}
		if err := os.MkdirAll(filepath.Join(v.dir, vaultImages), 0o755); err != nil {
			return path, false, err
		}
		w, err := writeFile(v.dir, filepath.FromSlash(imageFile(rec.ID, i+1, im.ContentType)), rec.ID, im.Data)
		if err != nil {
			return path, false, err
		}
		wrote = wrote || w
	}
	written, err := writeFile(v.dir, name, rec.ID, Markdown(rec))
	return path, written || wrote, err
}

// vaultImages is the folder of the vault that holds the items' images.
const vaultImages = "images"

// imageFile is the vault path (relative, with slashes) of the item's
// stored image at position n: images/ll_0123456789abcdef-1.png.
func imageFile(id string, n int, contentType string) string {
	ext := map[string]string{"image/png": ".png", "image/jpeg": ".jpg", "image/gif": ".gif", "image/webp": ".webp", "image/avif": ".avif"}[contentType]
	if ext == "" {
		ext = ".img"
	}
	return vaultImages + "/" + id + "-" + strconv.Itoa(n) + ext
}

// writeFile writes body to name in dir unless the file already holds it,
// and reports whether it wrote.
func writeFile(dir, name, id string, body []byte) (bool, error) {
	path := filepath.Join(dir, name)
	if same(path, body) {
		return false, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+id+".*.tmp")
	if err != nil {
		return false, err
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
		return false, err
	}
	return true, nil
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
		b.WriteString("---\n\n" + localImages(md, rec) + "\n")
	}
	return b.Bytes()
}

// mdImage is an image in the structured document: ![alt](address) or
// ![alt](address "title").
var mdImage = regexp.MustCompile(`!\[((?:\\.|[^\]\\])*)\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// localImages points the document's images at their copies beside the
// note (images/ID-N.ext); a web image without a copy becomes a link
// ([image: alt](address)), so opening the note asks no third party for
// it.
func localImages(md string, rec *record.Record) string {
	local := map[string]string{}
	for i, im := range rec.Images {
		if im.ContentType != "" && im.Data != nil {
			local[im.URL] = imageFile(rec.ID, i+1, im.ContentType)
		}
	}
	return mdImage.ReplaceAllStringFunc(md, func(m string) string {
		sub := mdImage.FindStringSubmatch(m)
		alt, addr := sub[1], sub[2]
		if p, ok := local[addr]; ok {
			return "![" + alt + "](" + p + ")"
		}
		if !strings.HasPrefix(addr, "http://") && !strings.HasPrefix(addr, "https://") {
			return m
		}
		label := "image"
		if alt != "" {
			label += ": " + alt
		}
		return "[" + label + "](" + addr + ")"
	})
}
