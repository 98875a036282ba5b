package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

// ids are the ids of recs, in order.
func ids(recs []*record.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func TestClaimPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := openTest(t)
	s.now = func() time.Time { return now }
	for i := range 5 {
		if _, err := s.Save(ctx, item(fmt.Sprintf("https://claim.test/%d", i)), SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(limit int, lease time.Duration) []string {
		t.Helper()
		recs, err := s.ClaimPending(ctx, QueueOptions{Limit: limit}, lease)
		if err != nil {
			t.Fatal(err)
		}
		return ids(recs)
	}
	count := func() int {
		t.Helper()
		n, err := s.CountClaimable(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// one loop claims three, the next gets the other two, a third none
	a := claim(3, time.Minute)
	b := claim(0, ClaimLease)
	if len(a) != 3 || len(b) != 2 {
		t.Fatalf("claims: %v then %v, want 3 then 2", a, b)
	}
	for _, id := range b {
		for _, other := range a {
			if id == other {
				t.Fatalf("%s claimed twice: %v and %v", id, a, b)
			}
		}
	}
	if c := claim(0, 0); len(c) != 0 {
		t.Fatalf("every item is claimed, yet a third loop got %v", c)
	}
	if n := count(); n != 0 {
		t.Fatalf("CountClaimable = %d, want 0", n)
	}
	// claims do not hide items from the plain queue view (a read)
	if q, err := s.Queue(ctx, QueueOptions{Queue: QueuePending}); err != nil || len(q) != 5 {
		t.Fatalf("Queue(pending) = %d records, %v; want all 5", len(q), err)
	}

	// an indexed (or failed) item's claim is released at once
	done := item(fmt.Sprintf("https://claim.test/%d", 0))
	if a[0] != done.ID {
		t.Fatalf("claims are oldest first: got %v", a)
	}
	done.Fail(record.StageFetch, record.CodeHTTPStatus, "503", true)
	if _, err := s.Index(ctx, done, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	var held int
	if err := s.DB().Get(&held, `SELECT count(*) FROM ingest_claims WHERE item_id = ?`, done.ID); err != nil || held != 0 {
		t.Fatalf("claim rows of the failed item: %d, %v; want 0", held, err)
	}

	// the lease of loop a (a minute) ends: its two unfinished items are
	// taken over; b's (ClaimLease) are still its own, and the failed
	// item waits for its retry (due in a minute too: taken with them)
	now = now.Add(time.Minute + time.Second)
	if n := count(); n != 3 {
		t.Fatalf("CountClaimable after a's lease = %d, want 3", n)
	}
	got := claim(0, 0)
	want := map[string]bool{a[0]: true, a[1]: true, a[2]: true}
	if len(got) != 3 {
		t.Fatalf("after a's lease ended: claimed %v, want a's items %v", got, a)
	}
	for _, id := range got {
		if !want[id] {
			t.Fatalf("claimed %s, which b still holds (got %v, a had %v)", id, got, a)
		}
	}
	// and b's items after its own lease
	now = now.Add(ClaimLease)
	if got := claim(0, 0); len(got) != 5 {
		t.Fatalf("after every lease ended: claimed %v, want all 5", got)
	}
}
