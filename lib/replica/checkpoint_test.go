package replica_test

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/replica"
)

// fight is what one run of writers beside Litestream did to the replica.
type fight struct {
	reasons map[string]int // why Litestream re-read the WAL from its start (a snapshot), by reason
	bytes   int64          // bytes in the replica
	files   int
	saves   int
}

var reasonRe = regexp.MustCompile(`reason="([^"]+)"`)

// runFight writes into a fresh ledger for d while Litestream (at debug
// level: every sync is logged with why it snapshots) copies it to a
// file:// replica: one long-lived writer process and short-lived ones (20
// saves each, then close and exit, as ll-save runs do: a closing process
// may checkpoint), plus, when extra is set, a process that runs it with
// the sqlite3 shell every 250 ms (the control: a checkpoint that fights).
func runFight(t *testing.T, bin string, d time.Duration, extra string) fight {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "home", "ll.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	newLedger(t, db)
	repl := filepath.Join(dir, "replica")
	var log syncWriter
	p, err := replica.Start(ctx, replica.Options{DB: db, URL: "file://" + repl, Binary: bin, Stderr: &log, LogLevel: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	saves := 0
	count := func(out []byte) {
		mu.Lock()
		saves += strings.Count(string(out), "\n")
		mu.Unlock()
	}
	long := exec.Command(os.Args[0], "-test.run=^$")
	long.Env = append(os.Environ(), "LL_REPLICA_WRITER="+db)
	var longOut strings.Builder
	long.Stdout = &longOut
	if err := long.Start(); err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			c := exec.Command(os.Args[0], "-test.run=^$")
			c.Env = append(os.Environ(), "LL_REPLICA_WRITER="+db, "LL_REPLICA_WRITER_SAVES=20", "LL_REPLICA_WRITER_FROM="+strconv.Itoa(1_000_000+i*100))
			out, err := c.Output()
			if err != nil {
				t.Errorf("short writer: %v", err)
				return
			}
			count(out)
		}
	}()
	if extra != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(250 * time.Millisecond):
				}
				// busy is an answer too: the checkpoint waits for readers
				_ = exec.Command("sqlite3", db, "PRAGMA busy_timeout=2000; "+extra).Run()
			}
		}()
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	_ = long.Process.Kill()
	_ = long.Wait()
	count([]byte(longOut.String()))
	if err := p.Stop(ctx); err != nil {
		t.Fatalf("stop: %v", err)
	}
	f := fight{reasons: map[string]int{}, saves: saves}
	for _, m := range reasonRe.FindAllStringSubmatch(log.String(), -1) {
		f.reasons[m[1]]++
	}
	_ = filepath.WalkDir(repl, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				f.bytes += fi.Size()
				f.files++
			}
		}
		return nil
	})
	return f
}

func (f fight) String() string {
	var rs []string
	for r, n := range f.reasons {
		rs = append(rs, r+": "+strconv.Itoa(n))
	}
	sort.Strings(rs)
	return strconv.Itoa(f.saves) + " saves, " + strconv.Itoa(f.files) + " replica files, " + strconv.FormatInt(f.bytes, 10) + " replica bytes, snapshots by reason: [" + strings.Join(rs, "; ") + "]"
}

// TestCheckpointsLeftToLitestream: linkledger's own checkpoints (SQLite's
// automatic PASSIVE checkpoint every 1000 WAL pages, the checkpoint of a
// process closing its last connection) never make Litestream snapshot
// while it runs: it holds a read transaction, so no other connection can
// restart or truncate the WAL under it. The control run adds a process
// that checkpoints with TRUNCATE, which does force snapshots, so the
// count is one that can fail.
func TestCheckpointsLeftToLitestream(t *testing.T) {
	bin := litestream(t)
	d := writeSeconds(t)
	got := runFight(t, bin, d, "")
	t.Logf("linkledger writers, %s: %s", d, got)
	if got.saves < 10 {
		t.Fatalf("writers saved only %d items", got.saves)
	}
	if len(got.reasons) > 0 {
		t.Errorf("Litestream snapshotted because of linkledger's checkpoints: %s", got)
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("control skipped: no sqlite3 shell on PATH")
	}
	ctl := runFight(t, bin, d, "PRAGMA wal_checkpoint(TRUNCATE);")
	t.Logf("control, TRUNCATE checkpoints every 250 ms, %s: %s", d, ctl)
	if len(ctl.reasons) == 0 {
		t.Errorf("the control's TRUNCATE checkpoints forced no snapshot: the count cannot see a fight (%s)", ctl)
	}
}
