package replica_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/replica"
)

// The test binary doubles as the writer process the replication test
// kills: with LL_REPLICA_WRITER=DB it saves items into DB through
// lib/ledger, one transaction each, and prints each item's id once its
// save has returned (committed): the acknowledgements.
func TestMain(m *testing.M) {
	if db := os.Getenv("LL_REPLICA_WRITER"); db != "" {
		os.Exit(runWriter(db))
	}
	os.Exit(m.Run())
}

func runWriter(db string) int {
	ctx := context.Background()
	l, err := ledger.Open(ctx, db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		return 1
	}
	from, _ := strconv.Atoi(os.Getenv("LL_REPLICA_WRITER_FROM"))
	saves, _ := strconv.Atoi(os.Getenv("LL_REPLICA_WRITER_SAVES"))
	for i := from; saves == 0 || i < from+saves; i++ {
		rec := &record.Record{URL: fmt.Sprintf("https://replica.example/item/%d", i),
			Title:       fmt.Sprintf("replicated item %d", i),
			Annotations: []record.Annotation{{Type: "note", Text: fmt.Sprintf("note w%d about octopus gardens and replicas %s", i, strings.Repeat("filler words ", i%50))}}}
		res, err := l.Save(ctx, rec, ledger.SaveOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			return 1
		}
		// os.Stdout is unbuffered: the line leaves with the write call
		if _, err := fmt.Println(res.ID, i); err != nil {
			return 1
		}
	}
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "writer:", err)
		return 1
	}
	return 0
}

// litestream is the litestream binary (LINKLEDGER_LITESTREAM, bin/ of
// this checkout where make setup builds it, PATH), or the test skips.
func litestream(t *testing.T) string {
	t.Helper()
	exeDir := ""
	if wd, err := os.Getwd(); err == nil {
		for d := wd; d != filepath.Dir(d); d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				exeDir = filepath.Join(d, "bin")
				break
			}
		}
	}
	bin, err := replica.FindBinary(os.Getenv("LINKLEDGER_LITESTREAM"), exeDir)
	if err != nil {
		t.Skipf("skipped: %v", err)
	}
	return bin
}

// writeSeconds is how long the replication test writes: LL_REPLICA_SECONDS
// (the manual run in docs/several-machines.md uses 60), default 12.
func writeSeconds(t *testing.T) time.Duration {
	if s := os.Getenv("LL_REPLICA_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("LL_REPLICA_SECONDS=%q: want a whole number of seconds", s)
		}
		return time.Duration(n) * time.Second
	}
	return 12 * time.Second
}

// newLedger creates an empty ledger file.
func newLedger(t *testing.T, path string) {
	t.Helper()
	l, err := ledger.Open(context.Background(), path, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// syncWriter is a buffer the test and Litestream's log goroutine share.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// TestReplicateKillWriterRestore: a writer process saves items while
// Litestream copies the ledger to a file:// replica; the writer is killed
// with SIGKILL mid-write; Litestream is stopped cleanly (SIGTERM: it ships
// what is left); the replica restored elsewhere passes integrity_check and
// the search index checks, holds every item the writer saw committed, and
// exactly the items the killed writer's file holds.
func TestReplicateKillWriterRestore(t *testing.T) {
	bin := litestream(t)
	repl := filepath.Join(t.TempDir(), "replica")
	killWriterAndRestore(t, bin, "file://"+repl, replica.SFTP{}, writeSeconds(t))
}

// killWriterAndRestore is the replication test against the replica at
// url: write for d, kill -9 the writer, stop Litestream, restore, check.
func killWriterAndRestore(t *testing.T, bin, url string, sftp replica.SFTP, d time.Duration) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "home", "ll.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	newLedger(t, db)
	var log syncWriter
	p, err := replica.Start(ctx, replica.Options{DB: db, URL: url, Binary: bin, Stderr: &log, SFTP: sftp})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)

	w := exec.Command(os.Args[0], "-test.run=^$")
	w.Env = append(os.Environ(), "LL_REPLICA_WRITER="+db)
	var werr strings.Builder
	w.Stderr = &werr
	out, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			acked = append(acked, sc.Text())
		}
		// a line cut short by the kill was never acknowledged
		if n := len(acked); n > 0 && !strings.Contains(acked[n-1], " ") {
			acked = acked[:n-1]
		}
	}()
	time.Sleep(d)
	if err := w.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-read
	err = w.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("writer ended by itself (%v), not by the kill: %s", err, werr.String())
	}
	if len(acked) < 10 {
		t.Fatalf("writer acknowledged only %d items: %s", len(acked), werr.String())
	}
	select {
	case <-p.Done():
		t.Fatalf("litestream exited while replicating: %v\n%s", p.Err(), log.String())
	default:
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("stop: %v\n%s", err, log.String())
	}
	t.Logf("writer acknowledged %d items in %s", len(acked), d)

	restored := filepath.Join(dir, "laptop", "copy.db")
	if err := os.MkdirAll(filepath.Dir(restored), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := replica.Restore(ctx, url, restored, replica.RestoreOptions{Binary: bin, SFTP: sftp}); err != nil {
		t.Fatalf("restore: %v\n%s", err, log.String())
	}
	if fi, err := os.Stat(restored); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("restored file: %v, mode %v; want 0600 as every ledger", err, fi.Mode().Perm())
	}
	if ents, err := os.ReadDir(filepath.Dir(restored)); err != nil || len(ents) != 1 {
		t.Errorf("restore left files beside %s: %v %v", restored, ents, err)
	}
	l, err := ledger.Open(ctx, restored, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	problems, err := l.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Errorf("restored ledger has problems: %+v", problems)
	}
	missing := 0
	for _, line := range acked {
		id, _, _ := strings.Cut(line, " ")
		if _, err := l.Export(ctx, id, false); err != nil {
			if missing < 5 {
				t.Errorf("acknowledged item %s: %v", id, err)
			}
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d acknowledged items missing from the restored ledger", missing, len(acked))
	}
	last, lastN, _ := strings.Cut(acked[len(acked)-1], " ")
	res, err := l.Find(ctx, ledger.FindOptions{Query: "w" + lastN, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != last {
		t.Errorf("search for w%s in the restored ledger does not find the last acknowledged item %s first: %d hits", lastN, last, len(res.Hits))
	}
	n, err := l.ItemCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src, err := ledger.Open(ctx, db, ledger.OpenOptions{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m, err := src.ItemCount(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != m {
		t.Errorf("restored ledger has %d items, the killed writer's file %d: a clean stop ships every commit", n, m)
	}
	t.Logf("restored %d items (%d acknowledged), check clean", n, len(acked))
}
