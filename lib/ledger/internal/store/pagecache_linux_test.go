package store

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestPagePool runs in a child process, since only a process's first Open
// can set the pool: the child opens a store with a pool, indexes and
// searches, and checks that SQLite's page cache lives in the pool.
func TestPagePool(t *testing.T) {
	t.Parallel()
	if os.Getenv("LL_TEST_PAGE_POOL_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPagePool$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LL_TEST_PAGE_POOL_CHILD="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return
	}
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(os.Getenv("LL_TEST_PAGE_POOL_CHILD"), "pool.db"), Options{PagePool: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	addFiller(t, s, 20)
	res := search(t, s, SearchOptions{Text: "alpha lorem"})
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	// the pool is rounded up to whole 2 MB huge pages: 64 slots become
	// all the slots one huge page holds
	if poolSlots*poolSlotSize > hugePage || (poolSlots+1)*poolSlotSize <= hugePage {
		t.Fatalf("page-cache pool of %d slots of %d bytes, want as many as fill one 2 MB page", poolSlots, poolSlotSize)
	}
	if n := pagePoolUsed(); n <= 0 || n > poolSlots {
		t.Fatalf("page-cache pool slots in use = %d, want 1..%d", n, poolSlots)
	}
}
