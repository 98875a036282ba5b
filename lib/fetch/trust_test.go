package fetch

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/linkledger/linkledger/lib/record"
)

func writeFile(t *testing.T, p, data string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func fileURLOf(p string) string { return "file://" + filepath.ToSlash(p) }

// TestFileAllowList: a record reads a local file only under an allowed
// root, symlinks resolved; nothing is allowed by default.
func TestFileAllowList(t *testing.T) {
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	inside := writeFile(t, filepath.Join(allowed, "sub", "in.txt"), "inside")
	outside := writeFile(t, filepath.Join(dir, "secret.txt"), "secret")
	single := writeFile(t, filepath.Join(dir, "single.txt"), "single")
	sibling := writeFile(t, filepath.Join(dir, "allowed-not", "x.txt"), "sibling")
	if err := os.Symlink(outside, filepath.Join(allowed, "link.txt")); err != nil {
		t.Fatal(err)
	}
	// A root that is itself a symlink allows what it points to.
	if err := os.Symlink(allowed, filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		allow   []string
		path    string
		wantErr string
		want    string
	}{
		{name: "nothing allowed by default", path: inside, wantErr: record.CodeFileNotAllowed},
		{name: "under an allowed folder", allow: []string{allowed}, path: inside, want: "inside"},
		{name: "outside the allowed folder", allow: []string{allowed}, path: outside, wantErr: record.CodeFileNotAllowed},
		{name: "a folder name's prefix is not the folder", allow: []string{allowed}, path: sibling, wantErr: record.CodeFileNotAllowed},
		{name: "dot-dot out of the folder", allow: []string{allowed}, path: filepath.Join(allowed, "..", "secret.txt"), wantErr: record.CodeFileNotAllowed},
		{name: "symlink under the folder pointing outside", allow: []string{allowed}, path: filepath.Join(allowed, "link.txt"), wantErr: record.CodeFileNotAllowed},
		{name: "a file root allows itself", allow: []string{single}, path: single, want: "single"},
		{name: "a file root allows no other file", allow: []string{single}, path: outside, wantErr: record.CodeFileNotAllowed},
		{name: "a symlinked root", allow: []string{filepath.Join(dir, "alias")}, path: inside, want: "inside"},
		{name: "through the symlinked root", allow: []string{allowed}, path: filepath.Join(dir, "alias", "sub", "in.txt"), want: "inside"},
		{name: "missing under an allowed folder", allow: []string{allowed}, path: filepath.Join(allowed, "gone.txt"), wantErr: record.CodeFileRead},
		{name: "missing outside says not allowed", allow: []string{allowed}, path: filepath.Join(dir, "gone.txt"), wantErr: record.CodeFileNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _ := newFetcher(t, Options{AllowFiles: tt.allow})
			rec := fetch(t, f, &record.Record{URL: fileURLOf(tt.path)})
			if tt.wantErr != "" {
				if rec.Error == nil || rec.Error.Code != tt.wantErr || rec.Error.Retryable {
					t.Fatalf("error = %+v, want %s", rec.Error, tt.wantErr)
				}
				if rec.Body != nil {
					t.Errorf("body %q on a refused read", *rec.Body)
				}
				return
			}
			if rec.Error != nil || body(rec) != tt.want {
				t.Fatalf("error %v body %q, want %q", rec.Error, body(rec), tt.want)
			}
		})
	}
}

// TestSpecialFilesRefused: a FIFO, a device, a directory or /dev/stdin is
// refused at once, even when allowed (a FIFO used to hang past --timeout).
func TestSpecialFilesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, tt := range []struct{ path, kind string }{
		{fifo, "named pipe"},
		{"/dev/null", "character device"},
		{dir, "directory"},
		{"/dev/stdin", "not a regular file"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			f, _ := newFetcher(t, Options{AllowFiles: []string{tt.path}, Timeout: time.Hour})
			done := make(chan *record.Record, 1)
			go func() {
				rec, _ := f.Fetch(context.Background(), &record.Record{URL: fileURLOf(tt.path)})
				done <- rec
			}()
			select {
			case rec := <-done:
				if rec.Error == nil || rec.Error.Code != record.CodeFileRead || !strings.Contains(rec.Error.Message, tt.kind) {
					t.Fatalf("error = %+v, want file_read naming %q", rec.Error, tt.kind)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Fetch blocked on a special file")
			}
		})
	}
}

// TestOwnTarget: a record may fetch only its own item's address, and its
// id must be the id of its canonical URL.
func TestOwnTarget(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
	other := writeFile(t, filepath.Join(dir, "other.txt"), "other")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "page") }))
	defer srv.Close()
	victim := srv.URL + "/victim"
	f, _ := newFetcher(t, Options{AllowFiles: []string{dir}})
	own := fileURLOf(p)

	tests := []struct {
		name string
		rec  record.Record
		code string // "" for success
	}{
		{name: "own file", rec: record.Record{URL: own, OriginalURL: own, CanonicalURL: own, ID: record.ItemID(own)}},
		{name: "own page, tracking parameter in original", rec: record.Record{OriginalURL: victim + "?utm_source=x", CanonicalURL: victim, ID: record.ItemID(victim)}},
		{name: "file posing as another item", rec: record.Record{OriginalURL: own, CanonicalURL: victim, ID: record.ItemID(victim)}, code: record.CodeBadInput},
		{name: "url posing as another item", rec: record.Record{URL: fileURLOf(other), CanonicalURL: own, ID: record.ItemID(own)}, code: record.CodeBadInput},
		{name: "forged id", rec: record.Record{OriginalURL: victim, CanonicalURL: victim, ID: record.ItemID(own)}, code: record.CodeBadInput},
		{name: "canonical only, id filled in", rec: record.Record{CanonicalURL: victim}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.rec
			got := fetch(t, f, &rec)
			if tt.code == "" {
				if got.Error != nil || got.Fetch == nil || got.ID != record.ItemID(got.CanonicalURL) {
					t.Fatalf("error %v fetch %+v id %s", got.Error, got.Fetch, got.ID)
				}
				return
			}
			if got.Error == nil || got.Error.Code != tt.code || got.Fetch != nil || got.Body != nil {
				t.Fatalf("error %+v fetch %+v, want %s and nothing fetched", got.Error, got.Fetch, tt.code)
			}
		})
	}
}

func TestPublicAddr(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.5.6.7", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"172.32.0.1", true},
		{"192.168.1.1", false},
		{"fc00::1", false},
		{"fd00:ec2::254", false},
		{"169.254.169.254", false},
		{"169.254.1.1", false},
		{"fe80::1", false},
		{"100.64.0.1", false},
		{"100.100.100.200", false},
		{"100.128.0.1", true},
		{"0.0.0.0", false},
		{"::", false},
		{"0.1.2.3", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"ff02::1", false},
		{"ff0e::1", false},
		{"255.255.255.255", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", true},    // NAT64 of 8.8.8.8
		{"198.18.0.1", false},
		{"192.0.2.1", false},
		{"2001:db8::1", false},
	} {
		a := netip.MustParseAddr(tt.addr)
		if got := PublicAddr(a); got != tt.public {
			t.Errorf("PublicAddr(%s) = %v, want %v", tt.addr, got, tt.public)
		}
	}
	if PublicAddr(netip.Addr{}) {
		t.Error("the zero Addr is public")
	}
}

// TestPublicOnly: with the guard on, a loopback test server is refused at
// connect time (not retried); with it off, the same fetch works.
func TestPublicOnly(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		fmt.Fprint(w, "local")
	}))
	defer srv.Close()

	on, _ := newFetcher(t, Options{PublicOnly: true})
	rec := fetch(t, on, &record.Record{URL: srv.URL + "/x"})
	want := &record.Error{Stage: "fetch", Code: record.CodeBlockedAddress}
	if diff := cmp.Diff(want, errOf(rec)); diff != "" {
		t.Fatalf("error (-want +got):\n%s", diff)
	}
	if !strings.Contains(rec.Error.Message, "127.0.0.1 is not a public address") || rec.Fetch.Attempts != 1 || hits != 0 {
		t.Errorf("message %q attempts %d hits %d", rec.Error.Message, rec.Fetch.Attempts, hits)
	}

	off, _ := newFetcher(t, Options{})
	rec = fetch(t, off, &record.Record{URL: srv.URL + "/x"})
	if rec.Error != nil || body(rec) != "local" {
		t.Fatalf("guard off: error %v body %q", rec.Error, body(rec))
	}
}

// TestPublicOnlyRedirectHop: every redirect hop is checked. The test's
// classifier lets the first loopback server through and refuses the
// second, so the refusal can only come from the hop.
func TestPublicOnlyRedirectHop(t *testing.T) {
	var targetHits int
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits++
		fmt.Fprint(w, "private")
	}))
	defer target.Close()
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/admin", http.StatusFound)
	}))
	defer front.Close()
	targetAddr := netip.MustParseAddrPort(strings.TrimPrefix(target.URL, "http://"))

	for _, guard := range []bool{true, false} {
		f, _ := newFetcher(t, Options{PublicOnly: guard})
		f.blocked = func(ap netip.AddrPort) bool { return ap == targetAddr }
		rec := fetch(t, f, &record.Record{URL: front.URL + "/go"})
		if guard {
			if rec.Error == nil || rec.Error.Code != record.CodeBlockedAddress || rec.Error.Retryable {
				t.Fatalf("guard on: error %+v, want blocked_address", rec.Error)
			}
			if targetHits != 0 {
				t.Fatalf("guard on: the redirect target was reached %d times", targetHits)
			}
			continue
		}
		if rec.Error != nil || body(rec) != "private" {
			t.Fatalf("guard off: error %v body %q", rec.Error, body(rec))
		}
	}
}

// TestSourceFetchersGuarded: a source fetcher's requests go through the
// same guard (a loopback API is refused with --public-only) and cannot
// read local files (a file:// link in an API answer is not followed).
func TestSourceFetchersGuarded(t *testing.T) {
	var hits int
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		fmt.Fprint(w, `{"ok":true}`)
	}))
	defer api.Close()
	get := func(target string) SourceFunc {
		return func(ctx context.Context, hc *http.Client, rec *record.Record) ([]byte, string, string, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
			if err != nil {
				return nil, "", "test", err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return nil, "", "test", err
			}
			defer resp.Body.Close()
			var b strings.Builder
			_, err = fmt.Fprint(&b, resp.Status)
			return []byte(b.String()), "text/plain", "test", err
		}
	}
	xpost := "https://x.com/someone/status/123" // never dialled: the source func answers

	on, _ := newFetcher(t, Options{PublicOnly: true, MaxAttempts: 1, Sources: map[string]SourceFunc{record.SourceX: get(api.URL)}})
	rec := fetch(t, on, &record.Record{URL: xpost})
	if rec.Error == nil || rec.Error.Code != record.CodeBlockedAddress || hits != 0 {
		t.Fatalf("guard on: error %+v, %d hits", rec.Error, hits)
	}
	off, _ := newFetcher(t, Options{MaxAttempts: 1, Sources: map[string]SourceFunc{record.SourceX: get(api.URL)}})
	if rec := fetch(t, off, &record.Record{URL: xpost}); rec.Error != nil || hits != 1 {
		t.Fatalf("guard off: error %+v, %d hits", rec.Error, hits)
	}

	dir := t.TempDir()
	secret := writeFile(t, filepath.Join(dir, "secret.txt"), "swordfish")
	files, _ := newFetcher(t, Options{MaxAttempts: 1, AllowFiles: []string{dir}, Sources: map[string]SourceFunc{record.SourceX: get(fileURLOf(secret))}})
	rec = fetch(t, files, &record.Record{URL: xpost})
	if rec.Error == nil || strings.Contains(body(rec), "swordfish") {
		t.Fatalf("file link from a source: error %+v body %q", rec.Error, body(rec))
	}
}
