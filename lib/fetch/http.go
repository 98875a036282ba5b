package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// Sentinel errors of the redirect policy and the size cap.
var (
	errTooManyRedirects = errors.New("too many redirects")
	errBadRedirect      = errors.New("redirect to a non-http(s) URL")
	// ErrTooLarge is returned by reads of a response body past the size cap.
	// A SourceFunc that meets it should return it (wrapped is fine): the
	// record then fails with code too_large.
	ErrTooLarge = errors.New("body over the size cap")
)

func newTransport(o Options, control func(network, address string, c syscall.RawConn) error) *http.Transport {
	d := &net.Dialer{Timeout: o.ConnectTimeout, KeepAlive: 30 * time.Second, Control: control}
	proxy := o.Proxy
	if o.PublicOnly {
		// Through a proxy the guard would only see the proxy's address.
		proxy = nil
	}
	return &http.Transport{
		Proxy:                 proxy,
		DialContext:           loopbackDial(d.DialContext),
		TLSHandshakeTimeout:   o.ConnectTimeout,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   o.PerHost,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
		// We send Accept-Encoding ourselves and decode gzip, brotli and
		// deflate (encoding.go), so the size cap sees decoded bytes.
		DisableCompression: true,
	}
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if s := req.URL.Scheme; s != "http" && s != "https" {
		return fmt.Errorf("%w: %s", errBadRedirect, redact(req.URL))
	}
	if len(via) > f.opts.MaxRedirects {
		return fmt.Errorf("%w: stopped after %d", errTooManyRedirects, f.opts.MaxRedirects)
	}
	return nil
}

// redact drops user info from a URL for messages.
func redact(u *url.URL) string {
	c := *u
	c.User = nil
	return c.String()
}

// getOnce makes one GET of target and reads its body under the size cap.
func (f *Fetcher) getOnce(ctx context.Context, target string, prev *record.FetchInfo) *result {
	res := &result{finalURL: target, source: "http"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		res.err = fail(record.CodeBadURL, false, "%v", err)
		return res
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept-Encoding", "gzip, br")
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
	if prev != nil {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		res.err = classify(ctx, err, f.opts)
		return res
	}
	defer resp.Body.Close()
	res.finalURL = resp.Request.URL.String()
	res.status = resp.StatusCode
	res.etag = resp.Header.Get("ETag")
	res.lastModified = resp.Header.Get("Last-Modified")
	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.notModified = true
		return res
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		retryable := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		res.err = fail(record.CodeHTTPStatus, retryable, "HTTP %s", statusText(resp.StatusCode))
		res.err.HTTPStatus = resp.StatusCode
		if retryable {
			res.retryAfter = retryAfter(resp.Header.Get("Retry-After"), f.opts.Now())
		}
		return res
	}
	res.contentType = resp.Header.Get("Content-Type")
	encs := contentEncodings(resp.Header.Values("Content-Encoding"))
	if len(encs) == 0 && resp.ContentLength > f.opts.MaxBytes {
		res.err = fail(record.CodeTooLarge, false, "body of %d bytes is over the %d byte cap", resp.ContentLength, f.opts.MaxBytes)
		return res
	}
	// wire remembers a failure of the connection itself, so that a body
	// cut by the network stays a (retryable) connection error while bytes
	// that arrived whole but do not decode are bad_encoding.
	wire := &wireReader{r: resp.Body}
	body, err := decoding(wire, encs)
	if err != nil {
		res.err = decodeError(ctx, err, wire, encs, f.opts)
		return res
	}
	data, err := readCapped(body, f.opts.MaxBytes, resp.ContentLength)
	if err != nil {
		res.err = decodeError(ctx, err, wire, encs, f.opts)
		return res
	}
	res.body = data
	return res
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return strconv.Itoa(code) + " " + t
	}
	return strconv.Itoa(code)
}

// readCapped reads r to its end, failing with ErrTooLarge once more than
// max bytes arrived. It never holds more than max+1 bytes, and grows its
// buffer to at most that, whatever the sender claims.
func readCapped(r io.Reader, max, hint int64) ([]byte, error) {
	size := int64(32 << 10)
	if hint > 0 && hint < max {
		size = hint + 1 // +1 so a correct length reads EOF without growing
	}
	if size > max+1 {
		size = max + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > max {
				return nil, fmt.Errorf("%w of %d bytes", ErrTooLarge, max)
			}
			n := int64(cap(buf)) * 2
			if n > max+1 {
				n = max + 1
			}
			nb := make([]byte, len(buf), n)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, fmt.Errorf("%w of %d bytes", ErrTooLarge, max)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readError classifies a failure while reading or decoding a body.
func readError(ctx context.Context, err error, o Options) *record.Error {
	if errors.Is(err, ErrTooLarge) {
		return fail(record.CodeTooLarge, false, "%v", err)
	}
	return classify(ctx, err, o)
}

// classify turns a transport error into a typed fetch error. ctx is the
// attempt's context: its deadline is the total timeout.
func classify(ctx context.Context, err error, o Options) *record.Error {
	var blocked *blockedError
	switch {
	case errors.Is(err, errTooManyRedirects):
		return fail(record.CodeTooManyRedirect, false, "more than %d redirects", o.MaxRedirects)
	case errors.Is(err, errBadRedirect):
		return fail(record.CodeBadRedirect, false, "%v", unwrapURL(err))
	case errors.Is(err, ErrTooLarge):
		return fail(record.CodeTooLarge, false, "%v", unwrapURL(err))
	case errors.As(err, &blocked):
		return fail(record.CodeBlockedAddress, false, "%v", blocked)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fail(record.CodeTimeout, true, "timeout after %s", o.Timeout)
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fail(record.CodeTimeout, true, "connect timeout after %s", o.ConnectTimeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) && strings.Contains(ue.Err.Error(), "unsupported protocol scheme") {
		return fail(record.CodeUnsupported, false, "%v", ue.Err)
	}
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var hostErr x509.HostnameError
	var authErr x509.UnknownAuthorityError
	var invalidErr x509.CertificateInvalidError
	switch {
	case errors.As(err, &certErr), errors.As(err, &hostErr), errors.As(err, &authErr), errors.As(err, &invalidErr):
		// Trying again will meet the same certificate.
		return fail(record.CodeConnection, false, "%v", unwrapURL(err))
	case errors.As(err, &dnsErr):
		return fail(record.CodeConnection, dnsErr.IsTemporary || dnsErr.IsTimeout, "%v", unwrapURL(err))
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fail(record.CodeConnection, true, "%v", unwrapURL(err))
	}
	return fail(record.CodeConnection, true, "%v", unwrapURL(err))
}

// unwrapURL drops the "Get \"url\": " prefix of a *url.Error: the record
// already says which URL it was.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// maxRetryAfter bounds what a server's Retry-After can ask for, so that a
// hostile or broken server cannot park an item for years.
const maxRetryAfter = 24 * time.Hour

// retryAfter parses a Retry-After value (delay in seconds or an HTTP date)
// relative to now, at most 24 hours; 0 when absent or unparsable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > int64(maxRetryAfter/time.Second) {
			secs = int64(maxRetryAfter / time.Second)
		}
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, maxRetryAfter)
		}
	}
	return 0
}

// cappedTransport caps the body of every response it returns: reads past
// max bytes fail with ErrTooLarge. It guards the SourceFuncs' requests,
// which read bodies themselves.
type cappedTransport struct {
	rt  http.RoundTripper
	max int64
}

func (c cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: c.max}
	return resp, nil
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, ErrTooLarge
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, ErrTooLarge
	}
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }

// sourceOnce runs one attempt of a SourceFunc.
func (f *Fetcher) sourceOnce(ctx context.Context, fn SourceFunc, rec *record.Record, target string) *result {
	res := &result{finalURL: target}
	body, ct, src, err := fn(ctx, f.source, rec)
	res.source = src
	if err != nil {
		var re *record.Error
		if errors.As(err, &re) {
			cp := *re
			if cp.Stage == "" {
				cp.Stage = record.StageFetch
			}
			res.err = &cp
			res.status = cp.HTTPStatus
			return res
		}
		res.err = readError(ctx, err, f.opts)
		return res
	}
	if int64(len(body)) > f.opts.MaxBytes {
		res.err = fail(record.CodeTooLarge, false, "body of %d bytes is over the %d byte cap", len(body), f.opts.MaxBytes)
		return res
	}
	res.status = http.StatusOK
	res.body = body
	res.contentType = ct
	return res
}
