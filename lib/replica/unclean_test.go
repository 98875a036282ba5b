package replica_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/replica"
)

// TestLitestreamKilledMidWrite: Litestream itself is killed with SIGKILL
// while the writer goes on (the machine's power cut, as far as the replica
// can tell). The replica then lacks the last writes, but what it holds is
// the ledger as of one moment: restored, it passes the checks, and the
// writer's items it holds are a prefix of the acknowledged ones, in order,
// with no gap (one writer commits them one after another), and not empty.
func TestLitestreamKilledMidWrite(t *testing.T) {
	bin := litestream(t)
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "home", "ll.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		t.Fatal(err)
	}
	newLedger(t, db)
	url := "file://" + filepath.Join(dir, "replica")
	var log syncWriter
	p, err := replica.Start(ctx, replica.Options{DB: db, URL: url, Binary: bin, Stderr: &log})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(ctx)
	w := exec.Command(os.Args[0], "-test.run=^$")
	w.Env = append(os.Environ(), "LL_REPLICA_WRITER="+db)
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
			if id, _, ok := strings.Cut(sc.Text(), " "); ok {
				acked = append(acked, id)
			}
		}
	}()
	d := writeSeconds(t) / 2
	time.Sleep(d)
	if err := syscall.Kill(-p.Pid(), syscall.SIGKILL); err != nil { // the group: Litestream and its guard
		t.Fatal(err)
	}
	<-p.Done()
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "exited by itself") {
		t.Errorf("Err after Litestream was killed: %v", err)
	}
	// the writer goes on a moment after Litestream died
	time.Sleep(time.Second)
	_ = w.Process.Kill()
	<-read
	_ = w.Wait()

	restored := filepath.Join(dir, "copy.db")
	if err := replica.Restore(ctx, url, restored, replica.RestoreOptions{Binary: bin}); err != nil {
		t.Fatalf("restore: %v\n%s", err, log.String())
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
	held, gap := 0, -1
	for i, id := range acked {
		_, err := l.Export(ctx, id, false)
		switch {
		case err == nil && gap >= 0:
			t.Fatalf("acknowledged item %d is in the replica but item %d before it is not: not one moment's ledger", i, gap)
		case err == nil:
			held++
		case gap < 0:
			gap = i
		}
	}
	if held == 0 {
		t.Fatalf("the replica holds none of %d acknowledged items after %s", len(acked), d)
	}
	t.Logf("Litestream killed after %s: the replica holds the first %d of %d acknowledged items, check clean", d, held, len(acked))
}
