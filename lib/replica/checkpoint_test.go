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
	reasons   map[string]int // why Litestream re-read the WAL from its start (a snapshot), by reason
	snapshots int            // syncs that snapshotted (the first always does)
	busy, ok  int            // the control's checkpoints: refused (busy) and done
	wal, file int64          // -wal and database file bytes before Litestream stops
	bytes     int64          // bytes in the replica
	files     int
	saves     int
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
	var p *replica.Process
	if bin != "" {
		var err error
		p, err = replica.Start(ctx, replica.Options{DB: db, URL: "file://" + repl, Binary: bin, Stderr: &log, LogLevel: "debug"})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Stop(ctx)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	saves, busy, ok := 0, 0, 0
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
				// the checkpoint's result: busy|log|checkpointed
				out, err := exec.Command("sqlite3", db, "PRAGMA busy_timeout=2000; "+extra).Output()
				lines := strings.Split(strings.TrimSpace(string(out)), "\n")
				mu.Lock()
				switch {
				case err != nil:
					t.Errorf("sqlite3 %s: %v", extra, err)
				case strings.HasPrefix(lines[len(lines)-1], "1|"):
					busy++
				default:
					ok++
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(d)
	close(stop)
	wg.Wait()
	_ = long.Process.Kill()
	_ = long.Wait()
	count([]byte(longOut.String()))
	var walBytes, dbBytes int64
	if fi, err := os.Stat(db + "-wal"); err == nil {
		walBytes = fi.Size()
	}
	if fi, err := os.Stat(db); err == nil {
		dbBytes = fi.Size()
	}
	if p != nil {
		if err := p.Stop(ctx); err != nil {
			t.Fatalf("stop: %v", err)
		}
	}
	f := fight{reasons: map[string]int{}, saves: saves, busy: busy, ok: ok, wal: walBytes, file: dbBytes}
	f.snapshots = strings.Count(log.String(), " snap=true")
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
	if f.busy+f.ok > 0 {
		rs = append(rs, "control checkpoints busy "+strconv.Itoa(f.busy)+", done "+strconv.Itoa(f.ok))
	}
	for r, n := range f.reasons {
		rs = append(rs, r+": "+strconv.Itoa(n))
	}
	sort.Strings(rs)
	return strconv.Itoa(f.saves) + " saves, " + strconv.Itoa(f.snapshots) + " snapshots, " + strconv.Itoa(f.files) + " replica files, " + strconv.FormatInt(f.bytes, 10) + " replica bytes, -wal " + strconv.FormatInt(f.wal, 10) + " bytes beside a " + strconv.FormatInt(f.file, 10) + "-byte file, snapshots by reason: [" + strings.Join(rs, "; ") + "]"
}

// TestCheckpointsLeftToLitestream: linkledger's own checkpoints (SQLite's
// automatic PASSIVE checkpoint at 1000 WAL pages in the committing
// process, the checkpoint of a process closing its last connection) never
// make Litestream snapshot again: over the run it snapshots once, at its
// first sync. What keeps them apart is Litestream's read transaction: no
// other connection can restart or truncate the WAL under it. The control
// run shows that mechanism: a process checkpointing with TRUNCATE every
// 250 ms is refused (busy) while Litestream reads, holding the write lock
// while it waits (the writers stall), and still no snapshot follows.
func TestCheckpointsLeftToLitestream(t *testing.T) {
	bin := litestream(t)
	d := writeSeconds(t)
	if os.Getenv("LL_REPLICA_BASELINE") != "" {
		t.Logf("without Litestream, %s: %s", d, runFight(t, "", d, ""))
	}
	got := runFight(t, bin, d, "")
	t.Logf("linkledger writers, %s: %s", d, got)
	if got.saves < 10 {
		t.Fatalf("writers saved only %d items", got.saves)
	}
	if got.snapshots != 1 || len(got.reasons) > 0 {
		t.Errorf("Litestream snapshotted again while linkledger wrote (want the first sync's snapshot only): %s", got)
	}
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Skip("control skipped: no sqlite3 shell on PATH")
	}
	ctl := runFight(t, bin, d, "PRAGMA wal_checkpoint(TRUNCATE);")
	t.Logf("control, TRUNCATE checkpoints every 250 ms, %s: %s", d, ctl)
	if ctl.busy == 0 {
		t.Errorf("no TRUNCATE checkpoint was refused while Litestream read: its read transaction does not hold the WAL (%s)", ctl)
	}
}
