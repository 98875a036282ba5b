package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
)

// selfSigned writes a certificate for 127.0.0.1 and its key (PEM) in dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "linkledger test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	c, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}

// TestTLS: with a certificate, the served handler speaks HTTPS only: a
// client trusting the certificate is served, plain HTTP gets nothing
// served, and a key that is not the certificate's is refused at start.
func TestTLS(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	l, err := ledger.Open(ctx, filepath.Join(dir, "ll.db"), ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := l.AddToken(ctx, "agent:box", "read")
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := selfSigned(t, dir)
	cfg, err := TLSConfig(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", true, false)
	if err != nil {
		t.Fatal(err)
	}
	base := BaseURL(ln, true)
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Errorf("BaseURL = %q", base)
	}
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, New(Options{Ledger: l, MCP: mcp.Options{}}), cfg) }()
	t.Cleanup(func() { cancel(); <-done; l.Close() })

	post := func(c *http.Client, url string) (int, error) {
		req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		defer res.Body.Close()
		io.Copy(io.Discard, res.Body)
		return res.StatusCode, nil
	}
	good := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	if code, err := post(good, base); err != nil || code != http.StatusOK {
		t.Errorf("HTTPS with the certificate trusted: %d %v", code, err)
	}
	if code, err := post(http.DefaultClient, base); err == nil {
		t.Errorf("HTTPS with an untrusted certificate: served (%d)", code)
	}
	plain := "http://" + strings.TrimPrefix(base, "https://")
	if code, err := post(http.DefaultClient, plain); err == nil && code == http.StatusOK {
		t.Errorf("plain HTTP to the TLS port was served")
	}
	_, otherKey, _ := selfSigned(t, t.TempDir())
	if _, err := TLSConfig(certFile, otherKey); err == nil {
		t.Error("TLSConfig took a key that is not the certificate's")
	}
}

// TestAPIMount: a handler given as Options.API is behind the token
// middleware at /api/v1/ and reads the identity from the context.
func TestAPIMount(t *testing.T) {
	s := start(t, func(o *Options) {
		o.API = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id, ok := IdentityFrom(r.Context())
			fmt.Fprintf(w, "%v %s %s %s", ok, id.Name, id.Scope, id.Actor())
		})
	})
	tok := s.token("human:laptop", "write")
	if code, body := s.post("/api/v1/find", "{}", "Authorization: Bearer "+tok); code != http.StatusOK || body != "true human:laptop write human" {
		t.Errorf("with a token: %d %q", code, body)
	}
	if code, _ := s.post("/api/v1/find", "{}"); code != http.StatusUnauthorized {
		t.Errorf("without a token: %d", code)
	}
	if code, _ := s.post("/api/v1/find", "{}", "Authorization: Bearer "+tok, "Origin: https://evil.example"); code != http.StatusForbidden {
		t.Errorf("cross-origin: %d", code)
	}
	if _, ok := IdentityFrom(context.Background()); ok {
		t.Error("an identity in a bare context")
	}
}
