package fetch

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
)

// TestLoopbackDial: under LINKLEDGER_LOOPBACK_ONLY=1 a host name other
// than localhost, or an IP that is not loopback, never reaches the inner
// dialer (so no lookup and no connection); loopback does. Without the
// variable the inner dialer is used as it is.
func TestLoopbackDial(t *testing.T) {
	var dialled []string
	inner := func(_ context.Context, _, address string) (net.Conn, error) {
		dialled = append(dialled, address)
		return nil, errors.New("inner")
	}
	t.Setenv(LoopbackOnlyEnv, "1")
	dial := loopbackDial(inner)
	for _, a := range []string{"example.com:80", "203.0.113.9:443", "[2001:db8::1]:80", "10.0.0.1:80", "localhost.example.com:80", "nonsense"} {
		_, err := dial(context.Background(), "tcp", a)
		var b *blockedError
		if !errors.As(err, &b) || !strings.Contains(err.Error(), LoopbackOnlyEnv) {
			t.Errorf("%s: err = %v, want a loopback-only refusal", a, err)
		}
	}
	if len(dialled) != 0 {
		t.Fatalf("dialled %v under loopback-only", dialled)
	}
	for _, a := range []string{"127.0.0.1:8080", "[::1]:80", "localhost:1", "127.9.9.9:1", "[::ffff:127.0.0.1]:80"} {
		if _, err := dial(context.Background(), "tcp", a); err == nil || err.Error() != "inner" {
			t.Errorf("%s: err = %v, want the inner dialer's", a, err)
		}
	}
	if len(dialled) != 5 {
		t.Errorf("dialled %v, want the 5 loopback addresses", dialled)
	}
	t.Setenv(LoopbackOnlyEnv, "")
	dialled = nil
	if _, err := loopbackDial(inner)(context.Background(), "tcp", "example.com:80"); err == nil || err.Error() != "inner" || len(dialled) != 1 {
		t.Errorf("without the variable: err = %v, dialled %v", err, dialled)
	}
}
