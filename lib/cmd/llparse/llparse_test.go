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

// TestMemoryBudgetShared: with four workers and a budget smaller than two
// records, the records in flight never weigh more than the budget (the old
// ll-parse held up to 3×concurrency records at once whatever their size).
func TestMemoryBudgetShared(t *testing.T) {
	var in strings.Builder
	big := strings.Repeat("Plenty of text in a large record. ", 30000) // ~1 MB
	for i := range 4 {
		b, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("https://o.example/%d", i), "fetch": map[string]any{"content_type": "text/plain"}, "body": big})
		in.Write(b)
		in.WriteByte('\n')
	}
	const budget = 6 << 20 // one record weighs about 4 MB
	var peak int64
	inFlight = func(n int64) { peak = max(peak, n) } // called from the one reader goroutine
	defer func() { inFlight = nil }()
	out, stderr, code := runParse(t, in.String(), "--concurrency", "4", "--memory-budget", fmt.Sprint(budget))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Fatalf("%d records out, want 4", n)
	}
	if peak == 0 || peak > budget {
		t.Errorf("peak weight in flight %d, want between 1 and the budget %d", peak, budget)
	}
}

// TestMaxTextBytesFlag: the flag caps text from a text import and says so
// in parse.truncated and parse.warnings.
func TestMaxTextBytesFlag(t *testing.T) {
	text := strings.Repeat("A line of imported text.\n\n", 2000) // 52 KB
	b, _ := json.Marshal(map[string]any{"url": "https://o.example/big", "text": text})
	out, stderr, code := runParse(t, string(b)+"\n", "--max-text-bytes", "10000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rec record.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.TextValue()); n > 10000 || n < 5000 {
		t.Errorf("text is %d bytes, want at most 10000", n)
	}
	if rec.Parse == nil || !rec.Parse.Truncated || len(rec.Parse.Warnings) != 1 {
		t.Errorf("parse = %+v, want truncated with one warning", rec.Parse)
	}
	if _, _, code := runParse(t, "", "--max-text-bytes", "0"); code != cli.ExitUsage {
		t.Errorf("--max-text-bytes 0: exit %d, want %d", code, cli.ExitUsage)
	}
}
