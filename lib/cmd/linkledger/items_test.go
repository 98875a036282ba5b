package linkledger

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/ledger/spec"
	"github.com/linkledger/linkledger/lib/record"
)

// TestDeleteAsksAtATerminal runs delete as if stdin were a terminal: it
// asks on stderr, deletes nothing unless the answer is yes, and --yes
// skips the question.
func TestDeleteAsksAtATerminal(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "ll.db")
	st, err := ledger.Open(ctx, db, ledger.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	url := "https://example.com/ask"
	if _, err := st.Save(ctx, &record.Record{URL: url}, ledger.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	old := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = old })

	run := func(answer string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		env := cli.Env{Stdin: strings.NewReader(answer), Stdout: &out, Stderr: &errb,
			Getenv: func(string) string { return "" }, Getwd: os.Getwd}
		code := Run(ctx, nil, env, append([]string{"linkledger", "delete", "--db", db}, args...))
		return code, out.String(), errb.String()
	}
	exists := func() bool {
		st, err := ledger.Open(ctx, db, ledger.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		_, err = st.ShowID(ctx, record.ItemID(url), ledger.ShowOptions{})
		if errors.Is(err, spec.ErrNotFound) {
			return false
		}
		if err != nil {
			t.Fatal(err)
		}
		return true
	}
	for _, answer := range []string{"n\n", "\n", ""} {
		code, out, errs := run(answer, url)
		if code != cli.ExitFatal || out != "" || !strings.Contains(errs, "delete 1 item(s): "+record.ItemID(url)+"? [y/N]") || !strings.Contains(errs, "nothing changed") {
			t.Errorf("answer %q: exit %d, stdout %q, stderr %q", answer, code, out, errs)
		}
		if !exists() {
			t.Fatalf("answer %q deleted the item", answer)
		}
	}
	code, out, errs := run("yes\n", url)
	if code != cli.ExitOK || !strings.Contains(out, `"action":"delete"`) || exists() {
		t.Errorf("answer yes: exit %d, stdout %q, stderr %q, item still there: %v", code, out, errs, exists())
	}
	// --yes does not ask (and an unknown item is exit 2)
	code, _, errs = run("", "--yes", url)
	if code != cli.ExitUsage || strings.Contains(errs, "[y/N]") || !strings.Contains(errs, `no item "`+url+`"`) {
		t.Errorf("--yes on a deleted item: exit %d, stderr %q", code, errs)
	}
}
