package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/linkledger/linkledger/lib/record"
)

func envWith(vars map[string]string, wd string) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return wd, nil }}
}

func TestResolveDB(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "proj", "a", "b")
	os.MkdirAll(deep, 0o755)
	os.MkdirAll(filepath.Join(root, "proj", ".linkledger"), 0o755)
	cases := []struct {
		name, flag string
		vars       map[string]string
		wd, want   string
	}{
		{"flag wins", "/x/flag.db", map[string]string{"LINKLEDGER_DB": "/x/env.db"}, deep, "/x/flag.db"},
		{"env next", "", map[string]string{"LINKLEDGER_DB": "/x/env.db"}, deep, "/x/env.db"},
		{"found upward", "", map[string]string{"HOME": "/home/u"}, deep, filepath.Join(root, "proj", ".linkledger", "linkledger.db")},
		{"xdg", "", map[string]string{"XDG_DATA_HOME": "/data", "HOME": "/home/u"}, root, "/data/linkledger/linkledger.db"},
		{"home default", "", map[string]string{"HOME": "/home/u"}, root, "/home/u/.local/share/linkledger/linkledger.db"},
	}
	for _, c := range cases {
		got, err := ResolveDB(c.flag, envWith(c.vars, c.wd))
		if err != nil || got != c.want {
			t.Errorf("%s: got %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func TestOutputEnvelopeAndJQ(t *testing.T) {
	var b bytes.Buffer
	o, err := NewOutput(&b, "", true)
	if err != nil {
		t.Fatal(err)
	}
	o.Emit(&record.Record{ID: "a"})
	o.Emit(&record.Record{ID: "b", Error: &record.Error{Code: "x"}})
	if err := o.Finish(); !errors.Is(err, Partial) {
		t.Errorf("finish: %v, want Partial", err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"ok":false`)) || !bytes.Contains(b.Bytes(), []byte(`"data":[{"id":"a"}`)) {
		t.Errorf("envelope: %s", b.String())
	}
	b.Reset()
	o, _ = NewOutput(&b, ".id", false)
	o.Emit(&record.Record{ID: "a"})
	if b.String() != "\"a\"\n" {
		t.Errorf("jq: %q", b.String())
	}
	if _, err := NewOutput(&b, ".[", false); err == nil {
		t.Error("bad jq filter accepted")
	}
}

func TestReportCodes(t *testing.T) {
	var b bytes.Buffer
	if c := Report("ll-x", &b, Usage("--limit: must be positive")); c != ExitUsage {
		t.Errorf("usage -> %d", c)
	}
	if b.String() != "ll-x: --limit: must be positive\nhint: run 'll-x --help' for usage\n" {
		t.Errorf("stderr %q", b.String())
	}
	if c := Report("ll-x", &b, Partial); c != ExitPartial {
		t.Errorf("partial -> %d", c)
	}
	if c := Report("ll-x", &b, errors.New("boom")); c != ExitFatal {
		t.Errorf("fatal -> %d", c)
	}
	// an interrupt reads the same from every filter, however it arrived
	// (a bare context error, or wrapped by a store or fetch call)
	for _, err := range []error{context.Canceled, fmt.Errorf("read stdin: %w", context.Canceled)} {
		b.Reset()
		if c := Report("ll-y", &b, err); c != ExitFatal {
			t.Errorf("%v -> %d", err, c)
		}
		if want := "ll-y: interrupted: records written before it are kept; running the same input again is safe\n"; b.String() != want {
			t.Errorf("%v: stderr %q, want %q", err, b.String(), want)
		}
	}
}

func TestIsTerminalDevNull(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("/dev/null reported as a terminal")
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress("ll-x", &b, true)
	p.Tick(false)
	p.Tick(true)
	p.Tick(false)
	p.Done()
	if !bytes.Contains(b.Bytes(), []byte("ll-x: 2 done, 1 failed,")) || !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		t.Errorf("progress output %q", b.String())
	}
	b.Reset()
	off := NewProgress("ll-x", &b, false)
	off.Tick(false)
	off.Done()
	if b.Len() != 0 {
		t.Errorf("disabled progress wrote %q", b.String())
	}
}

func TestBusyTimeout(t *testing.T) {
	for in, want := range map[string]time.Duration{"150ms": 150 * time.Millisecond, "0": time.Millisecond, "-1s": time.Millisecond, "": 0, "soon": 0} {
		env := Env{Getenv: func(string) string { return in }}
		if got := EnvBusyTimeout(env); got != want {
			t.Errorf("LINKLEDGER_BUSY_TIMEOUT=%q: %v, want %v", in, got, want)
		}
	}
}
