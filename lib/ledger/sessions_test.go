package ledger_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
)

// TestTokenSessions: a served-mode session keeps its token's name and
// scope until it expires; a loopback session is not one (nor the other
// way round); sign-out ends one session, EndTokenSessions every session
// of a name.
func TestTokenSessions(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	now := time.Now()
	a, exp, err := l.NewTokenSession(ctx, "agent:phone", "write", now)
	if err != nil || !exp.After(now.Add(ledger.SessionTTL-time.Minute)) {
		t.Fatalf("NewTokenSession: %v, expires %v", err, exp)
	}
	b, _, _ := l.NewTokenSession(ctx, "agent:phone", "read", now)
	c, _, _ := l.NewTokenSession(ctx, "agent:tablet", "read", now)
	if name, scope, ok, err := l.TokenSession(ctx, a, now); !ok || err != nil || name != "agent:phone" || scope != "write" {
		t.Errorf("TokenSession: %q %q %v %v", name, scope, ok, err)
	}
	if _, _, ok, _ := l.TokenSession(ctx, a, now.Add(ledger.SessionTTL+time.Minute)); ok {
		t.Error("a token session is valid after its expiry")
	}
	if _, _, err := l.NewTokenSession(ctx, "", "read", now); err == nil {
		t.Error("a token session without a name was made")
	}
	loop, _, err := l.NewSession(ctx, 7474, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := l.TokenSession(ctx, loop, now); ok {
		t.Error("a loopback session is a token session")
	}
	if ok, _ := l.SessionValid(ctx, a, 7474, now); ok {
		t.Error("a token session is a loopback session")
	}
	if err := l.EndTokenSession(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := l.TokenSession(ctx, c, now); ok {
		t.Error("a signed-out token session is still valid")
	}
	if n, err := l.EndTokenSessions(ctx, "agent:phone"); n != 2 || err != nil {
		t.Errorf("EndTokenSessions: %d %v, want 2", n, err)
	}
	for _, id := range []string{a, b} {
		if _, _, ok, _ := l.TokenSession(ctx, id, now); ok {
			t.Error("a session of an ended token is still valid")
		}
	}
}
