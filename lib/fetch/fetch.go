// Package fetch downloads what a record points at (an http(s) URL, a
// file:// URL or a local path) and adds it to the record: what the response
// was (rec.Fetch) and the body, decoded to UTF-8 text in rec.Body for text
// types or base64 in rec.BodyBase64 for everything else.
//
// It is stateless (it never opens the database) and streams: Run fetches
// records concurrently, politely (a cap on requests in flight per host and a
// minimum interval between request starts to the same host), and hands them
// back in input order. Failures are typed record errors on the record, never
// dropped. The policy numbers are documented in docs/fetch.md.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/canon"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/sniff"
)

// Defaults of Options; a zero field takes its default.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
	DefaultMaxRedirects   = 10
	DefaultMaxBytes       = 25 << 20
	DefaultMaxAttempts    = 3
	DefaultBaseBackoff    = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultMaxRetryAfter  = 60 * time.Second
	DefaultConcurrency    = 4
	DefaultPerHost        = 2
	DefaultHostInterval   = 250 * time.Millisecond
)

// Options configures a Fetcher. The command layer fills it from flags; the
// zero value of a field means its default (Default* constants), except
// HostInterval, where a negative value means no interval.
type Options struct {
	ConnectTimeout time.Duration // dial + TLS handshake
	Timeout        time.Duration // whole attempt: connect, redirects, body
	MaxRedirects   int
	MaxBytes       int64 // body size cap, after content decoding
	UserAgent      string

	MaxAttempts   int           // attempts per record, first one included
	BaseBackoff   time.Duration // first backoff ceiling; doubles per retry
	MaxBackoff    time.Duration // backoff ceiling cap
	MaxRetryAfter time.Duration // a server's Retry-After is capped to this

	Concurrency  int           // records fetched at once
	PerHost      int           // requests in flight per host
	HostInterval time.Duration // minimum time between request starts per host

	// Cwd and Home resolve relative paths and ~ in bare-path input.
	Cwd, Home string

	// AllowFiles are the absolute paths of the files and folders local
	// reads may touch (a folder allows everything under it, symlinks
	// resolved). Empty means no local file is read: a record alone never
	// grants file access (docs/security.md).
	AllowFiles []string

	// PublicOnly refuses connections to loopback, private, link-local,
	// CGNAT, multicast and other non-public addresses, checked on the
	// address really dialled, for every request and redirect hop (and
	// turns proxies off, since the proxy would choose the address).
	PublicOnly bool

	// Rules canonicalize bare input (records without canonical_url); nil
	// means the built-in rules.
	Rules *canon.Rules

	// Sources fetch records of a source type (keyed by record.Source*) with
	// that source's own endpoints instead of a plain GET.
	Sources map[string]SourceFunc

	// Proxy chooses the proxy of a request (for example
	// http.ProxyFromEnvironment, set by the command layer); nil means none.
	Proxy func(*http.Request) (*url.URL, error)

	// Sleep waits for d or until ctx ends; tests inject it to observe
	// backoff without waiting. Now and Rand likewise (Rand in [0,1)).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	Rand  func() float64
}

func (o *Options) setDefaults() {
	orDefault(&o.ConnectTimeout, DefaultConnectTimeout)
	orDefault(&o.Timeout, DefaultTimeout)
	orDefault(&o.BaseBackoff, DefaultBaseBackoff)
	orDefault(&o.MaxBackoff, DefaultMaxBackoff)
	orDefault(&o.MaxRetryAfter, DefaultMaxRetryAfter)
	if o.HostInterval == 0 {
		o.HostInterval = DefaultHostInterval
	}
	orDefault(&o.MaxRedirects, DefaultMaxRedirects)
	orDefault(&o.MaxBytes, DefaultMaxBytes)
	orDefault(&o.MaxAttempts, DefaultMaxAttempts)
	orDefault(&o.Concurrency, DefaultConcurrency)
	orDefault(&o.PerHost, DefaultPerHost)
	if o.UserAgent == "" {
		o.UserAgent = "linkledger (+https://github.com/linkledger/linkledger)"
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Rand == nil {
		o.Rand = rand.Float64
	}
	if o.Rules == nil {
		o.Rules = canon.DefaultRules()
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Fetcher fetches records. It is safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client // plain GETs: our redirect policy, no transparent gzip
	source *http.Client // for SourceFuncs: same, plus the body size cap
	hosts  *hostLimiter
	files  fileRoots
	// blocked decides, with PublicOnly, whether an address may be dialled;
	// tests replace it to refuse one loopback server and not another.
	blocked func(netip.AddrPort) bool
}

// New returns a Fetcher with opts (zero fields take their defaults).
func New(opts Options) *Fetcher {
	opts.setDefaults()
	f := &Fetcher{opts: opts, hosts: newHostLimiter(opts.PerHost, opts.HostInterval, opts.Now, opts.Sleep), files: newFileRoots(opts.AllowFiles)}
	f.blocked = func(ap netip.AddrPort) bool { return !PublicAddr(ap.Addr()) }
	tr := newTransport(opts, f.dialControl)
	f.client = &http.Client{Transport: tr, CheckRedirect: f.checkRedirect}
	f.source = &http.Client{Transport: cappedTransport{tr, opts.MaxBytes}, CheckRedirect: f.checkRedirect}
	return f
}

// Options returns the options in effect, defaults filled in.
func (f *Fetcher) Options() Options { return f.opts }

// Fetch fetches one record in place and returns it. A record that already
// carries an error is returned untouched; a failure sets rec.Error (stage
// fetch) and still records attempts and status in rec.Fetch. Fetch returns
// a non-nil error only when ctx ended; the record is then unfinished.
func (f *Fetcher) Fetch(ctx context.Context, rec *record.Record) (*record.Record, error) {
	if rec.Error != nil {
		return rec, nil
	}
	// original_url (set by ll-save) is the absolute form of what was saved,
	// tracking parameters and all; url may be a path relative to where
	// ll-save ran.
	target := rec.OriginalURL
	if target == "" {
		target = rec.URL
	}
	if target == "" {
		target = rec.CanonicalURL
	}
	if target == "" {
		rec.Error = &record.Error{Stage: record.StageFetch, Code: record.CodeBadInput, Message: "record has no url"}
		return rec, nil
	}
	abs, err := canon.FromInput(target, f.opts.Cwd, f.opts.Home)
	if err != nil {
		rec.Error = canonError(err)
		return rec, nil
	}
	if err := f.identify(rec, abs); err != nil {
		rec.Error = canonError(err)
		return rec, nil
	}
	if err := f.ownTarget(rec, abs); err != nil {
		rec.Error = err
		return rec, nil
	}
	prev := rec.Fetch
	var res *result
	if strings.HasPrefix(strings.ToLower(abs), "file:") {
		fctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
		res = f.readFile(fctx, abs)
		cancel()
	} else if fn := f.opts.Sources[rec.SourceType]; fn != nil {
		res, err = f.retry(ctx, abs, func(actx context.Context) *result { return f.sourceOnce(actx, fn, rec, abs) })
	} else {
		res, err = f.retry(ctx, abs, func(actx context.Context) *result { return f.getOnce(actx, abs, prev) })
	}
	if err != nil {
		return rec, err
	}
	f.apply(rec, res, prev)
	return rec, nil
}

// identify fills id, canonical_url and source_type when the record has no
// canonical URL yet (bare URL or path input) the way ll-save does: url stays
// as given, original_url gets its absolute form (a relative path becomes a
// file:// URL later stages can find).
func (f *Fetcher) identify(rec *record.Record, abs string) error {
	if rec.CanonicalURL != "" && rec.ID != "" && rec.SourceType != "" {
		return nil
	}
	c, err := f.opts.Rules.Canonicalize(abs)
	if err != nil {
		return err
	}
	if rec.CanonicalURL == "" {
		rec.CanonicalURL = c.URL
		if rec.OriginalURL == "" {
			rec.OriginalURL = c.Original
		}
	}
	if rec.ID == "" {
		rec.ID = record.ItemID(rec.CanonicalURL)
	}
	if rec.SourceType == "" {
		rec.SourceType = c.SourceType
	}
	return nil
}

// ownTarget checks that a record fetches its own item: its id is the id of
// its canonical_url, and the address fetched (abs) canonicalizes to that
// canonical URL. Without it a record could carry another item's id or
// canonical_url with any address, and the next stage would replace that
// item's content with whatever the address gave.
func (f *Fetcher) ownTarget(rec *record.Record, abs string) *record.Error {
	bad := func(format string, args ...any) *record.Error {
		return &record.Error{Stage: record.StageFetch, Code: record.CodeBadInput, Message: fmt.Sprintf(format, args...)}
	}
	if want := record.ItemID(rec.CanonicalURL); rec.ID != want {
		return bad("id %s is not the id of canonical_url %s (%s)", rec.ID, rec.CanonicalURL, want)
	}
	c, err := f.opts.Rules.Canonicalize(abs)
	if err != nil {
		return canonError(err)
	}
	if c.URL == rec.CanonicalURL {
		return nil
	}
	// Rules may have changed since the item was saved (a tracking
	// parameter added to the list): both forms canonical today is enough.
	if again, err := f.opts.Rules.Canonicalize(rec.CanonicalURL); err == nil && again.URL == c.URL {
		return nil
	}
	shown := abs
	if u, err := url.Parse(abs); err == nil {
		shown = redact(u) // no credentials in messages
	}
	return bad("%s does not canonicalize to the record's canonical_url %s (it gives %s)", shown, rec.CanonicalURL, c.URL)
}

func canonError(err error) *record.Error {
	code := record.CodeBadURL
	if errors.Is(err, canon.ErrUnsupportedScheme) {
		code = record.CodeUnsupported
	}
	return &record.Error{Stage: record.StageFetch, Code: code, Message: err.Error()}
}

// result is the outcome of one attempt (or of the last one).
type result struct {
	finalURL     string
	status       int
	contentType  string // full header value, parameters included
	etag         string
	lastModified string
	body         []byte
	notModified  bool
	source       string
	attempts     int
	err          *record.Error
	retryAfter   time.Duration // from a Retry-After header, 0 when none
}

// apply writes the result into the record.
func (f *Fetcher) apply(rec *record.Record, res *result, prev *record.FetchInfo) {
	fi := &record.FetchInfo{
		FinalURL:     res.finalURL,
		Status:       res.status,
		FetchedAt:    record.FormatTime(f.opts.Now()),
		ETag:         res.etag,
		LastModified: res.lastModified,
		Attempts:     res.attempts,
		NotModified:  res.notModified,
		Source:       res.source,
	}
	rec.Fetch = fi
	rec.Body, rec.BodyBase64 = nil, nil
	if res.err != nil {
		if res.err.Stage == "" {
			res.err.Stage = record.StageFetch
		}
		rec.Error = res.err
		return
	}
	if res.notModified {
		// Nothing new: keep the validators we had unless the server sent new ones.
		if prev != nil {
			if fi.ETag == "" {
				fi.ETag = prev.ETag
			}
			if fi.LastModified == "" {
				fi.LastModified = prev.LastModified
			}
		}
		return
	}
	ct := res.contentType
	if mediaType(ct) == "" {
		ct = http.DetectContentType(res.body)
	}
	fi.ContentType = mediaType(ct)
	fi.Bytes = int64(len(res.body))
	mt := fi.ContentType
	if real := whatBody(fi.ContentType, res.body); real != "" {
		fi.SniffedType = real
		mt, ct = real, real // the declared charset was for the declared type
	}
	if isText(mt) {
		text, cs := decodeText(res.body, ct, mt)
		if junk, why := sniff.Junk(text); junk {
			declared := "served as " + fi.ContentType
			if res.source == "file" {
				declared = "typed " + fi.ContentType + " by its extension"
			}
			rec.Error = fail(record.CodeBadContent, false, "%s but the body is not text (%s in the first bytes); not indexed", declared, why)
			return
		}
		fi.Charset = cs
		rec.Body = &text
	} else {
		b64 := encodeBase64(res.body)
		rec.BodyBase64 = &b64
	}
	rec.SourceType = correctSourceType(rec.SourceType, mt)
}

// whatBody reconciles a declared media type with the body's first bytes
// and returns the type the body really is when it is not the declared one,
// "" when the declared type stands:
//
//   - a PDF is a PDF whatever it was served as (text/html, text/plain,
//     application/octet-stream, ...);
//   - another known binary format (PNG, ZIP, gzip, an executable...) wins
//     over a text type or application/octet-stream, so it is carried in
//     body_base64 and never decoded as text;
//   - HTML served as a PDF or as application/octet-stream (a login page
//     in place of a paper) is HTML.
//
// Anything else keeps its declared type; a body declared as text that is
// not text is refused by the caller (sniff.Junk).
func whatBody(declared string, body []byte) string {
	bin := sniff.Binary(body)
	switch {
	case bin == sniff.PDF:
		if isPDFType(declared) {
			return ""
		}
		return bin
	case bin != "":
		if bin != declared && (isText(declared) || isOctetStream(declared)) {
			return bin
		}
		return ""
	case isPDFType(declared) || isOctetStream(declared):
		if mt := mediaType(http.DetectContentType(body)); mt == "text/html" {
			return mt
		}
	}
	return ""
}

func isPDFType(mt string) bool { return mt == sniff.PDF || mt == "application/x-pdf" }

func isOctetStream(mt string) bool {
	return mt == "application/octet-stream" || mt == "binary/octet-stream" || mt == "application/unknown"
}

// correctSourceType corrects a URL-derived source type by the content type
// the server declared. Only the generic types are corrected: a YouTube or X
// item stays one whatever its page is served as.
func correctSourceType(st, mt string) string {
	switch st {
	case record.SourceArticle, record.SourceText, record.SourcePDF:
	default:
		return st
	}
	switch {
	case mt == "application/pdf":
		return record.SourcePDF
	case mt == "text/plain", mt == "text/markdown", mt == "text/x-markdown":
		return record.SourceText
	case strings.Contains(mt, "html"):
		return record.SourceArticle
	}
	return st
}

// fail builds a fetch error.
func fail(code string, retryable bool, format string, args ...any) *record.Error {
	return &record.Error{Stage: record.StageFetch, Code: code, Message: fmt.Sprintf(format, args...), Retryable: retryable}
}

// orDefault sets *p to v when it is zero or less (an option not given).
func orDefault[T int | int64 | time.Duration](p *T, v T) {
	if *p <= 0 {
		*p = v
	}
}
