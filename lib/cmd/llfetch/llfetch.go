// Package llfetch is the ll-fetch command: it downloads what records point at.
//
// Reads: URLs or local paths as arguments, or, when there are none, stdin as
// plain lines (a URL or path each) or NDJSON records (from ll-save, or
// ll-find --stale with fetch.etag/fetch.last_modified for a conditional GET).
// Writes: each record, in input order, with fetch (final_url, status,
// content_type, charset, fetched_at, etag, last_modified, bytes, attempts,
// not_modified, source) and the body (body for text, body_base64 for binary);
// a record that fails keeps going with an error object. Records that
// already carry an error pass through untouched.
// Touches: the network (with --public-only, public addresses only) and
// the local files the user allowed (arguments, --allow-files; see
// docs/security.md); never the database.
package llfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/fetch"
	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/source"
	"github.com/linkledger/linkledger/lib/source/xpost"
	"github.com/linkledger/linkledger/lib/source/youtube"
)

const prog = "ll-fetch"

const description = `ll-fetch downloads each record's URL (http, https, file:// or a local path)
and adds what it got: "fetch" (final_url, status, content_type, charset,
fetched_at, etag, last_modified, bytes, attempts, not_modified, source) and
the body. Text (text/*, HTML, XML, JSON, Markdown) is decoded to UTF-8 in
"body"; anything else (PDF, images) is base64 in "body_base64". ll-parse
turns bodies into text and drops them; ll-fetch never writes bodies to a
terminal unless --jq is given.

Records come out in input order, --concurrency at a time, at most --per-host
requests in flight to one host, request starts to one host at least
--host-interval apart. Timeouts, connection errors, 429 and 5xx are retried
with exponential backoff and full jitter (or the server's Retry-After when
it is at most 60s; a longer one is not retried early: the record fails at
once and error.retry_after says when to come back, which ll-index keeps as
the item's next retry). A record that still fails goes on with an error
object {stage: "fetch", code, message, retryable, http_status, retry_after}. A record carrying
fetch.etag or fetch.last_modified is fetched conditionally; 304 gives
fetch.not_modified: true and no body. See docs/fetch.md.

Stdin records are untrusted (docs/security.md). A local path or file://
URL given as an argument is read; one in a stdin record only under
--allow-files (or LINKLEDGER_ALLOW_FILES), else it fails with
file_not_allowed. Only regular files are read (a FIFO or device fails at
once). A record fetches only its own item: its id must be the id of its
canonical_url, and its address must canonicalize to it (else bad_input).
--public-only (LINKLEDGER_PUBLIC_ONLY=1) refuses loopback, private and
link-local addresses, redirects included (blocked_address).

YouTube and X records are not fetched as pages: ll-fetch asks their own
endpoints (YouTube: watch page, player API, caption track; X: syndication,
then an FxTwitter-style API, then oEmbed) and stores one JSON bundle as the
body, which ll-parse reads. --youtube-base and --x-*-base point them
elsewhere, --lang picks the transcript language. See docs/sources.md.

EXAMPLES:
   ll-fetch https://example.com/post --jq '.fetch'
   ll-fetch ./paper.pdf --jq '{type: .fetch.content_type, bytes: .fetch.bytes}'
   ll-save https://example.com/post | ll-fetch | ll-parse | ll-index
   cat urls.txt | ll-fetch --concurrency 8 --per-host 1 | ll-parse
   ll-find --stale | ll-fetch --allow-files ~/papers | ll-index
   ll-fetch --public-only < agent-links.ndjson | ll-parse`

// Command returns the ll-fetch command.
func Command(env cli.Env) *ucli.Command {
	cmd := &ucli.Command{
		Name:        prog,
		Usage:       "download the pages and files records point at",
		UsageText:   "ll-fetch [options] [URL|PATH ...]",
		Description: description,
		Flags:       flags(),
	}
	cmd.Action = func(ctx context.Context, c *ucli.Command) error { return run(ctx, c, env) }
	cli.Prepare(cmd, env)
	return cmd
}

// Main runs ll-fetch as a process.
func Main() int {
	env := cli.OSEnv()
	return cli.Main(Command(env), env, os.Args)
}

func flags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Value: fetch.DefaultConcurrency, Usage: "records fetched at once"},
		&ucli.IntFlag{Name: "per-host", Value: fetch.DefaultPerHost, Usage: "requests in flight to one host"},
		&ucli.DurationFlag{Name: "host-interval", Value: fetch.DefaultHostInterval, Usage: "minimum time between request starts to one host (0 for none)"},
		&ucli.DurationFlag{Name: "timeout", Value: fetch.DefaultTimeout, Usage: "total time of one attempt: connect, redirects and body"},
		&ucli.DurationFlag{Name: "connect-timeout", Value: fetch.DefaultConnectTimeout, Usage: "time to connect (TCP and TLS)"},
		&ucli.StringFlag{Name: "max-bytes", Value: "25MiB", Usage: "body size cap after decoding (`SIZE`: bytes, or with k, KiB, MB, MiB, GB, GiB)"},
		&ucli.IntFlag{Name: "max-attempts", Value: fetch.DefaultMaxAttempts, Usage: "attempts per record, the first included"},
		&ucli.IntFlag{Name: "base-backoff-ms", Value: int(fetch.DefaultBaseBackoff / time.Millisecond), Usage: "backoff ceiling before the first retry, doubling per retry (cap 30s)"},
		&ucli.StringFlag{Name: "user-agent", Usage: "User-Agent header (default: linkledger/VERSION (+https://github.com/linkledger/linkledger))"},
		&ucli.StringFlag{Name: "rules", Usage: "extra canonicalization rules `FILE` for bare URL input (JSON, see docs/canonicalization.md)", Sources: ucli.EnvVars("LINKLEDGER_RULES")},
		// The trust boundary (docs/security.md).
		&ucli.StringSliceFlag{Name: "allow-files", Usage: "let stdin records read local files under `PATH` (a folder or a file; repeatable; also LINKLEDGER_ALLOW_FILES, a list joined by ':')"},
		&ucli.StringSliceFlag{Name: "allow-files-from", Usage: "read more --allow-files paths from `FILE`, one per line (repeatable)"},
		&ucli.BoolFlag{Name: "public-only", Usage: "refuse loopback, private, link-local and other non-public addresses, redirects included (also LINKLEDGER_PUBLIC_ONLY=1)"},
		// Source endpoints (docs/sources.md); tests point them at a local server.
		&ucli.StringFlag{Name: "lang", Value: "en,orig", Usage: "YouTube transcript `LANGS`, best first, comma-separated; orig is the video's own language", Sources: ucli.EnvVars("LINKLEDGER_LANG")},
		&ucli.StringFlag{Name: "youtube-base", Value: youtube.DefaultBaseURL, Usage: "YouTube `URL` (watch page, player API, caption tracks)", Sources: ucli.EnvVars("LINKLEDGER_YOUTUBE_BASE")},
		&ucli.StringFlag{Name: "x-syndication-base", Value: xpost.DefaultSyndicationBase, Usage: "X syndication `URL` (tweet-result), tried first", Sources: ucli.EnvVars("LINKLEDGER_X_SYNDICATION_BASE")},
		&ucli.StringFlag{Name: "x-fx-base", Value: xpost.DefaultFxBase, Usage: "FxTwitter-style API `URL`, tried second", Sources: ucli.EnvVars("LINKLEDGER_X_FX_BASE")},
		&ucli.StringFlag{Name: "x-oembed-base", Value: xpost.DefaultOEmbedBase, Usage: "X oEmbed `URL`, tried last", Sources: ucli.EnvVars("LINKLEDGER_X_OEMBED_BASE")},
	}
}

// sourceOptions reads the source endpoint flags.
func sourceOptions(c *ucli.Command) (source.Options, error) {
	o := source.Options{
		YouTubeBase:      c.String("youtube-base"),
		XSyndicationBase: c.String("x-syndication-base"),
		XFxBase:          c.String("x-fx-base"),
		XOEmbedBase:      c.String("x-oembed-base"),
	}
	for _, name := range []string{"youtube-base", "x-syndication-base", "x-fx-base", "x-oembed-base"} {
		u, err := url.Parse(c.String(name))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, cli.Usage("--%s %q: want an http or https URL", name, c.String(name))
		}
	}
	for _, l := range strings.Split(c.String("lang"), ",") {
		if l = strings.TrimSpace(l); l != "" {
			o.Langs = append(o.Langs, l)
		}
	}
	if len(o.Langs) == 0 {
		return o, cli.Usage("--lang %q: want at least one language code", c.String("lang"))
	}
	return o, nil
}

// options reads the flags into fetch.Options, failing with a usage error
// (exit 2) that names the flag.
func options(c *ucli.Command, env cli.Env) (fetch.Options, error) {
	var o fetch.Options
	positive := func(name string) (int, error) {
		v := c.Int(name)
		if v < 1 {
			return 0, cli.Usage("--%s %d: must be at least 1", name, v)
		}
		return v, nil
	}
	var err error
	if o.Concurrency, err = positive("concurrency"); err != nil {
		return o, err
	}
	if o.PerHost, err = positive("per-host"); err != nil {
		return o, err
	}
	if o.MaxAttempts, err = positive("max-attempts"); err != nil {
		return o, err
	}
	if o.Concurrency > 1024 {
		return o, cli.Usage("--concurrency %d: at most 1024", o.Concurrency)
	}
	for _, name := range []string{"timeout", "connect-timeout"} {
		if d := c.Duration(name); d <= 0 {
			return o, cli.Usage("--%s %s: must be more than 0", name, d)
		}
	}
	o.Timeout, o.ConnectTimeout = c.Duration("timeout"), c.Duration("connect-timeout")
	o.HostInterval = c.Duration("host-interval")
	if o.HostInterval < 0 {
		return o, cli.Usage("--host-interval %s: must not be negative", o.HostInterval)
	}
	if o.HostInterval == 0 {
		o.HostInterval = -1 // fetch.Options: negative means none, zero the default
	}
	ms := c.Int("base-backoff-ms")
	if ms < 1 {
		return o, cli.Usage("--base-backoff-ms %d: must be at least 1", ms)
	}
	o.BaseBackoff = time.Duration(ms) * time.Millisecond
	if o.MaxBytes, err = cli.ParseSize(c.String("max-bytes")); err != nil {
		return o, cli.Usage("--max-bytes %q: %v", c.String("max-bytes"), err)
	}
	o.UserAgent = c.String("user-agent")
	if o.UserAgent == "" {
		o.UserAgent = "linkledger/" + cli.Version + " (+https://github.com/linkledger/linkledger)"
	}
	o.Rules = canon.DefaultRules()
	if f := c.String("rules"); f != "" {
		if err := o.Rules.MergeFile(f); err != nil {
			return o, cli.Usage("--rules: %v", err)
		}
	}
	o.Cwd, _ = env.Getwd()
	o.Home = env.Getenv("HOME")
	o.Proxy = http.ProxyFromEnvironment
	if o.AllowFiles, err = allowFiles(c, env, o.Cwd, o.Home); err != nil {
		return o, err
	}
	if o.PublicOnly, err = publicOnly(c, env); err != nil {
		return o, err
	}
	so, err := sourceOptions(c)
	if err != nil {
		return o, err
	}
	o.Sources = source.Fetchers(so)
	return o, nil
}

// allowFiles gathers the local paths reads may touch: every argument that
// is a local path (the user named it), --allow-files, --allow-files-from
// and LINKLEDGER_ALLOW_FILES. Stdin records never add to it.
func allowFiles(c *ucli.Command, env cli.Env, cwd, home string) ([]string, error) {
	var out []string
	for _, a := range c.Args().Slice() {
		u, err := canon.FromInput(a, cwd, home)
		if err != nil || !strings.HasPrefix(strings.ToLower(u), "file:") {
			continue // not a file; the record will say why when it is bad
		}
		if pu, err := url.Parse(u); err == nil && pu.Path != "" {
			out = append(out, filepath.FromSlash(pu.Path))
		}
	}
	abs := func(from, p string) (string, error) {
		p = strings.TrimSpace(p)
		switch {
		case p == "":
			return "", nil
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				return "", cli.Usage("%s %q: HOME is not set", from, p)
			}
			p = filepath.Join(home, p[1:])
		case !filepath.IsAbs(p):
			if cwd == "" {
				return "", cli.Usage("%s %q: want an absolute path (no working directory)", from, p)
			}
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p), nil
	}
	add := func(from string, paths []string) error {
		for _, p := range paths {
			a, err := abs(from, p)
			if err != nil {
				return err
			}
			if a != "" {
				out = append(out, a)
			}
		}
		return nil
	}
	if err := add("--allow-files", c.StringSlice("allow-files")); err != nil {
		return nil, err
	}
	if err := add("LINKLEDGER_ALLOW_FILES", filepath.SplitList(env.Getenv("LINKLEDGER_ALLOW_FILES"))); err != nil {
		return nil, err
	}
	for _, f := range c.StringSlice("allow-files-from") {
		p, err := abs("--allow-files-from", f)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, cli.Usage("--allow-files-from: %v", err)
		}
		var lines []string
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				lines = append(lines, l)
			}
		}
		if err := add("--allow-files-from "+f, lines); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// publicOnly reads --public-only or LINKLEDGER_PUBLIC_ONLY (cli.PublicOnly).
func publicOnly(c *ucli.Command, env cli.Env) (bool, error) { return cli.PublicOnly(c, env) }

func run(ctx context.Context, c *ucli.Command, env cli.Env) error {
	opts, err := options(c, env)
	if err != nil {
		return err
	}
	out, err := cli.OutputOn(c, env)
	if err != nil {
		return err
	}
	progress := out.Progress(c.Root().Name)
	diag := cli.Diag{Prog: c.Root().Name, W: env.Stderr, Verbose: c.Bool("verbose"), Quiet: c.Bool("quiet"), Progress: progress}
	// Bodies are for the next filter, not for eyes.
	stripBodies := cli.IsTerminal(env.Stdout) && c.String("jq") == ""
	hinted := false

	in := inputs(c.Args().Slice(), cli.Stdin(ctx, env, diag), func(le *ndjson.LineError) {
		diag.Printf("line %d: %v", le.Line, le.Err)
	})
	f := fetch.New(opts)
	err = f.Run(ctx, in.next, func(rec *record.Record) error {
		pos := in.pop()
		if rec.Error != nil && rec.Error.Stage == record.StageFetch && !ndjson.IsLineError(rec.Error) {
			if pos.line > 0 && rec.Error.Line == 0 && inputError(rec.Error.Code) {
				rec.Error.Line = pos.line
			}
			ref := rec.Ref()
			if ref == "" {
				ref = pos.String()
			}
			diag.Itemf("%s: %s: %s", ref, rec.Error.Code, record.Clean(rec.Error.Message))
		}
		if stripBodies && (rec.Body != nil || rec.BodyBase64 != nil) {
			rec.Body, rec.BodyBase64 = nil, nil
			if !hinted && !out.IsHuman() { // the human form never shows bodies
				hinted = true
				diag.Printf("stdout is a terminal: bodies omitted (pipe into ll-parse or use --jq)")
			}
		}
		progress.Tick(rec.Error != nil)
		return out.Emit(rec)
	})
	progress.Done()
	switch {
	case err == nil:
	case ndjson.IsClosedPipe(err):
		return nil
	default:
		return err
	}
	return out.Finish()
}

// input is the record source of Run: the arguments when there are any,
// else stdin. A malformed stdin line becomes an error record (with its line
// number) in its place in the stream, and is reported with bad. It keeps
// the position ("line 3", "argument 2") of each record read and not yet
// emitted, so diagnostics can name records that have no URL.
type input struct {
	next func() (*record.Record, error)

	mu  sync.Mutex
	pos []position // FIFO; Run emits in input order
}

// position is where a record came from: stdin line N or argument N.
type position struct{ line, arg int }

func (p position) String() string {
	switch {
	case p.line > 0:
		return fmt.Sprintf("line %d", p.line)
	case p.arg > 0:
		return fmt.Sprintf("argument %d", p.arg)
	}
	return ""
}

// inputError reports whether an error code is about the input record
// itself (what it asks for), so the error record gets its line number.
func inputError(code string) bool {
	switch code {
	case record.CodeBadInput, record.CodeBadURL, record.CodeUnsupported, record.CodeFileNotAllowed:
		return true
	}
	return false
}

func (in *input) push(p position) {
	in.mu.Lock()
	in.pos = append(in.pos, p)
	in.mu.Unlock()
}

func (in *input) pop() position {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(in.pos) == 0 {
		return position{}
	}
	p := in.pos[0]
	in.pos = in.pos[1:]
	return p
}

func inputs(args []string, stdin io.Reader, bad func(*ndjson.LineError)) *input {
	in := &input{}
	if len(args) > 0 {
		i := 0
		in.next = func() (*record.Record, error) {
			if i == len(args) {
				return nil, io.EOF
			}
			i++
			in.push(position{arg: i})
			return &record.Record{URL: args[i-1]}, nil
		}
		return in
	}
	rd := ndjson.NewReader(stdin)
	in.next = func() (*record.Record, error) {
		rec, line, err := rd.Next()
		var le *ndjson.LineError
		if errors.As(err, &le) {
			bad(le)
			in.push(position{line: le.Line})
			return le.Record(record.StageFetch), nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		if err == nil {
			in.push(position{line: line})
		}
		return rec, err
	}
	return in
}
