package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// stressOpenEnv names the database a re-executed test binary opens once
// and exits (TestConcurrentCreate's child processes).
const stressOpenEnv = "LINKLEDGER_STRESS_OPEN"

func TestMain(m *testing.M) {
	if p := os.Getenv(stressOpenEnv); p != "" {
		s, err := Open(context.Background(), p, Options{})
		if err != nil {
			var se sqlite3.Error
			errors.As(err, &se)
			fmt.Fprintln(os.Stderr, err, int(se.ExtendedCode))
			os.Exit(1)
		}
		s.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestConcurrentCreate opens many brand-new databases, each from several
// processes at once (this test binary re-executed), and fails if any open
// fails: a new file's switch to WAL and its first migrations must wait for
// each other instead of failing with "database is locked".
func TestConcurrentCreate(t *testing.T) {
	t.Parallel()
	rounds, openers := 60, 6
	if testing.Short() {
		rounds = 5
	}
	var failed []string
	for r := 0; r < rounds; r++ {
		p := filepath.Join(t.TempDir(), "new.db")
		var wg sync.WaitGroup
		var mu sync.Mutex
		for g := 0; g < openers; g++ {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), stressOpenEnv+"="+p)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := cmd.Wait(); err != nil {
					mu.Lock()
					failed = append(failed, fmt.Sprintf("round %d: %v: %s", r, err, bytes.TrimSpace(stderr.Bytes())))
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	t.Logf("%d of %d opens failed", len(failed), rounds*openers)
	for _, f := range failed {
		t.Error(f)
	}
}
