package canon

import "strings"

const upperHex = "0123456789ABCDEF"

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// unreserved reports whether c is an RFC 3986 unreserved character: these
// mean the same escaped or not, so they are always written decoded.
func unreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

func subDelim(c byte) bool {
	return strings.IndexByte("!$&'()*+,;=", c) >= 0
}

// pathByte reports whether c may appear unescaped in a path.
func pathByte(c byte) bool {
	return unreserved(c) || subDelim(c) || c == ':' || c == '@' || c == '/'
}

// queryByte reports whether c may appear unescaped in a query key or value
// ('&' never reaches here: the query is split on it first).
func queryByte(c byte) bool {
	return unreserved(c) || subDelim(c) || c == ':' || c == '@' || c == '/' || c == '?'
}

// normEscapes normalizes percent-encoding: escapes of unreserved characters
// are decoded, other escapes get upper-case hex, and bytes not allowed
// unescaped (space, non-ASCII, '"', '<', ...) are escaped. Reserved
// characters keep their form, escaped or not, because "/" and "%2F" can mean
// different things to a server.
func normEscapes(s string, allowed func(byte) bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if unreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperHex[v>>4])
				b.WriteByte(upperHex[v&15])
			}
			i += 2
			continue
		}
		if c != '%' && allowed(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperHex[c>>4])
		b.WriteByte(upperHex[c&15])
	}
	return b.String()
}

// fixLonePercents escapes every '%' not followed by two hex digits as "%25",
// as browsers do, so "50%-off" parses instead of failing.
func fixLonePercents(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeDotSegments resolves "." and ".." segments of an absolute path as
// RFC 3986 section 5.2.4 does; it does not merge repeated slashes.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	in := strings.Split(p, "/")
	out := make([]string, 0, len(in))
	for i, seg := range in {
		last := i == len(in)-1
		switch seg {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}
