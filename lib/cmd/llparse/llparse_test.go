package llparse

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/record"
)

// runParse runs ll-parse in-process on input and returns stdout, stderr and
// the exit code.
func runParse(t *testing.T, input string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(input), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return t.TempDir(), nil }}
	code := cli.Main(Command(env), env, append([]string{"ll-parse"}, args...))
	return out.String(), errb.String(), code
}

func TestOrderKeptUnderConcurrency(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 40; i++ {
		if i == 17 {
			in.WriteString("{broken\n")
			continue
		}
		body := fmt.Sprintf("Record number %d has a little text.", i)
		if i%3 == 0 {
			body = fmt.Sprintf("<html><body><article>%s</article></body></html>", strings.Repeat(fmt.Sprintf("<p>Paragraph of record %d, written to be long enough for an article extractor to take it.</p>", i), 5))
		}
		ct := "text/plain"
		if i%3 == 0 {
			ct = "text/html"
		}
		b, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("https://o.example/%d", i), "fetch": map[string]any{"content_type": ct}, "body": body, "seq": i})
		in.Write(b)
		in.WriteByte('\n')
	}
	out, stderr, code := runParse(t, in.String(), "--concurrency", "4")
	if code != cli.ExitPartial {
		t.Errorf("exit %d, want %d (one malformed line); stderr: %s", code, cli.ExitPartial, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 40 {
		t.Fatalf("%d output lines, want 40", len(lines))
	}
	for i, l := range lines {
		var rec record.Record
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if i == 17 {
			if rec.Error == nil || rec.Error.Code != record.CodeBadJSON || rec.Error.Line != 18 {
				t.Errorf("line 18: %+v", rec.Error)
			}
			continue
		}
		if string(rec.Extra["seq"]) != fmt.Sprint(i) {
			t.Errorf("output %d is input %s", i, rec.Extra["seq"])
		}
		if rec.Error != nil || rec.Body != nil || !strings.Contains(rec.TextValue(), fmt.Sprint(i)) {
			t.Errorf("record %d: error %+v, body kept %v, text %q", i, rec.Error, rec.Body != nil, rec.TextValue())
		}
	}
}

// closingWriter accepts n writes, then fails like a closed pipe.
type closingWriter struct {
	n   int
	buf bytes.Buffer
}

func (w *closingWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, io.ErrClosedPipe
	}
	w.n--
	return w.buf.Write(p)
}

func TestClosedOutputEndsQuietly(t *testing.T) {
	var in strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&in, "{\"url\":\"https://x.example/%d\",\"text\":\"Note %d.\"}\n", i, i)
	}
	w := &closingWriter{n: 1}
	var errb bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(in.String()), Stdout: w, Stderr: &errb,
		Getenv: func(string) string { return "" }, Getwd: func() (string, error) { return t.TempDir(), nil }}
	code := cli.Main(Command(env), env, []string{"ll-parse", "--jq", ".text"})
	if code != 0 || errb.String() != "" {
		t.Errorf("exit %d stderr %q, want a quiet exit 0", code, errb.String())
	}
	if got := w.buf.String(); got != "\"Note 0.\"\n" {
		t.Errorf("output before the close: %q", got)
	}
}
