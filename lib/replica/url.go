// Package replica runs Litestream (https://litestream.io) beside a ledger
// as a child process: it copies every committed change of one SQLite file
// to a replica (a file:// folder, sftp:// or s3://) and restores a
// consistent ledger from one. Litestream's Go library wants another SQLite
// driver than the store's, so it runs as its own process with a
// configuration this package writes (docs/several-machines.md).
//
// Secrets never reach the configuration: S3 keys stay in the environment
// Litestream inherits (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), and sftp
// signs in with a key file named by path, never a password.
package replica

import (
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Target is a checked replica URL.
type Target struct {
	Scheme string // file, sftp or s3
	// URL is the replica URL as Litestream reads it (sftp without user
	// info's password; s3 with its query: endpoint, region,
	// force-path-style).
	URL string
	// Path is the folder of a file:// replica.
	Path string
}

// BadURLError says why a replica URL is refused.
type BadURLError struct {
	URL    string
	Reason string
}

func (e *BadURLError) Error() string {
	return fmt.Sprintf("replica URL %q: %s", e.URL, e.Reason)
}

// s3Query is the query a s3:// URL may carry (Litestream reads them).
var s3Query = map[string]bool{"endpoint": true, "region": true, "force-path-style": true, "forcePathStyle": true, "skip-verify": true, "skipVerify": true}

// ParseURL checks a replica URL: file:///absolute/folder,
// sftp://user@host[:port]/path (no password: sign in with a key) or
// s3://bucket/path[?endpoint=https://host&region=R] for S3 and S3-compatible
// stores. Anything else is refused with the reason.
func ParseURL(s string) (Target, error) {
	bad := func(format string, a ...any) (Target, error) {
		return Target{}, &BadURLError{URL: redact(s), Reason: fmt.Sprintf(format, a...)}
	}
	if s == "" {
		return bad("empty")
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("not a URL")
	}
	if u.Fragment != "" {
		return bad("a replica URL has no #fragment")
	}
	switch u.Scheme {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return bad("a file:// replica is a folder on this machine: file:///absolute/folder (three slashes)")
		}
		if u.RawQuery != "" || u.User != nil {
			return bad("a file:// replica takes no user or query")
		}
		p := path.Clean(u.Path)
		if !strings.HasPrefix(u.Path, "/") || p == "/" {
			return bad("want a folder: file:///absolute/folder")
		}
		return Target{Scheme: "file", URL: "file://" + p, Path: p}, nil
	case "sftp":
		if u.Hostname() == "" {
			return bad("want a host: sftp://user@host[:port]/path")
		}
		if u.User == nil || u.User.Username() == "" {
			return bad("want a user: sftp://user@host[:port]/path")
		}
		if _, ok := u.User.Password(); ok {
			return bad("a password in the URL would be written to disk and seen in process lists: sign in with a key (LINKLEDGER_REPLICA_SFTP_KEY)")
		}
		if u.RawQuery != "" {
			return bad("an sftp:// replica takes no query")
		}
		if p := path.Clean(u.Path); !strings.HasPrefix(u.Path, "/") || p == "/" {
			return bad("want a folder on the host: sftp://user@host/folder")
		}
		return Target{Scheme: "sftp", URL: u.String()}, nil
	case "s3":
		if u.Host == "" {
			return bad("want a bucket: s3://bucket/path")
		}
		if u.User != nil {
			return bad("keys never go in the URL: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
		}
		for k := range u.Query() {
			if !s3Query[k] {
				return bad("unknown query parameter %q (want endpoint, region, force-path-style)", k)
			}
		}
		if e := u.Query().Get("endpoint"); e != "" {
			eu, err := url.Parse(e)
			if err != nil || (eu.Scheme != "https" && eu.Scheme != "http") || eu.Host == "" {
				return bad("endpoint %q: want https://host[:port]", e)
			}
		}
		return Target{Scheme: "s3", URL: u.String()}, nil
	case "":
		return bad("no scheme: want file:///folder, sftp://user@host/path or s3://bucket/path")
	default:
		return bad("scheme %q is not one linkledger runs Litestream with (file, sftp, s3)", u.Scheme)
	}
}

// redact drops a password from a URL before it is shown.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
		return u.String()
	}
	return s
}
