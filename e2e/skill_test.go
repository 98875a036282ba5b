package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// skillPath is the agent skill whose commands this test runs.
const skillPath = "../skills/linkledger/SKILL.md"

// skillBlocks splits a skill file into its YAML front matter (key: value
// lines) and its ```sh blocks, in order. Any other fenced block is an
// error: every command in the skill must run here.
func skillBlocks(t *testing.T, text string) (map[string]string, []string) {
	t.Helper()
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		t.Fatalf("%s: no YAML front matter (want a first line ---)", skillPath)
	}
	front, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		t.Fatalf("%s: front matter not closed by ---", skillPath)
	}
	meta := map[string]string{}
	for _, l := range strings.Split(front, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("%s: front matter line %q is not key: value", skillPath, l)
		}
		meta[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	var blocks []string
	var cur []string
	in := false
	for i, l := range strings.Split(body, "\n") {
		switch {
		case !in && strings.HasPrefix(l, "```"):
			if lang := strings.TrimPrefix(l, "```"); lang != "sh" {
				t.Fatalf("%s: body line %d: a ``` block in %q; write commands in ```sh blocks (they run in this test)", skillPath, i+1, lang)
			}
			in, cur = true, nil
		case in && l == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, l)
		}
	}
	if in {
		t.Fatalf("%s: a ```sh block is not closed", skillPath)
	}
	return meta, blocks
}

// urlRe finds the URLs in the skill's commands.
var urlRe = regexp.MustCompile(`https?://[^\s"']+`)

// TestSkill runs every command of skills/linkledger/SKILL.md, in order, in
// one shell (so a block may use the variables an earlier one set), with
// the skill's example.com URLs served by the local test server, and checks
// that they succeed and do what the text says.
func TestSkill(t *testing.T) {
	b, err := os.ReadFile(skillPath)
	if err != nil {
		t.Fatal(err)
	}
	meta, blocks := skillBlocks(t, string(b))
	if meta["name"] != "linkledger" || len(meta["description"]) < 50 {
		t.Errorf("front matter %v: want name linkledger and a description", meta)
	}
	if len(blocks) < 10 {
		t.Fatalf("%d sh blocks, want the whole workflow (10 or more)", len(blocks))
	}
	srv := newTestServer()
	defer srv.Close()
	var script strings.Builder
	script.WriteString("set -eux\n")
	for i, blk := range blocks {
		for _, u := range urlRe.FindAllString(blk, -1) {
			if !strings.HasPrefix(u, "https://example.com/") {
				t.Fatalf("block %d: URL %s: the skill's URLs must be https://example.com/... (the test serves them locally)", i+1, u)
			}
		}
		script.WriteString(strings.ReplaceAll(blk, "https://example.com", srv.URL) + "\n")
	}
	// the user's ledger already holds a page
	dir := t.TempDir()
	db := filepath.Join(dir, "ll.db")
	run(t, dir, "linkledger", "save", "--db", db, "-q", srv.URL+"/lighthouse.html")
	run(t, dir, "linkledger", "worker", "--db", db, "-q")
	cmd := exec.Command("sh", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(mcpEnv(dir), "LINKLEDGER_DB="+db)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the skill's commands failed: %v\nstderr (each command traced):\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{
		// the overview of the user's ledger (one page)
		`"items":1,`,
		`"name":"` + strings.TrimPrefix(srv.URL, "http://") + `"`,
		// show --text before quoting
		"The passages an agent actually cites are a few hundred tokens.",
		// find and the citation line
		"Why agents forget their sources",
		"[ll_",
		"<" + srv.URL + "/agent-memory.html>",
		// the worker parsed the saved page
		"\nparsed\n",
		// annotations by the agent, with confidence, one pinned
		`"actor":"agent:researcher","confidence":0.85`,
		`"pinned":true`,
		`"tags_added":["reviewed"]`,
		// the brief within budget says what it dropped
		`"max_tokens":1500`,
		`"max_tokens":700`, `"dropped":[{`,
		// why_ranked
		`"why":{"bm25":`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the skill's output has no %q\nstdout:\n%s", want, out)
		}
	}
}
