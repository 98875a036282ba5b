// Package canon turns a URL or local path into the canonical URL that
// identifies a linkledger item (record.ItemID hashes it), and detects the
// item's source type (article, x, youtube, pdf, text).
//
// Canonicalization is deliberately conservative: it merges spellings of the
// same resource (case of scheme and host, IDN, default ports, dot segments,
// percent-encoding, parameter order, tracking parameters, fragments, known
// host aliases, YouTube and X URL forms) and never merges URLs that could
// name different resources (path case, www., http vs https, parameter
// values). The rules are documented in docs/canonicalization.md; the data
// (tracking parameters and host aliases) is rules.json, extensible by users.
package canon

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/idna"

	"github.com/linkledger/linkledger/lib/record"
)

// Result of canonicalizing one URL.
type Result struct {
	URL        string // canonical URL
	Original   string // the input URL (after a local path became a file:// URL)
	SourceType string // record.SourceArticle, SourceX, SourceYouTube, SourcePDF or SourceText
	YouTubeID  string // 11-char video id when youtube
	StartS     int    // youtube timestamp in seconds, 0 when none; not part of URL
	XUser      string // x: screen name as written (case kept); "i" for i/web/status forms
	XStatusID  string // x: numeric status id
}

// ErrBadURL means the input is not a URL or path that can be saved.
var ErrBadURL = errors.New("bad url")

// ErrUnsupportedScheme means the URL has a scheme other than http, https or
// file.
var ErrUnsupportedScheme = errors.New("unsupported scheme")

// Canonicalize canonicalizes raw with the built-in rules.
func Canonicalize(raw string) (Result, error) {
	return sharedDefault().Canonicalize(raw)
}

// Canonicalize returns the canonical form and source type of the absolute
// URL raw (http, https or file). Errors wrap ErrBadURL or
// ErrUnsupportedScheme.
func (r *Rules) Canonicalize(raw string) (Result, error) {
	raw = strings.TrimSpace(raw)
	res := Result{Original: raw}
	if raw == "" {
		return res, fmt.Errorf("%w: empty", ErrBadURL)
	}
	fixed := fixLonePercents(raw)
	u, err := url.Parse(fixed)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return res, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "":
		return res, fmt.Errorf("%w: missing scheme", ErrBadURL)
	case "http", "https", "file":
	default:
		return res, fmt.Errorf("%w: %s", ErrUnsupportedScheme, scheme)
	}
	if u.Opaque != "" {
		return res, fmt.Errorf("%w: %s URL without //", ErrBadURL, scheme)
	}
	if scheme == "file" {
		return r.canonFile(u, rawPath(fixed), res)
	}
	if u.User != nil {
		// Never stored nor shown: the original URL loses it too.
		res.Original = stripUserInfo(raw)
	}

	host, err := canonHost(u.Hostname())
	if err != nil {
		return res, err
	}
	if a, ok := r.aliases[host]; ok {
		host = a
	}
	port := strings.TrimLeft(u.Port(), "0")
	if n, err := strconv.Atoi(port); u.Port() != "" && (err != nil || n < 1 || n > 65535) {
		return res, fmt.Errorf("%w: bad port %q", ErrBadURL, u.Port())
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	hostport := host
	if strings.Contains(host, ":") {
		hostport = "[" + host + "]"
	}
	if port != "" {
		hostport += ":" + port
	}

	// The path is taken from the input as written: url.URL.Path is decoded
	// and would turn "%2F" into "/".
	p := removeDotSegments(normEscapes(rawPath(fixed), pathByte))
	if p == "" {
		p = "/"
	}
	params := splitQuery(u.RawQuery)

	if id, start, ok := youTubeVideo(host, p, params, u.EscapedFragment()); ok {
		res.URL = "https://www.youtube.com/watch?v=" + id
		res.SourceType = record.SourceYouTube
		res.YouTubeID = id
		res.StartS = start
		return res, nil
	}
	if user, id, ok := xStatus(host, p, u.EscapedFragment()); ok {
		if user == "i" {
			res.URL = "https://x.com/i/status/" + id
		} else {
			res.URL = "https://x.com/" + user + "/status/" + id
		}
		res.SourceType = record.SourceX
		res.XUser = user
		res.XStatusID = id
		return res, nil
	}

	kept := params[:0]
	for _, q := range params {
		if !r.isTracking(host, q.name) {
			kept = append(kept, q)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].key < kept[j].key })

	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	// No user info: credentials are not part of what a page is, and a
	// canonical URL is shown by find and brief and handed to agents.
	b.WriteString(hostport)
	b.WriteString(p)
	for i, q := range kept {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(q.raw)
	}
	res.URL = b.String()
	res.SourceType = typeByPath(p)
	return res, nil
}

// canonFile canonicalizes a file:// URL: empty or localhost host, absolute
// cleaned path, no query or fragment.
func (r *Rules) canonFile(u *url.URL, rawp string, res Result) (Result, error) {
	h := strings.ToLower(u.Host)
	if h != "" && h != "localhost" {
		return res, fmt.Errorf("%w: file URL with host %q", ErrBadURL, u.Host)
	}
	if u.User != nil {
		return res, fmt.Errorf("%w: file URL with user info", ErrBadURL)
	}
	if !strings.HasPrefix(u.Path, "/") {
		return res, fmt.Errorf("%w: file URL needs an absolute path", ErrBadURL)
	}
	p := removeDotSegments(normEscapes(rawp, pathByte))
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	if len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	res.URL = "file://" + p
	res.SourceType = typeByPath(p)
	return res, nil
}

// rawPath returns the path of the absolute URL s exactly as written: after
// "scheme:" and the "//authority" part, up to the first '?' or '#'.
func rawPath(s string) string {
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexAny(s, "/?#")
		if i < 0 {
			return ""
		}
		s = s[i:]
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return s
}

// canonHost lower-cases host, converts an internationalized name to its
// ASCII (punycode) form and checks what is left is a plausible host.
func canonHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("%w: missing host", ErrBadURL)
	}
	if strings.ContainsAny(h, " \t\r\n") {
		return "", fmt.Errorf("%w: whitespace in host", ErrBadURL)
	}
	if strings.Contains(h, ":") { // IPv6 literal; url.Parse checked the brackets
		return strings.ToLower(h), nil
	}
	h = strings.TrimSuffix(h, ".")
	ascii := true
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		h = strings.ToLower(h)
	} else {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("%w: host %q: %v", ErrBadURL, h, err)
		}
		h = a
	}
	if !validHost(h) {
		return "", fmt.Errorf("%w: bad host %q", ErrBadURL, h)
	}
	return h, nil
}

// validHost reports whether h is a lower-case ASCII host name made of
// non-empty labels of letters, digits, '-' and '_'.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// typeByPath gives the source type implied by a path's extension.
func typeByPath(p string) string {
	if u, err := url.PathUnescape(p); err == nil {
		p = u
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".pdf":
		return record.SourcePDF
	case ".txt", ".md", ".markdown", ".text":
		return record.SourceText
	}
	return record.SourceArticle
}

// queryParam is one key[=value] pair of a query, already escape-normalized.
type queryParam struct {
	raw  string // normalized "key=value" or "key" as written
	key  string // normalized escaped key, the sort key
	name string // decoded key, for rule matching
}

// splitQuery splits a raw query on '&', drops empty pairs and normalizes
// percent-encoding. '+' is kept as written.
func splitQuery(rq string) []queryParam {
	if rq == "" {
		return nil
	}
	var out []queryParam
	for _, pair := range strings.Split(rq, "&") {
		if pair == "" {
			continue
		}
		k, v, hasEq := strings.Cut(pair, "=")
		k = normEscapes(k, queryByte)
		raw := k
		if hasEq {
			raw += "=" + normEscapes(v, queryByte)
		}
		name := k
		if d, err := url.QueryUnescape(k); err == nil {
			name = d
		}
		out = append(out, queryParam{raw: raw, key: k, name: name})
	}
	return out
}

// value returns the decoded value of the first parameter named name.
func paramValue(params []queryParam, name string) (string, bool) {
	for _, q := range params {
		if q.name == name {
			_, v, _ := strings.Cut(q.raw, "=")
			if d, err := url.QueryUnescape(v); err == nil {
				v = d
			}
			return v, true
		}
	}
	return "", false
}

// stripUserInfo removes "user:pass@" from the authority of the absolute URL
// raw, leaving every other byte as written.
func stripUserInfo(raw string) string {
	i := strings.Index(raw, "://")
	if i < 0 {
		return raw
	}
	start := i + 3
	end := len(raw)
	if j := strings.IndexAny(raw[start:], "/?#"); j >= 0 {
		end = start + j
	}
	at := strings.LastIndexByte(raw[start:end], '@')
	if at < 0 {
		return raw
	}
	return raw[:start] + raw[start+at+1:]
}
