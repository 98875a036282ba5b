package canon

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// FromInput turns one user input into a URL string for Canonicalize.
//
//   - http, https and file URLs are returned unchanged (trimmed);
//   - a local path (absolute, ./, ../, ~, ~/, a relative name that exists on
//     disk under cwd, or a scheme-less input containing '/' whose first
//     segment does not look like a host name) becomes a file:// URL of its
//     cleaned absolute path; ~ is expanded with home;
//   - a scheme-less input that looks like a host ("example.com/x",
//     "localhost:8080") and does not exist on disk becomes https://...;
//   - other schemes (ftp:, mailto:, javascript:) give ErrUnsupportedScheme;
//   - empty input, or a bare word that is neither a file nor a host, gives
//     ErrBadURL.
func FromInput(s, cwd, home string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadURL)
	}
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		if home == "" {
			return "", fmt.Errorf("%w: %s: home directory unknown", ErrBadURL, s)
		}
		return fileURL(filepath.Join(home, s[1:])), nil
	case filepath.IsAbs(s):
		return fileURL(s), nil
	case s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		return relFileURL(s, cwd)
	}
	if scheme, ok := schemeOf(s); ok {
		switch scheme {
		case "http", "https", "file":
			return s, nil
		}
		return "", fmt.Errorf("%w: %s", ErrUnsupportedScheme, scheme)
	}
	if cwd != "" {
		if _, err := os.Stat(filepath.Join(cwd, s)); err == nil {
			return relFileURL(s, cwd)
		}
	}
	first, _, hasSlash := strings.Cut(s, "/")
	if looksLikeHost(first) {
		return "https://" + s, nil
	}
	if hasSlash {
		return relFileURL(s, cwd)
	}
	return "", fmt.Errorf("%w: %s: not a URL and no such file", ErrBadURL, s)
}

// schemeOf returns the lower-cased scheme of s when s starts with one
// ("x:" where the rest is not a port number, so "localhost:8080" has none).
func schemeOf(s string) (string, bool) {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !(letter || j > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	rest := s[i+1:]
	if !strings.HasPrefix(rest, "//") {
		port, _, _ := strings.Cut(rest, "/")
		if port != "" && allDigits(port) {
			return "", false // host:port
		}
	}
	return strings.ToLower(s[:i]), true
}

// looksLikeHost reports whether hp ("host" or "host:port") looks like a
// host name: localhost, an IPv4 address, or dotted labels ending in an
// alphabetic top-level label of two or more letters.
func looksLikeHost(hp string) bool {
	h := hp
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		if !allDigits(hp[i+1:]) {
			return false
		}
		h = hp[:i]
	}
	h = strings.ToLower(h)
	if h == "localhost" {
		return true
	}
	labels := strings.Split(h, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" {
			return false
		}
	}
	if len(labels) == 4 && allDigits(labels[0]) && allDigits(labels[1]) && allDigits(labels[2]) && allDigits(labels[3]) {
		return true
	}
	tld := labels[len(labels)-1]
	if len(tld) < 2 {
		return false
	}
	for _, r := range tld {
		if !(r >= 'a' && r <= 'z' || r >= 0x80) {
			return false
		}
	}
	return validHost(strings.ToLower(h)) || strings.ContainsFunc(h, func(r rune) bool { return r >= 0x80 })
}

func relFileURL(s, cwd string) (string, error) {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return "", fmt.Errorf("%w: %s: relative path without a working directory", ErrBadURL, s)
	}
	return fileURL(filepath.Join(cwd, s)), nil
}

// fileURL returns the file:// URL of the cleaned absolute path p.
func fileURL(p string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Clean(p))}
	return u.String()
}

// Errors of SaveInput besides ErrBadURL and ErrUnsupportedScheme.
var (
	// ErrNoSuchFile means the input is a local path that does not exist.
	ErrNoSuchFile = errors.New("no such file")
	// ErrNotInput means the input is neither a URL, a host name (with a
	// path), nor a local path: a line of some other file, a title, prose.
	ErrNotInput = errors.New("not a URL or a path")
	// ErrLocalFile means the input names a local file (a path or a file:
	// URL) where only web links are taken (WebInput).
	ErrLocalFile = errors.New("local files are not allowed")
)

// WebInput is SaveInput for a caller that may not name local files (an
// agent over MCP). It never looks at the file system, so its answer says
// nothing about which files exist: an http or https URL without spaces,
// or a host name with an optional path ("example.com/page"), is taken as
// SaveInput takes it (the latter made https://...); a file: URL, a path
// form (/, ./, ../, ~), a name with a file extension or a relative path
// gives ErrLocalFile; another scheme ErrUnsupportedScheme; anything else
// ErrNotInput.
func WebInput(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadURL)
	}
	if s == "~" || strings.HasPrefix(s, "~/") || filepath.IsAbs(s) || strings.HasPrefix(s, "/") ||
		s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") {
		return "", ErrLocalFile
	}
	spaced := strings.ContainsFunc(s, unicode.IsSpace)
	if scheme, ok := schemeOf(s); ok {
		switch {
		case scheme == "file":
			return "", ErrLocalFile
		case (scheme == "http" || scheme == "https") && !spaced:
			return s, nil
		case scheme == "http" || scheme == "https" || spaced:
			return "", ErrNotInput
		}
		return "", fmt.Errorf("%w: %s", ErrUnsupportedScheme, scheme)
	}
	first, _, hasSlash := strings.Cut(s, "/")
	fileLike := !hasSlash && fileExtension(s)
	switch {
	case !fileLike && looksLikeHost(first) && !spaced:
		return "https://" + s, nil
	case spaced || notPathLike(s):
		return "", ErrNotInput
	case hasSlash || fileLike:
		return "", ErrLocalFile
	}
	return "", ErrNotInput
}

// SaveInput is FromInput for what a user asks to save (ll-save): it saves
// nothing by guess, so a line of some other file never becomes an item.
//
//   - an http or https URL without spaces, or any file: URL, is returned
//     unchanged (trimmed); another scheme gives ErrUnsupportedScheme;
//   - a local path (absolute, ./, ../, ~, ~/, or relative) that exists
//     becomes a file:// URL of its cleaned absolute path, spaces and all;
//   - a host name with an optional path ("example.com/page",
//     "localhost:8080/x"), without spaces, whose host has a dot and ends in
//     an alphabetic top-level label (or is localhost or an IPv4 address),
//     becomes https://...; except a bare name ending in a common file
//     extension ("typo.pdf"), which is taken for a missing file;
//   - a path that does not exist gives ErrNoSuchFile (with its absolute
//     path): a path form (/, ./, ../, ~), a relative name with '/' and
//     nothing a path rarely has (<, >, ", |, a comma, a control
//     character, "://"), or a name with a file extension;
//   - anything else gives ErrNotInput.
func SaveInput(s, cwd, home string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", fmt.Errorf("%w: empty", ErrBadURL)
	}
	switch {
	case s == "~" || strings.HasPrefix(s, "~/") || filepath.IsAbs(s) ||
		s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		u, err := FromInput(s, cwd, home)
		if err != nil {
			return "", err
		}
		return existingFile(u)
	}
	spaced := strings.ContainsFunc(s, unicode.IsSpace)
	if scheme, ok := schemeOf(s); ok {
		switch {
		case scheme == "file":
			return s, nil
		case (scheme == "http" || scheme == "https") && !spaced:
			return s, nil
		case scheme == "http" || scheme == "https" || spaced:
			// "https://a.example/ Title", "Note: text": not one URL
			return "", ErrNotInput
		}
		return "", fmt.Errorf("%w: %s", ErrUnsupportedScheme, scheme)
	}
	if cwd != "" {
		if _, err := os.Stat(filepath.Join(cwd, s)); err == nil {
			return relFileURL(s, cwd)
		}
	}
	first, _, hasSlash := strings.Cut(s, "/")
	fileLike := !hasSlash && fileExtension(s)
	if !fileLike && looksLikeHost(first) {
		if spaced {
			return "", ErrNotInput // "example.com/a page": a URL has no spaces
		}
		return "https://" + s, nil
	}
	if notPathLike(s) || !hasSlash && !fileLike {
		return "", ErrNotInput
	}
	u, err := relFileURL(s, cwd)
	if err != nil {
		return "", err
	}
	return "", fmt.Errorf("%w: %s", ErrNoSuchFile, showPath(filePath(u)))
}

// existingFile returns the file:// URL u when its file exists, else
// ErrNoSuchFile with the path.
func existingFile(u string) (string, error) {
	p := filePath(u)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("%w: %s", ErrNoSuchFile, showPath(p))
	}
	return u, nil
}

// filePath is the local path of a file:// URL made by fileURL.
func filePath(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return strings.TrimPrefix(u, "file://")
	}
	return filepath.FromSlash(pu.Path)
}

// fileExtensions are the extensions that make a bare name ("paper.pdf") a
// file, not a host name, though some are also top-level domains (.md).
var fileExtensions = map[string]bool{
	"pdf": true, "md": true, "txt": true, "html": true, "htm": true, "epub": true, "doc": true, "docx": true,
	"csv": true, "json": true, "ndjson": true, "jsonl": true, "xml": true, "png": true, "jpg": true, "jpeg": true,
	"gif": true, "webp": true, "svg": true, "rtf": true, "odt": true, "tex": true, "rst": true, "adoc": true,
}

// fileExtension reports whether name ends in a common file extension.
func fileExtension(name string) bool {
	i := strings.LastIndexByte(name, '.')
	return i > 0 && fileExtensions[strings.ToLower(name[i+1:])]
}

// notPathLike reports whether s has what a path a person types rarely
// has and a line of an HTML or CSV file often does.
func notPathLike(s string) bool {
	return strings.ContainsAny(s, "<>\"|,") || strings.Contains(s, "://") ||
		strings.ContainsFunc(s, unicode.IsControl)
}

// showPath is p for a message: quoted, control characters escaped, when it
// has any.
func showPath(p string) string {
	if strings.ContainsFunc(p, unicode.IsControl) {
		return strconv.Quote(p)
	}
	return p
}
