package ledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// TestTokens: a token added is checked by its secret only, with its name
// and scope; a wrong, empty, oversized or revoked secret fails with
// ErrBadToken; the secret is nowhere in the database file; the file is
// made mode 0600; names and scopes are checked.
func TestTokens(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "l.db")
	l, err := ledger.Open(ctx, db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(db, 0o644); err != nil {
		t.Fatal(err)
	}
	sec, err := l.AddToken(ctx, "agent:build-box", "write")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sec, ledger.TokenPrefix) || len(sec) != len(ledger.TokenPrefix)+43 {
		t.Fatalf("secret %q: want %s and 43 characters", sec, ledger.TokenPrefix)
	}
	fi, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("database mode %v after AddToken: want 0600", fi.Mode().Perm())
	}
	sec2, err := l.AddToken(ctx, "human:phone", "read")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := l.CheckToken(ctx, sec)
	if err != nil || tok.Name != "agent:build-box" || tok.Scope != "write" || tok.LastUsed.IsZero() || tok.Actor() != "agent:build-box" {
		t.Fatalf("CheckToken = %+v, %v", tok, err)
	}
	if tok, err := l.CheckToken(ctx, sec2); err != nil || tok.Actor() != spec.ActorHuman || tok.Scope != "read" {
		t.Fatalf("CheckToken(human:phone) = %+v, %v", tok, err)
	}
	for _, bad := range []string{"", sec + "x", sec[:len(sec)-1], strings.Repeat("a", 1<<20), strings.ToUpper(sec)} {
		if _, err := l.CheckToken(ctx, bad); !errors.Is(err, ledger.ErrBadToken) {
			t.Errorf("CheckToken(%.20q...) = %v: want ErrBadToken", bad, err)
		}
	}
	var exists *ledger.TokenExistsError
	if _, err := l.AddToken(ctx, "agent:build-box", "read"); !errors.As(err, &exists) {
		t.Errorf("AddToken of a taken name = %v: want TokenExistsError", err)
	}
	for _, c := range [][2]string{{"build-box", "read"}, {"agent:", "read"}, {"human", "read"}, {"human:a b", "read"}, {"agent:x", "owner"}, {"agent:x", ""}} {
		if _, err := l.AddToken(ctx, c[0], c[1]); err == nil {
			t.Errorf("AddToken(%q, %q): want an error", c[0], c[1])
		}
	}
	ts, err := l.Tokens(ctx)
	if err != nil || len(ts) != 2 || ts[0].Name != "agent:build-box" || ts[1].Name != "human:phone" {
		t.Fatalf("Tokens = %+v, %v", ts, err)
	}
	if err := l.RevokeToken(ctx, "agent:build-box"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.CheckToken(ctx, sec); !errors.Is(err, ledger.ErrBadToken) {
		t.Errorf("CheckToken after revoke = %v: want ErrBadToken", err)
	}
	var none *ledger.NoTokenError
	if err := l.RevokeToken(ctx, "agent:build-box"); !errors.As(err, &none) {
		t.Errorf("second revoke = %v: want NoTokenError", err)
	}
	l.Close()
	for _, p := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if strings.Contains(string(b), sec2) || strings.Contains(string(b), sec2[len(ledger.TokenPrefix):]) {
			t.Errorf("%s holds a token's secret", p)
		}
	}
}

func TestScopeAllows(t *testing.T) {
	for _, c := range []struct {
		have, need string
		ok         bool
	}{
		{"read", "read", true}, {"read", "write", false}, {"write", "read", true}, {"write", "write", true},
		{"write", "admin", false}, {"admin", "write", true}, {"admin", "admin", true},
		{"", "read", false}, {"root", "read", false}, {"admin", "", false}, {"Read", "read", false},
	} {
		if got := ledger.ScopeAllows(c.have, c.need); got != c.ok {
			t.Errorf("ScopeAllows(%q, %q) = %v", c.have, c.need, got)
		}
	}
}

// TestRevokeEndsWebSessions: revoking a token ends the web sessions signed
// in with it at once, so a token of the same name added later does not
// bring an old session (a lost phone's cookie) back to life.
func TestRevokeEndsWebSessions(t *testing.T) {
	ctx := context.Background()
	l, err := ledger.Open(ctx, filepath.Join(t.TempDir(), "l.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.AddToken(ctx, "human:phone", "write"); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	id, _, err := l.NewTokenSession(ctx, "human:phone", "write", now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := l.TokenSession(ctx, id, now); err != nil || !ok {
		t.Fatalf("session before revocation: ok %v, %v", ok, err)
	}
	if err := l.RevokeToken(ctx, "human:phone"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AddToken(ctx, "human:phone", "write"); err != nil {
		t.Fatal(err)
	}
	if name, _, ok, err := l.TokenSession(ctx, id, now); err != nil || ok {
		t.Fatalf("the old session after revoke and a new token of the same name: ok %v (%q), %v; want ended", ok, name, err)
	}
}
