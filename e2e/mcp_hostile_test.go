package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/mcp"
)

// rawMCP is `linkledger mcp` driven by raw lines on its stdin.
type rawMCP struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawMCP(t *testing.T, dir string) *rawMCP {
	t.Helper()
	bin, err := exec.LookPath("linkledger")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "mcp")
	cmd.Env = mcpEnv(dir)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m := &rawMCP{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return m
}

func (m *rawMCP) send(line string) {
	m.t.Helper()
	if _, err := io.WriteString(m.in, line+"\n"); err != nil {
		m.t.Fatalf("writing to linkledger mcp: %v (has it ended?)", err)
	}
}

type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// next reads the next message the server writes.
func (m *rawMCP) next() rpcAnswer {
	m.t.Helper()
	// a server that answers nothing is killed, which ends the read
	timer := time.AfterFunc(30*time.Second, func() { m.cmd.Process.Kill() })
	defer timer.Stop()
	line, err := m.out.ReadBytes('\n')
	if err != nil {
		m.t.Fatalf("reading linkledger mcp's output: %v (the server ended)", err)
	}
	var a rpcAnswer
	if err := json.Unmarshal(line, &a); err != nil {
		m.t.Fatalf("output line %q: %v", line, err)
	}
	return a
}

// TestMCPFraming writes lines that are not JSON-RPC messages, nested too
// deep or too long to the real server: each gets a JSON-RPC error (with
// its id when it has one) and the session goes on to answer a ping and a
// tool call; closing stdin ends it with exit 0.
func TestMCPFraming(t *testing.T) {
	dir := t.TempDir()
	m := startRawMCP(t, dir)
	m.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if a := m.next(); string(a.ID) != "1" || a.Error != nil {
		t.Fatalf("initialize: %+v", a)
	}
	m.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	bad := []struct{ line, id string }{
		{"not json", "null"},
		{"{}", "null"},
		{"[]", "null"},
		{"42", "null"},
		{"null", "null"},
		{`[{"jsonrpc":"2.0","id":50,"method":"ping"}]`, "null"},
		{`{"jsonrpc":"1.0","id":51,"method":"ping"}`, "51"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, "null"},
		{`{"jsonrpc":"2.0","id":52,"method":5}`, "52"},
		{`{"jsonrpc":"2.0","id":53,"method":"tools/call","params":{"name":"find","arguments":{"query":` + deep + `}}}`, "53"},
		{`{"jsonrpc":"2.0","id":54,"method":"tools/call","params":{"name":"find","arguments":{"query":"` + strings.Repeat("x", 17<<20) + `"}}}`, "null"},
	}
	for _, b := range bad {
		m.send(b.line)
		a := m.next()
		if a.Error == nil || a.Error.Code >= 0 || string(a.ID) != b.id {
			t.Errorf("line %.60q: answer id %s error %+v, want a JSON-RPC error with id %s", b.line, a.ID, a.Error, b.id)
		}
	}
	m.send(`{"jsonrpc":"2.0","id":99,"method":"ping"}`)
	if a := m.next(); string(a.ID) != "99" || a.Error != nil {
		t.Fatalf("ping after the bad lines: %+v", a)
	}
	m.send(`{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"status","arguments":{}}}`)
	if a := m.next(); string(a.ID) != "100" || a.Error != nil || !strings.Contains(string(a.Result), `"items":0`) {
		t.Fatalf("status after the bad lines: id %s error %+v result %.200s", a.ID, a.Error, a.Result)
	}
	// a line longer than the cap that never ends: skipped as it streams,
	// then the end of input ends the session normally
	if _, err := io.WriteString(m.in, strings.Repeat("y", mcp.MaxLineBytes+(1<<20))); err != nil {
		t.Fatal(err)
	}
	m.in.Close()
	if a := m.next(); a.Error == nil || string(a.ID) != "null" {
		t.Errorf("unended long line: answer %+v, want an error", a)
	}
	if err := m.cmd.Wait(); err != nil {
		t.Errorf("linkledger mcp after stdin closed: %v, want exit 0", err)
	}
}

// TestMCPSaveLocal: save refuses every form of a local file with one
// answer, whether the file exists or not (it said "not_found: no such
// file" for a missing one: an oracle of which files exist), and saves
// nothing; web links are still saved.
func TestMCPSaveLocal(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".ssh/id_rsa", "secret.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("private\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cs := startMCP(t, dir)
	for _, pair := range [][2]string{
		{"~/.ssh/id_rsa", "~/.ssh/id_nope"},
		{filepath.Join(dir, "secret.txt"), filepath.Join(dir, "nope.txt")},
		{"file://" + filepath.Join(dir, "secret.txt"), "file://" + filepath.Join(dir, "nope.txt")},
		{"./secret.txt", "./nope.txt"},
		{"secret.txt", "nope.txt"},
	} {
		var msgs [2]string
		for i, u := range pair {
			msg := callErr(t, cs, "save", map[string]any{"url": u})
			if !strings.HasPrefix(msg, "file_not_allowed: ") || !strings.Contains(msg, "local files are not allowed from MCP") {
				t.Errorf("save %q: %q, want file_not_allowed: local files are not allowed from MCP", u, msg)
			}
			msgs[i] = strings.ReplaceAll(msg, u, "URL")
		}
		if msgs[0] != msgs[1] {
			t.Errorf("save of an existing and a missing file answered differently:\n%s\n%s", msgs[0], msgs[1])
		}
	}
	var out struct {
		Items int `json:"items"`
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "status", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("status: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &out); err != nil || out.Items != 0 {
		t.Errorf("after the refused saves: %s, want no items", raw)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "save", Arguments: map[string]any{"url": "example.com/page"}})
	if err != nil || res.IsError {
		t.Fatalf("save of a web link: %v %s", err, text(res))
	}
}

// TestMCPUnsupportedClaims: a claim marked unsupported (its quote is not
// in the item) is not served in key_claims by find or brief, also when
// the stored artifact still lists it there.
func TestMCPUnsupportedClaims(t *testing.T) {
	dir := t.TempDir()
	rec := `{"url":"https://lighthouse.example/","title":"Keeping a lighthouse","text":"A claim the page makes. More text about the lighthouse.",` +
		`"artifact":{"summary":"About a lighthouse.","key_claims":["A claim the page makes.","The lighthouse is on the moon."],` +
		`"claims":[{"text":"A claim the page makes.","chunk_index":0,"confidence":0.7},{"text":"The lighthouse is on the moon.","chunk_index":-1,"confidence":0.2,"unsupported":true}],` +
		`"created_by":"agent:linkledger","method":"llm"}}`
	cmd := exec.Command("ll-index")
	cmd.Env, cmd.Dir, cmd.Stdin = mcpEnv(dir), dir, strings.NewReader(rec+"\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ll-index: %v\n%s", err, out)
	}
	cs := startMCP(t, dir)
	for _, tool := range []string{"find", "brief"} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: map[string]any{"query": "lighthouse"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, text(res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		all := string(raw) + text(res)
		if !strings.Contains(all, "A claim the page makes.") {
			t.Errorf("%s: the supported claim is missing: %s", tool, raw)
		}
		if strings.Contains(all, "on the moon") {
			t.Errorf("%s serves the unsupported claim: %s", tool, raw)
		}
	}
}
