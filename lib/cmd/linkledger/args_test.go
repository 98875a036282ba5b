package linkledger_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/cmd/linkledger"
	"github.com/linkledger/linkledger/lib/cmd/linkledger/inprocess"
)

// recorder is a Filters whose filters record the arguments and the
// display name they were run with, and do nothing else.
type recorder struct {
	mu   sync.Mutex
	runs map[string]string // filter -> "NAME | args"
}

func (r *recorder) filters() linkledger.Filters {
	f := linkledger.Filters{}
	for _, name := range linkledger.FilterNames {
		f[name] = func(env cli.Env) *ucli.Command {
			return &ucli.Command{Name: name, SkipFlagParsing: true, Action: func(_ context.Context, c *ucli.Command) error {
				r.mu.Lock()
				defer r.mu.Unlock()
				r.runs[name] = env.Getenv(cli.DisplayNameEnv) + " | " + strings.Join(c.Args().Slice(), " ")
				return nil
			}}
		}
	}
	return f
}

// TestVerbArgs: translating verbs build their filters' arguments from
// their own parsed flags (renamed where the filter's differ), resolve the
// item to its id, and name the verb (and the pipeline stage).
func TestVerbArgs(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	db := filepath.Join(t.TempDir(), "ll.db")
	env := func(out *bytes.Buffer) cli.Env {
		return cli.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Getenv: func(k string) string {
			if k == "LINKLEDGER_DB" {
				return db
			}
			return os.Getenv(k)
		}, Getwd: os.Getwd}
	}
	var out bytes.Buffer
	if code := linkledger.Run(context.Background(), inprocess.Filters(), env(&out), []string{"linkledger", "save", "https://example.com/a", "--highlight", "h", "-q"}); code != 0 {
		t.Fatalf("save: %d %s", code, out.String())
	}
	const id = "ll_" // the item's id starts so; the rest is checked by equality below
	cases := []struct {
		args []string
		want map[string]string
	}{
		{[]string{"annotate", "HTTPS://example.com/a?utm_source=x", "--highlight", "h1", "--highlight", "h2, with a comma", "--note", "n", "--confidence", "0.8", "--actor", "agent:r", "-q"},
			map[string]string{"ll-save": "linkledger annotate | ID --highlight h1 --highlight h2, with a comma --confidence 0.8 --actor agent:r --annotate-note n --quiet"}},
		{[]string{"tag", "https://example.com/a", "--add", "a,b", "--remove", "c"},
			map[string]string{"ll-save": "linkledger tag | ID --tags a,b --untag c"}},
		{[]string{"pin", "https://example.com/a", "1"}, map[string]string{"ll-save": "linkledger pin | ID --pin 1"}},
		{[]string{"status", "https://example.com/a", "--jq", ".ingest"}, map[string]string{"ll-find": "linkledger status | --id ID --jq .ingest"}},
		{[]string{"related", "https://example.com/a", "--max-items", "3"}, map[string]string{"ll-find": "linkledger related | --related ID --limit 3"}},
		{[]string{"worker", "--limit", "5", "--max-attempts", "2", "--timeout", "3s", "--chunk-tokens", "200", "--json", "-q", "--max-text-bytes", "1000", "--public-only"}, map[string]string{
			"ll-find":  "linkledger worker: find | --pending --claim --limit 5 --max-attempts 2 --quiet",
			"ll-fetch": "linkledger worker: fetch | --max-attempts 2 --timeout 3s --public-only --quiet",
			"ll-parse": "linkledger worker: parse | --max-text-bytes 1000 --chunk-tokens 200 --quiet",
			"ll-index": "linkledger worker: index | --public-only --max-text-bytes 1000 --json --quiet",
		}},
		{[]string{"stale", "--older-than", "90d", "--db", db}, map[string]string{
			"ll-find":  "linkledger stale: find | --stale --older-than 90d --db " + db,
			"ll-fetch": "linkledger stale: fetch | ",
			"ll-parse": "linkledger stale: parse | ",
			"ll-index": "linkledger stale: index | --db " + db,
		}},
		{[]string{"search", "walrus", "--limit", "3"}, map[string]string{"ll-find": "linkledger find | walrus --limit 3"}},
		{[]string{"enrich", "--all", "--limit", "5", "--llm", "http://127.0.0.1:1/v1", "--model", "m", "--timeout", "5s", "--max-chunk-bytes", "1000", "--agent-cap", "4", "--json", "-q"}, map[string]string{
			"ll-find":   "linkledger enrich: find | --status parsed --with-chunks --all-copies --archived --limit 5 --max-chunk-bytes 1000 --quiet",
			"ll-enrich": "linkledger enrich: enrich | --llm http://127.0.0.1:1/v1 --model m --timeout 5s --quiet",
			"ll-index":  "linkledger enrich: index | --agent-cap 4 --json --quiet",
		}},
		{[]string{"enrich", "--all", "--cmd", "my-model --json", "--max-claims", "2"}, map[string]string{
			"ll-find":   "linkledger enrich: find | --status parsed --with-chunks --all-copies --archived --limit 2147483647",
			"ll-enrich": "linkledger enrich: enrich | --cmd my-model --json --max-claims 2",
			"ll-index":  "linkledger enrich: index | ",
		}},
	}
	for _, c := range cases {
		r := &recorder{runs: map[string]string{}}
		var out bytes.Buffer
		if code := linkledger.Run(context.Background(), r.filters(), env(&out), append([]string{"linkledger"}, c.args...)); code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, out.String())
			continue
		}
		got := map[string]string{}
		for k, v := range r.runs {
			// the resolved id, whatever its digits
			if i := strings.Index(v, id); i >= 0 && len(v) >= i+19 {
				v = v[:i] + "ID" + v[i+19:]
			}
			got[k] = v
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", c.args, diff)
		}
	}
}

// TestHelpExamplesRun: every example in the help of the verbs and of
// linkledger itself parses and runs (against recording filters, so
// nothing is fetched): its flags exist, its values are valid, its item is
// found. The placeholder id stands for a saved item.
func TestHelpExamplesRun(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	db := filepath.Join(t.TempDir(), "ll.db")
	env := func(out *bytes.Buffer) cli.Env {
		return cli.Env{Stdin: strings.NewReader(""), Stdout: out, Stderr: out, Getenv: func(k string) string {
			if k == "LINKLEDGER_DB" {
				return db
			}
			return os.Getenv(k)
		}, Getwd: os.Getwd}
	}
	var out bytes.Buffer
	if code := linkledger.Run(context.Background(), inprocess.Filters(), env(&out), []string{"linkledger", "save", "https://example.com/post", "--highlight", "h", "-r", "--jq", ".id"}); code != 0 {
		t.Fatalf("save: %d %s", code, out.String())
	}
	id := strings.TrimSpace(out.String())
	root := linkledger.New(nil, env(&out))
	descs := []string{root.Description}
	// the item verbs' examples name other items and annotations; their
	// scripts (e2e items_*) run them; mcp and ui are servers (e2e TestMCP,
	// TestUIServesIngestsAndStops and lib/web's TestBrowser run them);
	// import, export, backup and check write files (e2e import_*, export_*,
	// backup_check run them); enrich needs an item with stored content
	// (e2e enrich_stored runs its examples' forms); embed needs an
	// embeddings endpoint (e2e embed_stored runs its examples' forms);
	// ui is a server (its own tests run it); so is serve (e2e TestServe);
	// restore-replica needs a replica and the litestream binary
	// (lib/replica's tests and e2e restore_replica run it); outbox needs
	// a server and a token (e2e h32o_outbox runs its examples)
	itemVerbs := map[string]bool{"embed": true, "show": true, "tags": true, "unannotate": true, "archive": true, "unarchive": true, "star": true, "unstar": true, "delete": true, "mcp": true,
		"import": true, "export": true, "backup": true, "check": true, "review": true, "enrich": true, "ui": true, "serve": true, "restore-replica": true, "outbox": true}
	for _, v := range root.Commands {
		if !itemVerbs[v.Name] {
			descs = append(descs, v.Description)
		}
	}
	n := 0
	for _, d := range descs {
		_, ex, ok := strings.Cut(d, "EXAMPLES:\n")
		if !ok {
			continue
		}
		ex, _, _ = strings.Cut(ex, "\n\n")
		for _, line := range strings.Split(ex, "\n") {
			line = strings.TrimSpace(line)
			line, _, _ = strings.Cut(line, " #")
			// only the front's own commands, not pipes or shell set-up
			if !strings.HasPrefix(line, "linkledger ") || strings.ContainsAny(line, "|<>") {
				continue
			}
			args := shellWords(t, strings.ReplaceAll(line, "ll_0123456789abcdef", id))
			r := &recorder{runs: map[string]string{}}
			var o bytes.Buffer
			if code := linkledger.Run(context.Background(), r.filters(), env(&o), args); code != 0 {
				t.Errorf("%s: exit %d\n%s", line, code, o.String())
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d examples found; the check is stale", n)
	}
}

// shellWords splits a command line as sh would, for the quoting the
// examples use (single and double quotes, no escapes).
func shellWords(t *testing.T, line string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quotes: %s", line)
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}
