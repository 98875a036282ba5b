package remote

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"
)

// The environment of the front command's remote mode (read by the
// command layer, handed here as values).
const (
	EnvURL       = "LINKLEDGER_URL"
	EnvToken     = "LINKLEDGER_TOKEN"
	EnvAllowHTTP = "LINKLEDGER_ALLOW_HTTP"
)

// CheckURL parses the server's base URL. https always; plain http only to
// a loopback host (the token would cross the network in clear) unless
// allowHTTP (a private network such as a tailnet, which encrypts).
// Credentials, a query or a fragment in the URL are refused: the token
// goes in a header, never in a URL.
func CheckURL(raw string, allowHTTP bool) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, usagef("LINKLEDGER_URL is the base URL 'linkledger serve' prints, e.g. https://ledger.example:8443/",
			"%s %q: want an http or https URL", EnvURL, raw)
	}
	if u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, usagef("put the token in LINKLEDGER_TOKEN; LINKLEDGER_URL is scheme, host, port and path only",
			"%s: no credentials, query or fragment in the URL", EnvURL)
	}
	if u.Scheme == "http" && !allowHTTP && !Loopback(u.Hostname()) {
		return nil, usagef("use https, or set LINKLEDGER_ALLOW_HTTP=1 when a private network (a tailnet, a VPN) encrypts the way",
			"%s %s: plain http to a host other than loopback would send the token in clear", EnvURL, u.Redacted())
	}
	return u, nil
}

// Loopback reports whether host is this machine: localhost or a loopback
// address.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Client runs verbs on a server.
type Client struct {
	Base  *url.URL
	Token string
	// HTTP is the client used (nil: one with a timeout a little over
	// the server's and no redirects followed).
	HTTP *http.Client
}

// ServerError is an answer other than 200.
type ServerError struct {
	Status int
	Msg    string
}

func (e *ServerError) Error() string {
	if e.Msg == "" {
		return http.StatusText(e.Status)
	}
	return e.Msg
}

// UnreachableError is a request that got no answer.
type UnreachableError struct {
	URL string
	Err error
	// NotReached: the server was not reached, or the connection was
	// reset before any answer (a refused or timed-out connection, a
	// name that does not resolve, a TLS handshake that timed out or was
	// cut): a write may be queued in the outbox (Queueable). Not set for
	// a certificate refused, nor for a wait for the answer that timed out
	// (the server may be running the verb).
	NotReached bool
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the server at %s: %v", e.URL, e.Err)
}
func (e *UnreachableError) Unwrap() error { return e.Err }

// notReached tells a server that was not reached, or dropped the
// connection before answering, from one that is busy answering: before a
// connection, every failure but a refused certificate (that is not "the
// server is down"); after it and before the answer's first byte, a reset
// or a closed connection, not a timeout.
func notReached(err error, gotConn, gotByte bool) bool {
	var cv *tls.CertificateVerificationError
	var ua x509.UnknownAuthorityError
	var hn x509.HostnameError
	var ci x509.CertificateInvalidError
	if errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &hn) || errors.As(err, &ci) {
		return false
	}
	if !gotConn {
		return true
	}
	if gotByte {
		return false
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// Queueable reports whether err (of Run) says the server was not reached
// or did not answer as itself: a write then waits in the outbox. An
// *UnreachableError with NotReached, or a 502, 503 or 504 (a proxy in
// front says the server is down, or the server is too busy to take the
// run). Every other answer is the server's and is shown as it is.
func Queueable(err error) bool {
	var ue *UnreachableError
	var se *ServerError
	switch {
	case errors.As(err, &ue):
		return ue.NotReached
	case errors.As(err, &se):
		return se.Status == http.StatusBadGateway || se.Status == http.StatusServiceUnavailable || se.Status == http.StatusGatewayTimeout
	}
	return false
}

// maxResponse bounds what the client reads: the server's output bounds,
// base64 and JSON.
const maxResponse = 2*(DefaultMaxStdout+DefaultMaxStderr) + 1<<20

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{
		Timeout: DefaultTimeout + queueWait + 30*time.Second,
		// a redirect would be another URL's business: not followed
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Endpoint is the run endpoint under the base URL.
func (c *Client) Endpoint() string {
	u := *c.Base
	u.Path = strings.TrimSuffix(u.Path, "/") + RunPath
	u.RawPath = ""
	return u.String()
}

// Run sends req and returns the server's Response, or an
// *UnreachableError, a *ServerError or ctx's error. A server older than
// Request.Color and Request.StderrTerminal refuses them as unknown
// fields (400, nothing run): req is sent again without them, and the
// answer is that server's form, without colour or hints.
func (c *Client) Run(ctx context.Context, req Request) (Response, error) {
	resp, err := c.run(ctx, req)
	var se *ServerError
	if errors.As(err, &se) && se.Status == http.StatusBadRequest && (req.Color || req.StderrTerminal) &&
		(strings.Contains(se.Msg, `unknown field "color"`) || strings.Contains(se.Msg, `unknown field "stderr_terminal"`)) {
		req.Color, req.StderrTerminal = false, false
		return c.run(ctx, req)
	}
	return resp, err
}

func (c *Client) run(ctx context.Context, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return Response{}, err
	}
	hr.Header.Set("Content-Type", jsonType)
	hr.Header.Set("Accept", jsonType)
	hr.Header.Set("Authorization", "Bearer "+c.Token)
	var gotConn, gotByte bool
	hr = hr.WithContext(httptrace.WithClientTrace(hr.Context(), &httptrace.ClientTrace{
		GotConn:              func(httptrace.GotConnInfo) { gotConn = true },
		GotFirstResponseByte: func() { gotByte = true },
	}))
	resp, err := c.httpClient().Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once, by UnreachableError
		}
		return Response{}, &UnreachableError{URL: c.Base.Redacted(), Err: err, NotReached: notReached(err, gotConn, gotByte)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return Response{}, &UnreachableError{URL: c.Base.Redacted(), Err: err}
	}
	if len(data) > maxResponse {
		return Response{}, &ServerError{Status: resp.StatusCode, Msg: fmt.Sprintf("answer over %d bytes", maxResponse)}
	}
	if resp.StatusCode != http.StatusOK {
		var eb errorBody
		if json.Unmarshal(data, &eb) != nil || eb.Error == "" {
			eb.Error = strings.TrimSpace(http.StatusText(resp.StatusCode))
		}
		return Response{}, &ServerError{Status: resp.StatusCode, Msg: eb.Error}
	}
	var out Response
	if err := json.Unmarshal(data, &out); err != nil {
		return Response{}, &ServerError{Status: resp.StatusCode, Msg: "not an answer of linkledger's API: " + err.Error()}
	}
	return out, nil
}

// TerminalSafe is b for a terminal: what a server sends is shown to a
// person as lines and colours, never as other control sequences (moving
// the cursor, setting the window title, answering back, reordering
// text). An SGR sequence (ESC '[', digits and ';', 'm', at most MaxSGR
// bytes: colour, bold, underline) is kept; every other control character
// (other than newline and tab: ESC starting anything else, C1 controls,
// BEL, backspace, CR, DEL), the bidirectional controls, and bytes that
// are not UTF-8 become spaces; the layout (indents, columns) stays. The
// form for a person that linkledger writes has nothing else, so at a
// terminal the output is the local one; a pipe gets the server's bytes
// as they came.
func TerminalSafe(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		if n := sgrLen(b[i:]); n > 0 {
			out = append(out, b[i:i+n]...)
			i += n
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			out = append(out, ' ')
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// MaxSGR is the longest SGR sequence TerminalSafe keeps, in bytes (ESC
// and 'm' included); a longer one is not linkledger's and is blanked.
const MaxSGR = 32

// sgrLen is the length of the SGR sequence p starts with, 0 for none.
func sgrLen(p []byte) int {
	if len(p) < 3 || p[0] != 0x1b || p[1] != '[' {
		return 0
	}
	for j := 2; j < len(p) && j < MaxSGR; j++ {
		switch c := p[j]; {
		case c == 'm':
			return j + 1
		case c == ';' || c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
}

func unsafeRune(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return r == utf8.RuneError || unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}
