package canon

import (
	"strconv"
	"strings"
)

// youTubeHosts are the hosts that serve YouTube videos. m. and music. pages
// of a video show the same video as www.
var youTubeHosts = map[string]bool{
	"youtube.com":              true,
	"www.youtube.com":          true,
	"m.youtube.com":            true,
	"music.youtube.com":        true,
	"youtube-nocookie.com":     true,
	"www.youtube-nocookie.com": true,
	"youtu.be":                 true,
}

// youTubePathForms are the first path segments followed by a video id.
var youTubePathForms = map[string]bool{
	"shorts": true, "embed": true, "live": true, "v": true, "e": true,
}

// youTubeVideo recognises a YouTube video URL (host, normalized escaped path,
// query, raw fragment) and returns its id and start time in seconds.
func youTubeVideo(host, p string, params []queryParam, frag string) (id string, start int, ok bool) {
	if !youTubeHosts[host] {
		return "", 0, false
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	switch {
	case host == "youtu.be":
		id = segs[0]
	case segs[0] == "watch" && len(segs) == 1:
		id, _ = paramValue(params, "v")
	case youTubePathForms[segs[0]] && len(segs) >= 2:
		id = segs[1]
		if len(segs) > 2 && !(len(segs) == 3 && segs[2] == "") {
			return "", 0, false
		}
	}
	if !validVideoID(id) {
		return "", 0, false
	}
	if v, found := paramValue(params, "t"); found {
		start = parseTimestamp(v)
	} else if v, found := paramValue(params, "start"); found {
		start = parseTimestamp(v)
	} else if v, found := paramValue(splitQuery(frag), "t"); found {
		start = parseTimestamp(v)
	}
	return id, start, true
}

// validVideoID reports whether id is an 11-character YouTube video id.
func validVideoID(id string) bool {
	if len(id) != 11 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// parseTimestamp reads a YouTube start time: "90", "90s", "1m30s", "1h2m3s"
// or "1:02:03". It returns 0 for anything else.
func parseTimestamp(v string) int {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return 0
	}
	if strings.Contains(v, ":") {
		total := 0
		for _, part := range strings.Split(v, ":") {
			n, err := strconv.Atoi(part)
			if err != nil || n < 0 {
				return 0
			}
			total = total*60 + n
		}
		return total
	}
	total, num := 0, -1
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= '0' && c <= '9' {
			if num < 0 {
				num = 0
			}
			num = num*10 + int(c-'0')
			if num > 1e7 {
				return 0
			}
			continue
		}
		if num < 0 {
			return 0
		}
		switch c {
		case 'h':
			total += num * 3600
		case 'm':
			total += num * 60
		case 's':
			total += num
		default:
			return 0
		}
		num = -1
	}
	if num >= 0 {
		total += num // a bare trailing number counts as seconds: "1m30"
	}
	return total
}

// xStatus recognises a status (post) URL on x.com (host after aliasing) and
// returns the screen name as written and the numeric status id. Accepted
// paths: /USER/status/ID, /USER/statuses/ID, /i/web/status/ID, each with an
// optional trailing slash or /photo/N or /video/N; and the old
// "#!/USER/status/ID" fragment form on the root path.
func xStatus(host, p, frag string) (user, id string, ok bool) {
	if host != "x.com" {
		return "", "", false
	}
	if p == "/" && strings.HasPrefix(frag, "!/") {
		p = frag[1:]
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
	}
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if len(segs) > 0 && segs[len(segs)-1] == "" {
		segs = segs[:len(segs)-1]
	}
	if len(segs) >= 4 && segs[0] == "i" && segs[1] == "web" && segs[2] == "status" {
		user, id, segs = "i", segs[3], segs[4:]
	} else if len(segs) >= 3 && (segs[1] == "status" || segs[1] == "statuses") && validXUser(segs[0]) {
		user, id, segs = segs[0], segs[2], segs[3:]
	} else {
		return "", "", false
	}
	if !allDigits(id) {
		return "", "", false
	}
	switch {
	case len(segs) == 0:
	case len(segs) == 2 && (segs[0] == "photo" || segs[0] == "video") && allDigits(segs[1]):
	default:
		return "", "", false
	}
	return user, id, true
}

// validXUser reports whether s can be an X screen name (1-15 letters, digits
// or '_').
func validXUser(s string) bool {
	if len(s) == 0 || len(s) > 15 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 25 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
