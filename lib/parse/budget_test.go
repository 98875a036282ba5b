package parse

import (
	"context"
	"testing"
	"time"
)

func TestBudget(t *testing.T) {
	b := NewBudget(100)
	ctx := context.Background()
	a, err := b.Acquire(ctx, 80)
	if err != nil || a != 80 {
		t.Fatalf("Acquire(80) = %d, %v", a, err)
	}
	got := make(chan int64)
	go func() {
		n, _ := b.Acquire(ctx, 50)
		got <- n
	}()
	// The second acquire cannot complete while 80 of 100 are taken; the
	// check below does not depend on timing: InUse stays 80 until Release.
	if n := b.InUse(); n != 80 {
		t.Fatalf("in use %d, want 80", n)
	}
	b.Release(a)
	if n := <-got; n != 50 {
		t.Fatalf("second Acquire took %d, want 50", n)
	}
	// A weight over the whole budget is clamped to it: it runs alone.
	b.Release(50)
	if n, _ := b.Acquire(ctx, 1000); n != 100 {
		t.Fatalf("Acquire(1000) took %d, want the whole budget 100", n)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := b.Acquire(cctx, 1); err == nil {
		t.Fatal("Acquire on a full budget returned without the context ending")
	}
}
