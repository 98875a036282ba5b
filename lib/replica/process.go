package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultSyncInterval is how often Litestream ships new WAL frames to the
// replica (Litestream's own default is 1s too): a commit is in the replica
// at most about this long after it returned, unless Litestream is stopped
// cleanly first (a clean stop ships what is left).
const DefaultSyncInterval = time.Second

// DefaultStopTimeout is how long Stop waits for Litestream to ship what is
// left and exit after SIGTERM before it kills it.
const DefaultStopTimeout = 30 * time.Second

// SFTP is how Litestream signs in to an sftp:// replica.
type SFTP struct {
	// KeyPath is the private key file (LINKLEDGER_REPLICA_SFTP_KEY).
	KeyPath string
	// HostKey is the server's public host key, one line as in
	// known_hosts without the host name ("ssh-ed25519 AAAA...";
	// LINKLEDGER_REPLICA_SFTP_HOST_KEY). Required: without it any server
	// answering at the address would receive the ledger.
	HostKey string
}

// Options are the settings of Start.
type Options struct {
	// DB is the ledger file to copy (it must exist; WAL mode, as the
	// store makes every ledger).
	DB string
	// URL is the replica (ParseURL).
	URL string
	// Binary is the litestream executable (FindBinary).
	Binary string
	// Stderr receives Litestream's log, each line prefixed "litestream: "
	// (nil: discarded).
	Stderr io.Writer
	// SyncInterval is how often changes are shipped (0: DefaultSyncInterval).
	SyncInterval time.Duration
	// SFTP signs in to an sftp:// replica.
	SFTP SFTP
	// StopTimeout bounds Stop's wait after SIGTERM (0: DefaultStopTimeout).
	StopTimeout time.Duration
	// LogLevel is Litestream's log level ("": info; debug shows every
	// sync and why it snapshots, which the checkpoint measurement counts).
	LogLevel string
}

// Process is a running Litestream replicating one ledger.
type Process struct {
	cmd         *exec.Cmd
	dir         string // holds the configuration; removed when it exits
	stopTimeout time.Duration
	done        chan struct{}
	err         error         // why it exited, set before done is closed
	ready       chan struct{} // closed at the first snapshot (Ready)

	mu       sync.Mutex
	stopping bool
}

// config is Litestream's configuration, written as JSON (which its YAML
// reader reads) so that no path or URL needs YAML quoting.
type config struct {
	Logging struct {
		Level  string `json:"level"`
		Stderr bool   `json:"stderr"`
	} `json:"logging"`
	DBs []dbConfig `json:"dbs"`
}

type dbConfig struct {
	Path    string        `json:"path"`
	Replica replicaConfig `json:"replica"`
}

type replicaConfig struct {
	URL          string `json:"url"`
	SyncInterval string `json:"sync-interval,omitempty"`
	KeyPath      string `json:"key-path,omitempty"`
	HostKey      string `json:"host-key,omitempty"`
}

// writeConfig writes the configuration for db and t into a new private
// folder (0700, the file 0600) and returns the folder and the file.
func writeConfig(db string, t Target, sftp SFTP, sync time.Duration, level string) (dir, file string, err error) {
	if t.Scheme == "sftp" {
		if sftp.KeyPath == "" {
			return "", "", errors.New("an sftp:// replica needs a private key: set LINKLEDGER_REPLICA_SFTP_KEY to its file")
		}
		if sftp.HostKey == "" {
			return "", "", errors.New("an sftp:// replica needs the server's host key: set LINKLEDGER_REPLICA_SFTP_HOST_KEY to its public key line (ssh-keyscan HOST shows it; check it)")
		}
		if strings.ContainsAny(sftp.HostKey, "\r\n") {
			return "", "", errors.New("LINKLEDGER_REPLICA_SFTP_HOST_KEY: want one public key line")
		}
		kp, err := filepath.Abs(sftp.KeyPath)
		if err != nil {
			return "", "", err
		}
		sftp.KeyPath = kp
	}
	var c config
	c.Logging.Level = "info"
	if level != "" {
		c.Logging.Level = level
	}
	c.Logging.Stderr = true
	r := replicaConfig{URL: t.URL, KeyPath: sftp.KeyPath, HostKey: sftp.HostKey}
	if sync > 0 {
		r.SyncInterval = sync.String()
	}
	c.DBs = []dbConfig{{Path: db, Replica: r}}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return "", "", err
	}
	dir, err = os.MkdirTemp("", "linkledger-replica-")
	if err != nil {
		return "", "", fmt.Errorf("litestream configuration: %w", err)
	}
	file = filepath.Join(dir, "litestream.yml")
	if err := os.WriteFile(file, append(b, '\n'), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("litestream configuration: %w", err)
	}
	return dir, file, nil
}

// Start starts Litestream replicating opt.DB to opt.URL and returns once
// the process runs (Done and Err say when and why it ends). Stop stops
// it; the caller must call Stop, also after Done.
func Start(ctx context.Context, opt Options) (*Process, error) {
	t, err := ParseURL(opt.URL)
	if err != nil {
		return nil, err
	}
	if opt.Binary == "" {
		return nil, &NoBinaryError{}
	}
	db, err := filepath.Abs(opt.DB)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(db); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("replica of %s: no such ledger file", opt.DB)
	}
	if t.Scheme == "file" && within(t.Path, filepath.Dir(db)) {
		return nil, &BadURLError{URL: opt.URL, Reason: "the replica folder holds the ledger itself: name a folder elsewhere (another disk)"}
	}
	sync := opt.SyncInterval
	if sync == 0 {
		sync = DefaultSyncInterval
	}
	dir, file, err := writeConfig(db, t, opt.SFTP, sync, opt.LogLevel)
	if err != nil {
		return nil, err
	}
	cmd := command(opt.Binary, "replicate", "-config", file, "-no-expand-env")
	w := opt.Stderr
	if w == nil {
		w = io.Discard
	}
	lw := &lineWriter{w: w, prefix: "litestream: "}
	// Litestream logs to a file, not a pipe: if linkledger dies (kill -9),
	// a pipe would have no reader, and Litestream's next log line (the one
	// saying it got SIGTERM and is shutting down) would kill it with
	// SIGPIPE before it shipped the last changes, losing acknowledged
	// writes (measured: 57 of 60 restored). The file is unlinked at once;
	// linkledger reads it as it grows (tail) while Litestream writes it.
	logW, logR, err := logFile(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logW, logW
	ready := make(chan struct{})
	seen := false // onLine runs under the writer's lock, one line at a time
	lw.onLine = func(line []byte) {
		if !seen && bytes.Contains(line, []byte(`msg="snapshot complete"`)) {
			seen = true
			close(ready)
		}
	}
	if err := ctx.Err(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logW.Close()
		logR.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start litestream (%s): %w", opt.Binary, err)
	}
	logW.Close() // Litestream holds its own copy
	p := &Process{cmd: cmd, dir: dir, stopTimeout: opt.StopTimeout, done: make(chan struct{}), ready: ready}
	if p.stopTimeout == 0 {
		p.stopTimeout = DefaultStopTimeout
	}
	exited, tailed := make(chan struct{}), make(chan struct{})
	go tail(logR, lw, exited, tailed)
	go p.wait(exited, tailed)
	return p, nil
}

// logFile makes Litestream's log file in dir and returns it open for
// writing (for Litestream) and for reading (for tail), already unlinked.
func logFile(dir string) (w, r *os.File, err error) {
	name := filepath.Join(dir, "litestream.log")
	w, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("litestream's log: %w", err)
	}
	r, err = os.Open(name)
	os.Remove(name)
	if err != nil {
		w.Close()
		return nil, nil, fmt.Errorf("litestream's log: %w", err)
	}
	return w, r, nil
}

// tailPoll is how often tail looks for more of the log.
const tailPoll = 100 * time.Millisecond

// tail copies Litestream's log, as it grows, to lw until Litestream has
// exited (exited closed) and the log is read to its end; then it closes
// tailed.
func tail(r *os.File, lw *lineWriter, exited <-chan struct{}, tailed chan<- struct{}) {
	defer close(tailed)
	defer r.Close()
	defer lw.flush()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = lw.Write(buf[:n])
			continue
		}
		if err != nil && err != io.EOF {
			return
		}
		select {
		case <-exited:
			// one more read for what came between the last one and the exit
			for {
				n, _ := r.Read(buf)
				if n == 0 {
					return
				}
				_, _ = lw.Write(buf[:n])
			}
		case <-time.After(tailPoll):
		}
	}
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel == "."
}

func (p *Process) wait(exited chan<- struct{}, tailed <-chan struct{}) {
	err := p.cmd.Wait()
	close(exited)
	<-tailed
	os.RemoveAll(p.dir)
	p.mu.Lock()
	stopping := p.stopping
	p.mu.Unlock()
	switch {
	case err == nil && !stopping:
		p.err = errors.New("litestream exited by itself: the replica is no longer updated")
	case err != nil && !stopping:
		p.err = fmt.Errorf("litestream exited by itself (%v): the replica is no longer updated", err)
	case err != nil:
		p.err = fmt.Errorf("litestream: %v", err)
	}
	close(p.done)
}

// Ready is closed when Litestream has written its first snapshot of the
// ledger to the replica (its log says "snapshot complete"; the log level
// must be info or debug, the default). Before that a stop ships nothing:
// Litestream stopped within its first second or two leaves an empty
// replica, whatever was written meanwhile (measured with v0.5.18: a save
// 0.4 s after the start and a stop 0.3 s later left no replica at all;
// the same save 5 s after the start was restored). A server waits for
// Ready before it takes requests (linkledger serve --replica).
func (p *Process) Ready() <-chan struct{} { return p.ready }

// Pid is the id of Litestream's process group (on Linux, the small shell
// that runs Litestream and forwards it one SIGTERM; command).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed when Litestream has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err says why Litestream exited (after Done): nil after a clean Stop.
func (p *Process) Err() error {
	select {
	case <-p.done:
		return p.err
	default:
		return nil
	}
}

// ErrKilled says Litestream did not exit after SIGTERM in time and was
// killed: what it had not shipped yet is not in the replica.
var ErrKilled = errors.New("litestream did not stop in time after SIGTERM and was killed: the last changes may be missing from the replica")

// Stop asks Litestream to ship what is left and exit (SIGTERM), waits for
// it until the stop timeout or ctx ends, and kills it then (ErrKilled).
// It returns why Litestream ended when it had exited by itself before.
func (p *Process) Stop(ctx context.Context) error {
	select {
	case <-p.done:
		return p.err
	default:
	}
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		<-p.done
		return p.err
	}
	t := time.NewTimer(p.stopTimeout)
	defer t.Stop()
	select {
	case <-p.done:
		return p.err
	case <-t.C:
	case <-ctx.Done():
	}
	_ = killAll(p.cmd.Process.Pid)
	<-p.done
	return ErrKilled
}

// lineWriter writes each whole line to w with a prefix (Litestream's log
// on the caller's stderr, told apart from its own lines).
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
	onLine func([]byte) // each line as it comes (nil: none)
}

// maxLine bounds a line held back waiting for its end.
const maxLine = 64 << 10

func (l *lineWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, b...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			if len(l.buf) > maxLine {
				l.emit(l.buf)
				l.buf = l.buf[:0]
			}
			return len(b), nil
		}
		l.emit(l.buf[:i])
		l.buf = l.buf[i+1:]
	}
}

func (l *lineWriter) emit(line []byte) {
	if l.onLine != nil {
		l.onLine(line)
	}
	// the log is diagnostics: a failing stderr must not stop replication
	_, _ = fmt.Fprintf(l.w, "%s%s\n", l.prefix, line)
}

func (l *lineWriter) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) > 0 {
		l.emit(l.buf)
		l.buf = nil
	}
}
