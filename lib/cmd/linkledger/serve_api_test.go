package linkledger

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
	"github.com/linkledger/linkledger/lib/record"
	"github.com/linkledger/linkledger/lib/remote"
	"github.com/linkledger/linkledger/lib/serve"
)

// TestServedAPI mounts servedAPI in the served handler as `linkledger
// serve` does, with real tokens of the ledger: the front command with
// LINKLEDGER_URL gets show's bytes as locally with a read token; an
// unknown token is refused by serve's middleware (exit 1); a read token
// cannot save (exit 1), and nothing is written.
func TestServedAPI(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(ctx, db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Save(ctx, &record.Record{URL: "https://example.com/quokka"}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	read, err := st.AddToken(ctx, "agent:phone", "read")
	if err != nil {
		t.Fatal(err)
	}
	env := cli.Env{Getenv: func(string) string { return "" }}
	h := serve.New(serve.Options{Ledger: st, MCP: mcp.Options{}, API: servedAPI(Filters{}, env, db, serveIdentity)})
	srv := httptest.NewServer(h)
	defer srv.Close()

	run := func(vars map[string]string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		e := cli.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return vars[k] }, Getwd: os.Getwd}
		return Run(ctx, Filters{}, e, append([]string{"linkledger"}, args...)), out.String(), errb.String()
	}
	remoteVars := func(token string) map[string]string {
		return map[string]string{remote.EnvURL: srv.URL + "/", remote.EnvToken: token}
	}
	lc, lo, le := run(map[string]string{"LINKLEDGER_DB": db}, "show", "https://example.com/quokka")
	rc, ro, re := run(remoteVars(read), "show", "https://example.com/quokka")
	if lc != 0 || rc != lc || ro != lo || re != le {
		t.Errorf("show: local %d %q %q; remote %d %q %q", lc, lo, le, rc, ro, re)
	}
	if code, _, stderr := run(remoteVars("llt_not-a-token"), "show", "https://example.com/quokka"); code != cli.ExitFatal || !strings.Contains(stderr, "refused LINKLEDGER_TOKEN (401") {
		t.Errorf("unknown token: exit %d %s", code, stderr)
	}
	if code, _, stderr := run(remoteVars(read), "save", "https://example.com/new"); code != cli.ExitFatal || !strings.Contains(stderr, "token agent:phone has scope read: save writes and needs scope write (403)") {
		t.Errorf("read token saving: exit %d %s", code, stderr)
	}
	if _, err := st.ResolveItem(ctx, "https://example.com/new", ledger.ResolveOptions{}); err == nil {
		t.Errorf("the read token's save was stored")
	}
	// the token in the URL is refused by serve, whatever the path
	resp, err := http.Post(srv.URL+remote.RunPath+"?access_token="+read, "application/json", strings.NewReader(`{"verb":"find","args":["q"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Errorf("a token in the URL was taken: %v", body)
	}
}
