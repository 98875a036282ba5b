// Package remote runs the front command's verbs on a served ledger: a
// JSON API (Handler, mounted at /api/v1/ by `linkledger serve`) that runs
// the same in-process command code as a local `linkledger VERB` on the
// server's ledger, and the client the front command uses when
// LINKLEDGER_URL and LINKLEDGER_TOKEN are set (Client). Because the same
// code runs, a remote verb's output, errors and exit codes are the local
// ones by construction (docs/cli.md, "Remote ledger: LINKLEDGER_URL").
//
// The request's arguments are untrusted: each remote verb takes an
// allow-list of flags (args.go); --db, every flag naming a file, --jq and
// every verb not listed are refused; a remote save takes web links only.
// The actor of every write is the token's name, never the request's; a
// token of scope read runs the read verbs only. Bodies, output, time and
// concurrency are bounded.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// The API's one endpoint, under the mount point: POST /api/v1/run.
const (
	Mount    = "/api/v1/"
	RunPath  = Mount + "run"
	jsonType = "application/json"
)

// Request asks the server to run one verb.
type Request struct {
	Verb string   `json:"verb"`
	Args []string `json:"args"`
	// Terminal: the client's stdout is a terminal, so the output is the
	// form for a person (--format human) unless the args ask otherwise.
	Terminal bool `json:"terminal,omitempty"`
	// Width is the columns of that terminal (0: unknown), for the lines
	// of the human form to wrap as they would locally.
	Width int `json:"width,omitempty"`
	// Color: the human form may use colour (the client decided with
	// cli.ColorWanted in its own environment); without it, none.
	Color bool `json:"color,omitempty"`
	// StderrTerminal: the client's stderr is a terminal, so the command
	// writes the "hint:" lines for a person (cli.StderrTerminalEnv).
	StderrTerminal bool `json:"stderr_terminal,omitempty"`
}

// Response is what the verb wrote and its exit code.
type Response struct {
	Stdout   []byte `json:"stdout"`
	Stderr   []byte `json:"stderr"`
	ExitCode int    `json:"exit_code"`
	// Truncated: the output went over the server's bound and was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// errorBody is the body of every answer other than 200.
type errorBody struct {
	Error string `json:"error"`
}

// Defaults of Options.
const (
	DefaultMaxBody     = 1 << 20
	DefaultMaxStdout   = 16 << 20
	DefaultMaxStderr   = 64 << 10
	DefaultTimeout     = 2 * time.Minute
	DefaultConcurrency = 4
	maxArgs            = 256
	queueWait          = 10 * time.Second
)

// Options configure Handler.
type Options struct {
	// DB is the server's ledger file: every verb runs on it (--db).
	DB string
	// Run runs the front command with args (args[0] is the program
	// name) in env and returns its exit code: linkledger.Run with the
	// server's filters.
	Run func(ctx context.Context, env cli.Env, args []string) int
	// Identity is who sent the request (the token's name and scope), as
	// the served handler's authentication found it; ok false: nobody.
	Identity func(*http.Request) (name, scope string, ok bool)
	// Getenv is the server's environment for the run (embeddings
	// endpoint, busy timeout); nil: none. The ledger, the remote
	// variables and colour are the handler's.
	Getenv func(string) string
	// Bounds (0: the Default above).
	MaxBody     int64
	MaxStdout   int
	MaxStderr   int
	Timeout     time.Duration
	Concurrency int
	// QueueWait is how long a request waits for one of the Concurrency
	// slots before it is answered 503 (0: 10 s).
	QueueWait time.Duration
}

// scopeRank orders the token scopes: read < write < admin.
var scopeRank = map[string]int{"read": 1, "write": 2, "admin": 3}

// scopeAllows reports whether a token of scope have may do what needs.
func scopeAllows(have, need string) bool {
	return scopeRank[have] != 0 && scopeRank[have] >= scopeRank[need]
}

// Handler serves POST RunPath (or "/run" when mounted with the prefix
// stripped).
func Handler(o Options) http.Handler {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxStdout <= 0 {
		o.MaxStdout = DefaultMaxStdout
	}
	if o.MaxStderr <= 0 {
		o.MaxStderr = DefaultMaxStderr
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.QueueWait <= 0 {
		o.QueueWait = queueWait
	}
	h := &handler{o: o, slots: make(chan struct{}, o.Concurrency)}
	return h
}

type handler struct {
	o     Options
	slots chan struct{}
}

func fail(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody{Error: fmt.Sprintf(format, args...)})
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != RunPath && r.URL.Path != "/run" {
		fail(w, http.StatusNotFound, "no such endpoint: %s (the front command's API is POST %s)", r.URL.Path, RunPath)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(w, http.StatusMethodNotAllowed, "method %s: want POST", r.Method)
		return
	}
	name, scope, ok := "", "", false
	if h.o.Identity != nil {
		name, scope, ok = h.o.Identity(r)
	}
	if !ok {
		fail(w, http.StatusUnauthorized, "no valid token")
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, jsonType) {
		fail(w, http.StatusUnsupportedMediaType, "content type %q: want %s", ct, jsonType)
		return
	}
	var req Request
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, h.o.MaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			fail(w, http.StatusRequestEntityTooLarge, "request over %d bytes", h.o.MaxBody)
			return
		}
		fail(w, http.StatusBadRequest, "bad request: %v", err)
		return
	}
	if len(req.Args) > maxArgs {
		fail(w, http.StatusRequestEntityTooLarge, "%d arguments: at most %d", len(req.Args), maxArgs)
		return
	}
	verb, ok := Verb(req.Verb)
	if !ok {
		fail(w, http.StatusNotFound, "verb %q does not run on a server: the remote verbs are %s", req.Verb, strings.Join(Verbs, ", "))
		return
	}
	if Writes(verb) && !scopeAllows(scope, "write") {
		fail(w, http.StatusForbidden, "token %s has scope %s: %s writes and needs scope write", name, scope, verb)
		return
	}
	if !scopeAllows(scope, "read") {
		fail(w, http.StatusForbidden, "token %s has no known scope (%q)", name, scope)
		return
	}
	actor := actorOf(name)
	if Writes(verb) && !record.ValidActor(actor) {
		fail(w, http.StatusForbidden, "token %s cannot write: its name is not agent:NAME or human:DEVICE", name)
		return
	}
	prog := "linkledger " + req.Verb
	given, err := Check(verb, req.Args)
	if err != nil {
		writeRun(w, usageResponse(prog, err))
		return
	}
	if Writes(verb) {
		for _, a := range given["actor"] {
			if a != actor {
				writeRun(w, usageResponse(prog, usagef("drop --actor: a remote write is by its token",
					"--actor %q: this token's writes are by %s", a, actor)))
				return
			}
		}
	}
	// one slot of Concurrency; a request that waits too long is told so
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	case <-time.After(h.o.QueueWait):
		w.Header().Set("Retry-After", "5")
		fail(w, http.StatusServiceUnavailable, "busy: %d requests running; try again", h.o.Concurrency)
		return
	case <-r.Context().Done():
		return
	}
	writeRun(w, h.run(r.Context(), verb, req, actor, given))
}

// actorOf is the actor of the writes made with the token name, as
// linkledger serve has it (ledger.TokenActor): the name itself for
// agent:NAME, human for human:DEVICE (you, on a device).
func actorOf(name string) string {
	if strings.HasPrefix(name, "human:") {
		return spec.ActorHuman
	}
	return name
}

// run runs the verb on the server's ledger.
func (h *handler) run(ctx context.Context, verb string, req Request, actor string, given Given) Response {
	args := []string{"linkledger", req.Verb, "--db=" + h.o.DB}
	if Writes(verb) && !given.Has("actor") {
		args = append(args, "--actor="+actor)
	}
	if req.Terminal && !given.Has("format", "json") {
		args = append(args, "--format=human")
	}
	args = append(args, req.Args...)
	stdout := &capped{max: h.o.MaxStdout}
	stderr := &capped{max: h.o.MaxStderr}
	env := cli.Env{
		Stdin:  strings.NewReader(""),
		Stdout: stdout,
		Stderr: stderr,
		Getenv: func(k string) string {
			switch k {
			case cli.WidthEnv:
				if req.Terminal && req.Width > 0 && req.Width <= cli.MaxWidth {
					return strconv.Itoa(req.Width)
				}
				return ""
			case cli.StderrTerminalEnv:
				if req.StderrTerminal {
					return "1"
				}
				return ""
			}
			return h.getenv(k, req.Color)
		},
		Getwd: func() (string, error) { return "", errors.New("no working directory on the server") },
	}
	ctx, cancel := context.WithTimeout(ctx, h.o.Timeout)
	defer cancel()
	code := h.o.Run(ctx, env, args)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "linkledger %s: stopped by the server after %v\n", req.Verb, h.o.Timeout)
		code = cli.ExitFatal
	}
	return Response{Stdout: stdout.bytes(), Stderr: stderr.bytes(), ExitCode: code, Truncated: stdout.over}
}

// getenv is the server's environment, less what the handler decides:
// colour is the client's choice (color), whatever the server's
// NO_COLOR, CLICOLOR, CLICOLOR_FORCE and TERM say.
func (h *handler) getenv(k string, color bool) string {
	switch k {
	case "LINKLEDGER_DB", EnvURL, EnvToken, cli.DisplayNameEnv, cli.CompleteEnv, cli.EmptyInputEnv,
		"LINKLEDGER_RULES", "LINKLEDGER_PAGER", "PAGER", "CLICOLOR", "TERM":
		return ""
	case "NO_COLOR":
		if color {
			return ""
		}
		return "1"
	case "CLICOLOR_FORCE":
		if color {
			return "1"
		}
		return ""
	}
	if h.o.Getenv == nil {
		return ""
	}
	return h.o.Getenv(k)
}

func usageResponse(prog string, err error) Response {
	msg := fmt.Sprintf("%s: %s\n", prog, err)
	var ue *UsageError
	if errors.As(err, &ue) && ue.Hint != "" {
		msg += "hint: " + ue.Hint + "\n"
	}
	return Response{Stderr: []byte(msg), ExitCode: cli.ExitUsage}
}

func writeRun(w http.ResponseWriter, resp Response) {
	w.Header().Set("Content-Type", jsonType)
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(resp)
}

// errOver stops a writer that went over its bound: the verb ends as on a
// closed pipe, and the response says Truncated.
var errOver = errors.New("output over the server's bound")

// capped keeps at most max bytes; writers may be concurrent (a pipeline's
// stages share stderr).
type capped struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:max(room, 0)]...)
		c.over = true
		return max(room, 0), errOver
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.buf...)
}

var _ io.Writer = (*capped)(nil)
