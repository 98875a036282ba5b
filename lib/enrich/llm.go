package enrich

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/tokens"
)

// Model path defaults (docs/enrich.md, "The model path").
const (
	DefaultTimeout        = 60 * time.Second
	DefaultMaxInputTokens = 6000
	DefaultMaxTokens      = 1024
	DefaultAttempts       = 3
	MaxRetryAfter         = 30 * time.Second
	MaxAnswerBytes        = 1 << 20
	// Confidences of a model's quotes: the model gives none, so they say
	// only whether the quote was found in the item.
	ConfidenceClaim       = 0.70
	ConfidenceUnsupported = 0.20
	ConfidenceHighlight   = 0.60
)

// KeyFromEnv is the API key: LINKLEDGER_LLM_KEY, else OPENAI_API_KEY.
func KeyFromEnv(getenv func(string) string) string {
	if k := getenv("LINKLEDGER_LLM_KEY"); k != "" {
		return k
	}
	return getenv("OPENAI_API_KEY")
}

// LLM asks a model (an OpenAI-compatible chat completions server, or a
// command) for a summary, claims, highlights and tags, and grounds the
// answer in the item's text.
type LLM struct {
	URL            string   // base URL; /chat/completions is added unless it ends so
	Model          string   // model name sent to the server
	Key            string   // API key, sent as Authorization: Bearer; never written anywhere
	Cmd            []string // argv of a command run instead of a server
	Timeout        time.Duration
	MaxInputTokens int
	MaxTokens      int
	Attempts       int
	Client         *http.Client
	Sleep          func(context.Context, time.Duration) error // backoff; nil sleeps
	Now            func() time.Time                           // clock of an HTTP-date Retry-After; nil: time.Now
}

// Endpoint is the URL the request goes to.
func (l *LLM) Endpoint() string {
	u := strings.TrimRight(l.URL, "/")
	if strings.HasSuffix(u, "/chat/completions") {
		return u
	}
	return u + "/chat/completions"
}

func (l *LLM) host() string {
	if len(l.Cmd) > 0 {
		return ""
	}
	u, err := url.Parse(l.URL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// Answer is the JSON the model is asked for.
type Answer struct {
	Summary    string   `json:"summary"`
	Claims     []Quote  `json:"claims"`
	Highlights []Quote  `json:"highlights"`
	Tags       []string `json:"tags"`
}

// Quote is one claim or highlight of an answer.
type Quote struct {
	Text string `json:"text"`
}

const systemPrompt = `You read one document and answer with a JSON object only:
{"summary": "...", "claims": [{"text": "..."}], "highlights": [{"text": "..."}], "tags": ["..."]}
summary: two or three sentences in your own words.
claims: the key checkable claims, each an EXACT quote of one sentence of the document.
highlights: the most important passages, each an EXACT quote of the document.
tags: up to five short lower-case topic tags.
Quote exactly: never paraphrase a claim or a highlight.`

// Cut returns s cut to at most n cl100k tokens.
func Cut(s string, n int) string {
	if n <= 0 {
		return s
	}
	var b strings.Builder
	i := 0
	for t := range tokens.Split(s) {
		if i == n {
			break
		}
		b.WriteString(t)
		i++
	}
	return b.String()
}

// Enrich asks the model about rec and writes the grounded artifact and
// highlight suggestions on it. On failure rec is left as it was and the
// error (stage enrich) is returned.
func (l *LLM) Enrich(ctx context.Context, rec *record.Record, opts Options) *record.Error {
	chunks := rec.Chunks
	if len(chunks) == 0 && rec.TextValue() != "" {
		chunks = []record.Chunk{{Index: 0, Text: rec.TextValue()}}
	}
	var parts []string
	for _, c := range chunks {
		parts = append(parts, c.Text)
	}
	text := rec.TextValue()
	if text == "" {
		text = strings.Join(parts, "\n\n")
	}
	input := Cut(text, l.MaxInputTokens)
	var (
		raw   []byte
		usage *record.TokenUsage
		rerr  *record.Error
	)
	if len(l.Cmd) > 0 {
		raw, rerr = l.runCmd(ctx, input)
	} else {
		raw, usage, rerr = l.post(ctx, input)
	}
	if rerr != nil {
		return rerr
	}
	var ans Answer
	if err := json.Unmarshal(raw, &ans); err != nil {
		return &record.Error{Stage: record.StageEnrich, Code: record.CodeBadContent, Message: "model answer is not the JSON object asked for: " + err.Error()}
	}
	a := Ground(ans, chunks, opts)
	if a.Summary == "" && len(a.KeyClaims) == 0 {
		// nothing that is evidence: no artifact (the store refuses an
		// empty one)
		return &record.Error{Stage: record.StageEnrich, Code: record.CodeBadContent, Message: "model answer has no summary and no claim found in the text"}
	}
	a.Model, a.EndpointHost, a.Tokens = l.Model, l.host(), usage
	rec.Artifact = a.Artifact
	anns := rec.Annotations[:0:0]
	for _, x := range rec.Annotations {
		if x.Actor != Actor {
			anns = append(anns, x)
		}
	}
	rec.Annotations = append(anns, a.Highlights...)
	return nil
}

// Grounded is a model's answer checked against the item.
type Grounded struct {
	*record.Artifact
	Highlights []record.Annotation
}

// Ground checks each quote of ans against chunks (whitespace runs count as
// one space on both sides). A claim found is kept with its chunk and
// confidence ConfidenceClaim; a claim not found is kept in claims only
// (not in key_claims: it is not evidence) with unsupported true,
// chunk_index -1 and confidence ConfidenceUnsupported; a highlight
// not found is dropped. Quotes are written as the item has them.
func Ground(ans Answer, chunks []record.Chunk, opts Options) Grounded {
	norm := make([]normText, len(chunks))
	for i, c := range chunks {
		norm[i] = normalize(c.Text)
	}
	find := func(q string) (string, int, bool) {
		nq := normalize(q).s
		if nq == "" {
			return "", 0, false
		}
		for i, n := range norm {
			if j := strings.Index(n.s, nq); j >= 0 {
				from, to := n.off[j], n.off[j+len(nq)-1]+1
				return chunks[i].Text[from:to], chunks[i].Index, true
			}
		}
		return "", 0, false
	}
	g := Grounded{Artifact: &record.Artifact{Summary: strings.TrimSpace(ans.Summary), CreatedBy: Actor, Method: "llm", SummaryBy: "model"}}
	for _, t := range ans.Tags {
		if t = strings.TrimSpace(t); t != "" && len(g.Tags) < 10 {
			g.Tags = append(g.Tags, t)
		}
	}
	for _, c := range ans.Claims {
		if len(g.Claims) == opts.MaxClaims {
			break
		}
		if strings.TrimSpace(c.Text) == "" {
			continue
		}
		if s, ci, ok := find(c.Text); ok {
			g.KeyClaims = append(g.KeyClaims, s)
			g.Claims = append(g.Claims, record.Claim{Text: s, ChunkIndex: ci, Confidence: ConfidenceClaim})
		} else {
			// kept in claims, marked, for the audit; key_claims holds
			// evidence only
			s := normalize(c.Text).s
			g.Claims = append(g.Claims, record.Claim{Text: s, ChunkIndex: -1, Confidence: ConfidenceUnsupported, Unsupported: true})
		}
	}
	for _, h := range ans.Highlights {
		if len(g.Highlights) == opts.MaxHighlights {
			break
		}
		if s, ci, ok := find(h.Text); ok {
			conf := ConfidenceHighlight
			g.Highlights = append(g.Highlights, record.Annotation{Type: record.AnnHighlight, Text: s, Actor: Actor, Confidence: &conf, ChunkIndex: &ci})
		}
	}
	return g
}

type normText struct {
	s   string
	off []int // byte offset in the original of each byte of s
}

// normalize trims s and makes each run of white space one space,
// remembering where each byte came from.
func normalize(s string) normText {
	var b strings.Builder
	var off []int
	space := false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			i += w
			continue
		}
		if space {
			b.WriteByte(' ')
			off = append(off, i)
			space = false
		}
		b.WriteString(s[i : i+w])
		for k := 0; k < w; k++ {
			off = append(off, i+k)
		}
		i += w
	}
	return normText{b.String(), off}
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []chatMessage     `json:"messages"`
	MaxTokens      int               `json:"max_tokens"`
	Temperature    float64           `json:"temperature"`
	ResponseFormat map[string]string `json:"response_format"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func enrichErr(code, msg string, retryable bool) *record.Error {
	return &record.Error{Stage: record.StageEnrich, Code: code, Message: msg, Retryable: retryable}
}

func (l *LLM) sleep(ctx context.Context, d time.Duration) error {
	if l.Sleep != nil {
		return l.Sleep(ctx, d)
	}
	return Wait(ctx, d)
}

// Wait waits d, or until ctx is done (its error). The model and
// embeddings clients' backoff.
func Wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (l *LLM) post(ctx context.Context, input string) ([]byte, *record.TokenUsage, *record.Error) {
	body, _ := json.Marshal(chatRequest{
		Model:          l.Model,
		Messages:       []chatMessage{{Role: "system", Content: systemPrompt}, {Role: "user", Content: input}},
		MaxTokens:      l.MaxTokens,
		ResponseFormat: map[string]string{"type": "json_object"},
	})
	attempts := max(l.Attempts, 1)
	client := l.Client
	if client == nil {
		client = http.DefaultClient
	}
	var last *record.Error
	for a := 0; a < attempts; a++ {
		if a > 0 {
			wait := time.Duration(1<<(a-1)) * time.Second
			if last.RetryAfter != "" {
				if d, err := time.ParseDuration(last.RetryAfter); err == nil {
					wait = min(d, MaxRetryAfter)
				}
				last.RetryAfter = ""
			}
			if err := l.sleep(ctx, wait); err != nil {
				return nil, nil, enrichErr(record.CodeTimeout, "interrupted while waiting to retry", true)
			}
		}
		raw, usage, err, retry := l.once(ctx, client, body)
		if err == nil {
			return raw, usage, nil
		}
		last = err
		if !retry {
			break
		}
	}
	if last.RetryAfter != "" {
		last.RetryAfter = ""
	}
	return nil, nil, last
}

// once makes one request. A retryable error may carry a wait in
// RetryAfter as a Go duration (cleared before the record sees it).
func (l *LLM) once(ctx context.Context, client *http.Client, body []byte) ([]byte, *record.TokenUsage, *record.Error, bool) {
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.Endpoint(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, enrichErr(record.CodeBadInput, "bad --llm URL", false), false
	}
	req.Header.Set("Content-Type", "application/json")
	if l.Key != "" {
		req.Header.Set("Authorization", "Bearer "+l.Key)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return nil, nil, enrichErr(record.CodeTimeout, fmt.Sprintf("no answer from the model server within %s", l.Timeout), true), true
		}
		return nil, nil, enrichErr(record.CodeConnection, "cannot reach the model server "+l.host(), true), true
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswerBytes+1))
	if err != nil {
		return nil, nil, enrichErr(record.CodeTimeout, "model server answer cut off: "+l.host(), true), true
	}
	if resp.StatusCode != http.StatusOK {
		retry := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		e := enrichErr(record.CodeUpstream, fmt.Sprintf("model server answered HTTP %d", resp.StatusCode), retry)
		e.HTTPStatus = resp.StatusCode
		now := time.Now
		if l.Now != nil {
			now = l.Now
		}
		if d, ok := RetryAfter(resp.Header.Get("Retry-After"), now()); ok {
			e.RetryAfter = d.String()
		}
		return nil, nil, e, retry
	}
	if len(data) > MaxAnswerBytes {
		return nil, nil, enrichErr(record.CodeTooLarge, "model server answer over 1 MiB", false), false
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
		return nil, nil, enrichErr(record.CodeBadContent, "model server answer is not a chat completion", false), false
	}
	var usage *record.TokenUsage
	if cr.Usage != nil {
		usage = &record.TokenUsage{Prompt: cr.Usage.PromptTokens, Completion: cr.Usage.CompletionTokens}
	}
	return []byte(stripFence(cr.Choices[0].Message.Content)), usage, nil, false
}

// RetryAfter reads a Retry-After header: a delay in seconds or an HTTP
// date (the wait is then until that time, none when it is past), capped at
// MaxRetryAfter. ok is false when the header is absent or neither form.
func RetryAfter(v string, now time.Time) (d time.Duration, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		// capped before the multiplication, which could overflow
		return min(time.Duration(min(s, int64(MaxRetryAfter/time.Second)))*time.Second, MaxRetryAfter), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return min(max(t.Sub(now), 0), MaxRetryAfter), true
}

// stripFence removes a ```json fence some models put around the object.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```json")
		s = strings.TrimPrefix(s, "```")
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return s
}

func (l *LLM) runCmd(ctx context.Context, input string) ([]byte, *record.Error) {
	ctx, cancel := context.WithTimeout(ctx, l.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.Cmd[0], l.Cmd[1:]...)
	cmd.Stdin = strings.NewReader(input)
	var out limitedBuffer
	out.max = MaxAnswerBytes
	cmd.Stdout = &out
	cmd.Stderr = io.Discard
	cmd.Env = os.Environ()
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, enrichErr(record.CodeTimeout, fmt.Sprintf("--cmd gave no answer within %s", l.Timeout), true)
	case out.over:
		return nil, enrichErr(record.CodeTooLarge, "--cmd answer over 1 MiB", false)
	case err != nil:
		return nil, enrichErr(record.CodeUpstream, "--cmd failed: "+err.Error(), false)
	}
	return []byte(stripFence(out.b.String())), nil
}

type limitedBuffer struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (w *limitedBuffer) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		w.over = true
		return 0, errors.New("answer too large")
	}
	return w.b.Write(p)
}

// SplitArgs splits a command line into argv: white space separates
// words; single quotes keep everything literally, double quotes keep
// white space and let a backslash escape " and \. No shell is run.
func SplitArgs(s string) ([]string, error) {
	var (
		args  []string
		cur   strings.Builder
		inArg bool
		quote rune
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && (rs[i+1] == '"' || rs[i+1] == '\\'):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inArg = r, true
		case r == '\\' && i+1 < len(rs):
			i++
			cur.WriteRune(rs[i])
			inArg = true
		case unicode.IsSpace(r):
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
		default:
			cur.WriteRune(r)
			inArg = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed %c quote", quote)
	}
	if inArg {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("empty command")
	}
	return args, nil
}
