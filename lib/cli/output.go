package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/linkledger/linkledger/lib/cli/human"
	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

// Output writes records to stdout: as a stream (the default), through a jq
// filter (--jq), gathered into one envelope document (--json):
//
//	{"ok": true, "data": [...], "meta": {"timestamp": "...", "version": "..."}}
//
// (ok is false when any record carried an error), or rendered for a person
// (the human form, see OutputOn and docs/output.md). Commands emit the same
// records whatever the form.
type Output struct {
	w        *ndjson.Writer
	out      io.Writer
	jq       *gojq.Code
	envelope bool
	gathered []any
	failed   int
	written  int
	raw      bool
	rawW     io.Writer
	human    *human.Renderer // nil: records
	stderr   io.Writer       // progress (OutputOn); nil: none
	// stderrTTY: a person reads stderr at a terminal (it is one, or
	// StderrTerminalEnv says the remote client's is)
	stderrTTY bool
	quiet     bool
	progress  *Progress
	meta      map[string]any // added to the envelope's meta (Meta)
	page      *pager         // nil: not paged (see Page)
}

// Meta adds a key to the --json envelope's meta (ll-find's ranking mode
// and warnings); other forms do not show it.
func (o *Output) Meta(key string, v any) {
	if o.meta == nil {
		o.meta = map[string]any{}
	}
	o.meta[key] = v
}

// Human switches the output to the form for a person; color allows ANSI
// colour. OutputOn calls it when stdout is a terminal or --format asks.
func (o *Output) Human(color bool) { o.human = human.New(o.out, color) }

// SetWidth tells the human form the terminal's width (for wrapped text).
func (o *Output) SetWidth(cols int) {
	if o.human != nil {
		o.human.SetWidth(cols)
	}
}

// IsHuman reports whether the output is for a person (a terminal, or
// --format human): commands then say on stderr when nothing matched.
func (o *Output) IsHuman() bool { return o.human != nil }

// Hints reports whether the command names the next step after its
// result (a "hint:" line on stderr, docs/output.md): only for a person
// at a terminal, that is the human form with stderr a terminal (or, for a
// remote verb, the client's stderr: StderrTerminalEnv), and not with -q.
// A pipe never gets one.
func (o *Output) Hints() bool {
	return o.human != nil && o.stderr != nil && !o.quiet && o.stderrTTY
}

// Progress returns the command's progress line on stderr: shown only when
// stderr is a terminal and -q was not given, and cleared by the Output
// before every record it writes.
func (o *Output) Progress(prog string) *Progress {
	o.progress = NewProgress(prog, o.stderr, o.stderr != nil && !o.quiet && IsTerminal(o.stderr))
	return o.progress
}

// Text writes ready-made text for a person (ll-brief's Markdown) as it is,
// ending it with a newline.
func (o *Output) Text(s string) error {
	o.progress.Clear()
	o.written++
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	_, err := io.WriteString(o.out, s)
	return err
}

// RawStrings makes --jq results that are strings print without quotes
// (like jq -r).
func (o *Output) RawStrings(w io.Writer) { o.raw, o.rawW = true, w }

// NewOutput returns an Output on w. jqFilter may be empty.
func NewOutput(w io.Writer, jqFilter string, envelope bool) (*Output, error) {
	o := &Output{w: ndjson.NewWriter(w), out: w, envelope: envelope}
	if jqFilter != "" {
		q, err := gojq.Parse(jqFilter)
		if err != nil {
			return nil, Usage("--jq: %v", err)
		}
		code, err := gojq.Compile(q)
		if err != nil {
			return nil, Usage("--jq: %v", err)
		}
		o.jq = code
	}
	return o, nil
}

// Emit writes one record. It returns an error only when output failed (a
// closed pipe is reported as such; callers stop quietly on it).
func (o *Output) Emit(rec *record.Record) error {
	if rec.Error != nil {
		o.failed++
	}
	if o.human != nil {
		o.progress.Clear()
		o.written++
		return o.human.Record(rec)
	}
	return o.EmitValue(rec)
}

// EmitValue writes any JSON value (used by ll-brief for its pack).
func (o *Output) EmitValue(v any) error {
	o.written++
	o.progress.Clear()
	if o.jq == nil {
		if o.envelope {
			o.gathered = append(o.gathered, v)
			return nil
		}
		return o.w.Write(v)
	}
	// gojq works on plain JSON values.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var plain any
	if err := json.Unmarshal(b, &plain); err != nil {
		return err
	}
	iter := o.jq.Run(plain)
	for {
		out, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := out.(error); isErr {
			if _, halt := err.(*gojq.HaltError); halt {
				return nil
			}
			return fmt.Errorf("--jq: %v", err)
		}
		if o.envelope {
			o.gathered = append(o.gathered, out)
			continue
		}
		if s, ok := out.(string); ok && o.raw {
			if _, err := io.WriteString(o.rawW, s+"\n"); err != nil {
				return err
			}
			continue
		}
		if err := o.w.Write(out); err != nil {
			return err
		}
	}
}

// Failed is the number of emitted records that carried an error.
func (o *Output) Failed() int { return o.failed }

// Written is the number of values emitted.
func (o *Output) Written() int { return o.written }

// Close writes the envelope when --json was given.
func (o *Output) Close() error {
	if !o.envelope || o.human != nil {
		return nil
	}
	data := o.gathered
	if data == nil {
		data = []any{}
	}
	meta := map[string]any{"timestamp": record.FormatTime(time.Now()), "version": Version}
	for k, v := range o.meta {
		meta[k] = v
	}
	return o.w.Write(map[string]any{
		"ok":   o.failed == 0,
		"data": data,
		"meta": meta,
	})
}

// Finish closes the output and turns the failure count into the exit error.
func (o *Output) Finish() error {
	if err := o.Close(); err != nil {
		return err
	}
	if o.failed > 0 {
		return Partial
	}
	return nil
}
