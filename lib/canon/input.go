package canon

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
