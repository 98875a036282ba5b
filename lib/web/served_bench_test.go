package web

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkSessionCheck is the server time of the cheapest page
// (/status.json) in a loopback session and in a served-mode session (the
// session row with the token's name and scope, and the token re-checked:
// here over the test's map, so the real TokenScope adds its own lookup).
func BenchmarkSessionCheck(b *testing.B) {
	l := openLedger(b, filepath.Join(b.TempDir(), "ll.db"))
	now := time.Now()
	run := func(b *testing.B, h http.Handler, host string, c *http.Cookie) {
		req := httptest.NewRequest("GET", "http://"+host+"/status.json", nil)
		req.AddCookie(c)
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != 200 {
				b.Fatalf("status %d", w.Code)
			}
		}
	}
	b.Run("loopback", func(b *testing.B) {
		srv, err := New(Options{Ledger: l, Port: 7474, Token: NewToken()})
		if err != nil {
			b.Fatal(err)
		}
		id, _, err := l.NewSession(b.Context(), 7474, now)
		if err != nil {
			b.Fatal(err)
		}
		run(b, srv.Handler(), "127.0.0.1:7474", &http.Cookie{Name: "ll_session_7474", Value: id})
	})
	b.Run("served", func(b *testing.B) {
		tk := &testTokens{}
		tk.add(writeSecret, "agent:phone", "write")
		srv, err := New(Options{Ledger: l, Served: &Served{Origins: []string{"https://ledger.example"}, SignIn: tk.signIn, TokenScope: tk.scope}})
		if err != nil {
			b.Fatal(err)
		}
		id, _, err := l.NewTokenSession(b.Context(), "agent:phone", "write", now)
		if err != nil {
			b.Fatal(err)
		}
		run(b, srv.Handler(), "ledger.example", &http.Cookie{Name: "ll_session", Value: id})
	})
}
