package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/mcp"
)

// TestServeWebAndReplica: the faces linkledger serve mounts beside /mcp,
// through the real binary. The web app at / asks for a token (401 with
// the form), a human:DEVICE write token signs in and saves from the page
// as human; after `linkledger token revoke` the same browser is signed
// out. With --replica file://DIR, Litestream copies the ledger while the
// server writes; after a clean stop `linkledger restore-replica` gives a
// ledger that checks clean and holds every item the server acknowledged.
func TestServeWebAndReplica(t *testing.T) {
	ls := litestreamBinary()
	if ls == "" {
		t.Skip("no litestream binary (make setup builds bin/litestream)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	phone := lastWord(run(t, dir, "linkledger", "token", "add", "human:phone", "--scope", "write", "--db", db))
	agent := lastWord(run(t, dir, "linkledger", "token", "add", "agent:box", "--scope", "write", "--db", db))
	replicaDir := filepath.Join(t.TempDir(), "replica")
	base, stop := startServeEnv(t, dir, []string{"LINKLEDGER_LITESTREAM=" + ls}, "--db", db, "--replica", "file://"+replicaDir)

	// the web app: the token form without a session
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	res, err := hc.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `name="token"`) {
		t.Fatalf("GET / without a session: %d, want 401 and the token form\n%s", res.StatusCode, body)
	}
	post := func(path string, form url.Values) int {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	if code := post("/signin", url.Values{"token": {phone}}); code != http.StatusOK {
		t.Fatalf("sign-in with the phone's token: %d (redirects followed), want 200", code)
	}
	if code := post("/save", url.Values{"url": {"http://127.0.0.1:9/from-the-phone"}}); code != http.StatusOK {
		t.Fatalf("save from the page: %d", code)
	}
	var item struct{ ID string }
	if err := json.Unmarshal([]byte(run(t, dir, "linkledger", "show", "http://127.0.0.1:9/from-the-phone", "--db", db)), &item); err != nil || item.ID == "" {
		t.Fatalf("the phone's save: %v", err)
	}
	if code := post("/items/"+item.ID+"/annotate", url.Values{"type": {"note"}, "note": {"read on the train"}}); code != http.StatusOK {
		t.Fatalf("a note from the page: %d", code)
	}

	// agents write through /mcp meanwhile; every acknowledged save counted
	cs, err := connectHTTP(t, base, agent)
	if err != nil {
		t.Fatal(err)
	}
	schemas := outputSchemas(t, cs)
	// the server fetches public addresses only (no --private-fetch): a
	// write token cannot make it read this machine's own services
	srv := newTestServer()
	defer srv.Close()
	var probe mcp.SaveOutput
	call(t, cs, schemas, "save", map[string]any{"url": srv.URL + "/quokka.html", "wait": 20}, &probe)
	if b, _ := json.Marshal(probe.Item); probe.Item.Status != "failed" || !strings.Contains(string(b), "not a public address") {
		t.Fatalf("a loopback page saved through serve: %s\nwant failed as not a public address", b)
	}
	var acked []string
	for i := 0; i < 40; i++ {
		u := "http://127.0.0.1:9/agent/" + string(rune('a'+i%26)) + "/" + time.Now().Format("150405.000000")
		var out mcp.SaveOutput
		call(t, cs, schemas, "save", map[string]any{"url": u}, &out)
		acked = append(acked, out.Item.ID)
	}

	// revoked: the browser's next request is the sign-in page again
	run(t, dir, "linkledger", "token", "revoke", "human:phone", "--db", db)
	if code := post("/save", url.Values{"url": {"http://127.0.0.1:9/after-revoke"}}); code != http.StatusUnauthorized {
		t.Errorf("save after the token was revoked: %d, want 401", code)
	}

	// a clean stop flushes the replica; restore it elsewhere
	stop()
	restored := filepath.Join(t.TempDir(), "restored.db")
	cmd := exec.Command("linkledger", "restore-replica", "file://"+replicaDir, "--db", restored)
	cmd.Env = append(mcpEnv(dir), "LINKLEDGER_LITESTREAM="+ls)
	outb, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("restore-replica: %v\n%s", err, stderr)
	}
	out := string(outb)
	if !strings.Contains(out, `"restore"`) {
		t.Fatalf("restore-replica: %s", out)
	}
	shown := run(t, dir, "linkledger", "show", "http://127.0.0.1:9/from-the-phone", "--db", restored)
	var rec struct {
		Annotations []struct{ Actor, Text string }
	}
	if err := json.Unmarshal([]byte(shown), &rec); err != nil {
		t.Fatal(err)
	}
	// a human:DEVICE token writes as human (ledger.TokenActor), on the
	// web app as on /mcp
	if len(rec.Annotations) != 1 || rec.Annotations[0].Actor != "human" || rec.Annotations[0].Text != "read on the train" {
		t.Fatalf("the phone's note in the restored ledger: %+v, want one by human", rec.Annotations)
	}
	for _, id := range acked {
		run(t, dir, "linkledger", "show", id, "--db", restored)
	}
	if _, err := os.Stat(restored); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "linkledger", "check", "--db", restored)
}

// TestServeKilledReplica: linkledger serve --replica killed with SIGKILL
// right after its last acknowledged save: Litestream, told once by the
// kernel that its parent died, ships what is left, and a restore holds
// every save the server acknowledged. (Before the guard in lib/replica the
// kernel's repeated SIGTERMs cut Litestream's final sync short: 36 to 39
// of 40 came back.)
func TestServeKilledReplica(t *testing.T) {
	ls := litestreamBinary()
	if ls == "" {
		t.Skip("no litestream binary (make setup builds bin/litestream)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	agent := lastWord(run(t, dir, "linkledger", "token", "add", "agent:box", "--scope", "write", "--db", db))
	replicaDir := filepath.Join(t.TempDir(), "replica")
	bin, err := exec.LookPath("linkledger")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--no-worker", "--replica", "file://"+replicaDir)
	cmd.Env = append(mcpEnv(dir), "LINKLEDGER_LITESTREAM="+ls)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	first := make([]byte, 64)
	n, _ := out.Read(first)
	base := strings.TrimSpace(string(first[:n]))
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Fatalf("first line of linkledger serve: %q", base)
	}
	cs, err := connectHTTP(t, base, agent)
	if err != nil {
		t.Fatal(err)
	}
	schemas := outputSchemas(t, cs)
	acked := map[string]bool{}
	for i := 0; i < 40; i++ {
		var o mcp.SaveOutput
		call(t, cs, schemas, "save", map[string]any{"url": "http://127.0.0.1:9/killed/" + strings.Repeat("x", i%5) + time.Now().Format("150405.000000")}, &o)
		acked[o.Item.ID] = true
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// Litestream ships the rest and exits on its own; restore until the
	// replica holds as many items as were acknowledged, for at most 30 s
	restored := filepath.Join(t.TempDir(), "restored.db")
	var items int
	for deadline := time.Now().Add(30 * time.Second); ; {
		os.Remove(restored)
		c := exec.Command(bin, "restore-replica", "file://"+replicaDir, "--db", restored, "--force")
		c.Env = append(mcpEnv(dir), "LINKLEDGER_LITESTREAM="+ls)
		b, err := c.Output()
		var r struct {
			Restore struct {
				Items int    `json:"items"`
				Check string `json:"check"`
			} `json:"restore"`
		}
		if err == nil && json.Unmarshal(b, &r) == nil {
			items = r.Restore.Items
			if r.Restore.Check != "ok" {
				t.Fatalf("restored ledger check: %s", b)
			}
			if items >= len(acked) {
				break
			}
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if items != len(acked) {
		t.Fatalf("restored %d items, %d acknowledged", items, len(acked))
	}
	for id := range acked {
		run(t, dir, "linkledger", "show", id, "--db", restored)
	}
}
