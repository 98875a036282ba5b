package e2e

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestReadmeTour checks that testdata/script/readme_tour.txtar runs the
// README's tour as written: every command of README.md's "A 60-second
// tour" and "Memory packs and reuse" blocks is in the script, in the same
// order, once the few differences the script explains are applied (the
// test server for the tour's page server, $HOME for ~, the binaries already
// on PATH); and the files the tour reads are the repository's.
func TestReadmeTour(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile("testdata/script/readme_tour.txtar")
	if err != nil {
		t.Fatal(err)
	}
	script := string(ar.Comment)

	var cmds []string
	for _, heading := range []string{"## A 60-second tour", "### Memory packs and reuse"} {
		block := shBlock(t, string(readme), heading)
		for _, c := range tourCommands(block) {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 20 {
		t.Fatalf("found %d commands in the README's tour: has its shape changed?", len(cmds))
	}
	at := 0
	for _, c := range cmds {
		i := strings.Index(script[at:], c)
		if i < 0 {
			if strings.Contains(script, c) {
				t.Errorf("README command out of order in readme_tour.txtar: %s", c)
			} else {
				t.Errorf("README command not run by readme_tour.txtar: %s", c)
			}
			continue
		}
		at += i + len(c)
	}

	// the local file the tour saves is the repository's, and the test
	// server's page is the one the tour's server serves
	for _, f := range ar.Files {
		want, err := os.ReadFile("../" + f.Name)
		if err != nil {
			t.Errorf("readme_tour.txtar has %s, not in the repository: %v", f.Name, err)
			continue
		}
		if string(want) != string(f.Data) {
			t.Errorf("readme_tour.txtar's %s differs from the repository's", f.Name)
		}
	}
	demo, err1 := os.ReadFile("../scripts/demo/site/agent-memory.html")
	served, err2 := os.ReadFile("testdata/site/agent-memory.html")
	if err1 != nil || err2 != nil || string(demo) != string(served) {
		t.Errorf("testdata/site/agent-memory.html must be scripts/demo/site/agent-memory.html (%v, %v)", err1, err2)
	}
}

// shBlock is the first ```sh block after heading in a Markdown text.
func shBlock(t *testing.T, md, heading string) string {
	t.Helper()
	i := strings.Index(md, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q", heading)
	}
	rest := md[i:]
	j := strings.Index(rest, "```sh\n")
	if j < 0 {
		t.Fatalf("README.md: no sh block after %q", heading)
	}
	rest = rest[j+len("```sh\n"):]
	k := strings.Index(rest, "```")
	if k < 0 {
		t.Fatalf("README.md: unterminated sh block after %q", heading)
	}
	return rest[:k]
}

var (
	trailingComment = regexp.MustCompile(`\s+#\s.*$`)
	exportHome      = regexp.MustCompile(`^export (\w+)=~/`)
)

// tourCommands are the commands of a README block as the script must run
// them: comments dropped, and the differences the script explains applied.
// The build, the page server and its end are the test harness's own.
func tourCommands(block string) []string {
	var out []string
	for _, line := range strings.Split(block, "\n") {
		line = strings.TrimSpace(trailingComment.ReplaceAllString(line, ""))
		switch {
		case line == "", strings.HasPrefix(line, "#"),
			strings.HasPrefix(line, "make build"),
			strings.HasPrefix(line, "python3 -m http.server"),
			line == "kill %1":
			continue
		}
		line = strings.ReplaceAll(line, "http://127.0.0.1:8765", "$LL_TESTSERVER")
		line = exportHome.ReplaceAllString(line, "env $1=$$HOME/")
		out = append(out, line)
	}
	return out
}

// TestReadmeLayout: the README's "Layout" table names every package
// directory directly under lib/ (and lib/ledger's spec, internal/store and
// ledgertest), so a newcomer finds where a thing lives from the README.
func TestReadmeLayout(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "\n## Layout")
	if i < 0 {
		t.Fatal("README.md has no Layout section")
	}
	layout := s[i+1:]
	if j := strings.Index(layout[3:], "\n## "); j >= 0 {
		layout = layout[:j+3]
	}
	dirs, err := os.ReadDir("../lib")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lib/ledger/spec", "lib/ledger/internal/store", "lib/ledger/ledgertest"}
	for _, d := range dirs {
		if d.IsDir() {
			want = append(want, "lib/"+d.Name())
		}
	}
	if len(want) < 20 {
		t.Fatalf("only %d directories under lib: the check is stale", len(want))
	}
	named := regexp.MustCompile("`(lib/[a-z0-9_./-]*?)(/\\*|/)?`")
	have := map[string]bool{}
	for _, m := range named.FindAllStringSubmatch(layout, -1) {
		have[m[1]] = true
	}
	for _, w := range want {
		found := have[w]
		for h := range have {
			found = found || strings.HasPrefix(h, w+"/") // lib/stub/go-dateparser names lib/stub
		}
		if !found {
			t.Errorf("README.md's Layout does not name `%s`", w)
		}
	}
}
