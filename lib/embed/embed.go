// Package embed turns texts into vectors through an embeddings endpoint:
// any OpenAI-compatible server (POST {base}/embeddings: Ollama, llama.cpp
// server, LM Studio, vLLM, OpenAI) or Ollama's native POST /api/embed.
//
// Every answer is checked before a vector is used: one vector per input,
// in order, all of one dimension (the expected one when it is known), no
// NaN or infinity. The answer is read up to a byte cap, so a server that
// sends a gigabyte costs at most the cap; each request has a time bound,
// and retries (timeouts, connection failures, 429 and 5xx) wait with
// backoff or as Retry-After says, capped. Failures are record errors of
// stage embed; the caller passes the record on without vectors.
//
// It reads no environment: the command layer hands it a Client.
package embed

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/enrich"
	"github.com/linkledger/linkledger/lib/record"
)

// Defaults (docs/retrieval.md, "Embeddings").
const (
	DefaultTimeout   = 30 * time.Second
	DefaultAttempts  = 3
	DefaultBatchSize = 32
	// MaxBatchSize is the most texts one request may carry
	// (CheckBatchSize).
	MaxBatchSize = 256
	// MaxDimensions is the largest vector accepted (OpenAI's largest
	// model has 3,072).
	MaxDimensions = 8192
	// MaxInputBytes cuts each text sent (on a rune boundary): models read
	// a few thousand tokens at most, and a chunk is far smaller.
	MaxInputBytes = 32 << 10
	// bytesPerValue bounds one value of a JSON answer ("-0.0123456789012345,").
	bytesPerValue = 26
)

// Client asks one endpoint for embeddings of one model.
type Client struct {
	URL   string // base URL (…/v1) or a full …/embeddings or …/api/embed URL
	Model string
	Key   string // sent as Authorization: Bearer; never written anywhere
	// DocPrefix goes before every document text sent (EmbedDocuments),
	// QueryPrefix before every query (EmbedQuery): a model's task
	// prefixes (prefix.go). Embed sends texts as they are.
	DocPrefix, QueryPrefix string
	// Dimensions, when set, is the dimension every vector must have.
	Dimensions int
	Timeout    time.Duration // one request (default DefaultTimeout)
	Attempts   int           // default DefaultAttempts
	BatchSize  int           // texts per request (default DefaultBatchSize)
	HTTP       *http.Client
	Sleep      func(context.Context, time.Duration) error // backoff; nil sleeps
	Now        func() time.Time                           // clock of an HTTP-date Retry-After
}

// Ollama reports whether the client speaks Ollama's native /api/embed.
func (c *Client) Ollama() bool {
	return strings.HasSuffix(strings.TrimRight(c.URL, "/"), "/api/embed")
}

// Endpoint is the URL requests go to: the URL itself when it ends in
// /embeddings or /api/embed, else URL/embeddings.
func (c *Client) Endpoint() string {
	u := strings.TrimRight(c.URL, "/")
	if strings.HasSuffix(u, "/embeddings") || strings.HasSuffix(u, "/api/embed") {
		return u
	}
	return u + "/embeddings"
}

// Host is the endpoint's host, the only part of the URL diagnostics show
// (a URL may carry a secret in its path or query).
func (c *Client) Host() string {
	u, err := url.Parse(c.URL)
	if err != nil {
		return "(bad URL)"
	}
	return u.Host
}

// CheckURL says whether u can be an endpoint: http or https, a host, no
// user info.
func CheckURL(u string) error {
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" || pu.User != nil {
		return errors.New("want an http or https URL without user info")
	}
	return nil
}

func embedErr(code, msg string, retryable bool) *record.Error {
	return &record.Error{Stage: record.StageEmbed, Code: code, Message: msg, Retryable: retryable}
}

// Embed returns one vector per text, in order, asking BatchSize texts per
// request. It sends the texts as they are (no prefix; each cut at
// MaxInputBytes). On any failure it returns no vectors and the error.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, *record.Error) {
	bs := c.BatchSize
	if bs <= 0 {
		bs = DefaultBatchSize
	}
	out := make([][]float32, 0, len(texts))
	dim := c.Dimensions
	for start := 0; start < len(texts); start += bs {
		batch := texts[start:min(start+bs, len(texts))]
		vs, err := c.post(ctx, batch, dim)
		if err != nil {
			return nil, err
		}
		if dim == 0 && len(vs) > 0 {
			dim = len(vs[0])
		}
		out = append(out, vs...)
	}
	return out, nil
}

type request struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type openAIAnswer struct {
	Data []struct {
		Index     *int       `json:"index"`
		Embedding []*float64 `json:"embedding"` // null (how some servers write NaN) is refused
	} `json:"data"`
}

type ollamaAnswer struct {
	Embeddings [][]*float64 `json:"embeddings"`
}

func (c *Client) post(ctx context.Context, texts []string, dim int) ([][]float32, *record.Error) {
	in := make([]string, len(texts))
	for i, t := range texts {
		in[i] = cut(t, MaxInputBytes)
	}
	body, _ := json.Marshal(request{Model: c.Model, Input: in})
	var last *record.Error
	var wait time.Duration
	for a := 0; a < max(c.Attempts, 1); a++ {
		if a > 0 {
			if err := c.sleep(ctx, wait); err != nil {
				return nil, embedErr(record.CodeTimeout, "interrupted while waiting to retry", true)
			}
		}
		vs, err, retry, after := c.once(ctx, body, len(texts), dim)
		if err == nil {
			return vs, nil
		}
		last = err
		if !retry || ctx.Err() != nil {
			break
		}
		wait = time.Duration(1<<a) * time.Second
		if after >= 0 {
			wait = after
		}
	}
	return nil, last
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	return enrich.Wait(ctx, d)
}

// maxAnswer is the byte cap of an answer to n texts of dimension dim (an
// unknown dimension counts as MaxDimensions).
func maxAnswer(n, dim int) int64 {
	if dim <= 0 {
		dim = MaxDimensions
	}
	return int64(n)*int64(dim)*bytesPerValue + 64<<10
}

// once makes one request. after is the server's Retry-After (capped), or
// -1 when it gave none.
func (c *Client) once(ctx context.Context, body []byte, n, dim int) (vs [][]float32, rerr *record.Error, retry bool, after time.Duration) {
	after = -1
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, embedErr(record.CodeBadInput, "bad embeddings URL", false), false, after
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		var ne net.Error
		var co *crossOrigin
		if errors.As(err, &co) {
			return nil, embedErr(record.CodeBadRedirect, fmt.Sprintf("embeddings endpoint %s redirected to another host (%s): refused, no text sent there", c.Host(), co.host), false), false, after
		}
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return nil, embedErr(record.CodeTimeout, fmt.Sprintf("no answer from the embeddings endpoint %s within %s", c.Host(), timeout), true), true, after
		}
		return nil, embedErr(record.CodeConnection, "cannot reach the embeddings endpoint "+c.Host(), true), true, after
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		retry = resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		msg := fmt.Sprintf("embeddings endpoint %s answered HTTP %d", c.Host(), resp.StatusCode)
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
			msg += " (check LINKLEDGER_EMBED_KEY)"
		}
		e := embedErr(record.CodeUpstream, msg, retry)
		e.HTTPStatus = resp.StatusCode
		now := time.Now
		if c.Now != nil {
			now = c.Now
		}
		if d, ok := enrich.RetryAfter(resp.Header.Get("Retry-After"), now()); ok {
			after = d
		}
		return nil, e, retry, after
	}
	limit := maxAnswer(n, dim)
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, embedErr(record.CodeTimeout, "embeddings answer cut off: "+c.Host(), true), true, after
	}
	if int64(len(data)) > limit {
		return nil, embedErr(record.CodeTooLarge, fmt.Sprintf("embeddings answer over %d bytes for %d texts", limit, n), false), false, after
	}
	vs, rerr = c.decode(data, n, dim)
	return vs, rerr, false, after
}

// maxRedirects bounds the redirects of one request (as net/http's own
// default does).
const maxRedirects = 10

// crossOrigin is a redirect to another origin, refused.
type crossOrigin struct{ host string }

func (e *crossOrigin) Error() string { return "redirect to another host " + e.host }

// httpClient is c.HTTP (default http.DefaultClient) following redirects
// only within the endpoint's origin (scheme, host and port): the texts
// (and the key) go to the server the user named, never to one a redirect
// names (docs/retrieval.md, "Endpoint failures").
func (c *Client) httpClient() *http.Client {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	h := *hc
	next := hc.CheckRedirect
	h.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			return &crossOrigin{host: req.URL.Host}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	return &h
}

// sameOrigin says whether a and b have one scheme, host and port (a port
// left out is the scheme's own).
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// decode reads and checks an answer to n texts.
func (c *Client) decode(data []byte, n, dim int) ([][]float32, *record.Error) {
	bad := func(format string, a ...any) *record.Error {
		return embedErr(record.CodeBadContent, "embeddings answer: "+fmt.Sprintf(format, a...), false)
	}
	var raw [][]*float64
	if c.Ollama() {
		var a ollamaAnswer
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, bad("not an Ollama /api/embed answer")
		}
		raw = a.Embeddings
	} else {
		var a openAIAnswer
		if err := json.Unmarshal(data, &a); err != nil {
			return nil, bad("not an OpenAI-compatible embeddings answer")
		}
		raw = make([][]*float64, len(a.Data))
		for i, d := range a.Data {
			j := i
			if d.Index != nil {
				j = *d.Index
			}
			if j < 0 || j >= len(raw) || raw[j] != nil {
				return nil, bad("index %d out of order", j)
			}
			raw[j] = d.Embedding
		}
	}
	if len(raw) != n {
		return nil, bad("%d vectors for %d texts", len(raw), n)
	}
	out := make([][]float32, n)
	for i, v := range raw {
		switch {
		case len(v) == 0:
			return nil, bad("vector %d is empty", i)
		case len(v) > MaxDimensions:
			return nil, bad("vector %d has %d dimensions, over %d", i, len(v), MaxDimensions)
		case dim > 0 && len(v) != dim:
			return nil, bad("vector %d has %d dimensions, want %d (model %s)", i, len(v), dim, c.Model)
		}
		dim = len(v)
		f := make([]float32, len(v))
		for k, x := range v {
			if x == nil || math.IsNaN(*x) || math.IsInf(*x, 0) || math.Abs(*x) > math.MaxFloat32 {
				return nil, bad("vector %d holds a value that is not a finite number", i)
			}
			f[k] = float32(*x)
		}
		out[i] = f
	}
	return out, nil
}

// cut keeps at most n bytes of s, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Encode writes v as little-endian float32 values in base64 (the record's
// chunk "embedding").
func Encode(v []float32) string {
	return base64.StdEncoding.EncodeToString(Bytes(v))
}

// Bytes writes v as little-endian float32 values (the stored blob).
func Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Decode reads a chunk "embedding". It refuses a value that is not base64
// of a whole number of float32 values, or that holds NaN or infinity.
func Decode(s string) ([]float32, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("embedding is not base64")
	}
	return FromBytes(b)
}

// FromBytes reads little-endian float32 values, refusing a length that is
// not a multiple of 4, over MaxDimensions values, NaN and infinity.
func FromBytes(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 || len(b)/4 > MaxDimensions {
		return nil, fmt.Errorf("embedding of %d bytes: want 1..%d float32 values", len(b), MaxDimensions)
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		x := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, errors.New("embedding holds a value that is not a finite number")
		}
		v[i] = x
	}
	return v, nil
}

// CheckBatchSize checks a number of texts per request (ll-embed and
// linkledger embed --batch-size): 1..MaxBatchSize.
func CheckBatchSize(n int) error {
	if n < 1 || n > MaxBatchSize {
		return fmt.Errorf("batch-size %d: want 1..%d", n, MaxBatchSize)
	}
	return nil
}
