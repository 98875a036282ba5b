package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/itchyny/gojq"
	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/ndjson"
	"github.com/linkledger/linkledger/lib/record"
)

// Output writes records to stdout: as a stream (the default), through a jq
// filter (--jq), or gathered into one envelope document (--json):
//
//	{"ok": true, "data": [...], "meta": {"timestamp": "...", "version": "..."}}
//
// ok is false when any record carried an error.
type Output struct {
	w        *ndjson.Writer
	jq       *gojq.Code
	envelope bool
	gathered []any
	failed   int
	written  int
	raw      bool
	rawW     io.Writer
}

// RawStrings makes --jq results that are strings print without quotes
// (like jq -r).
func (o *Output) RawStrings(w io.Writer) { o.raw, o.rawW = true, w }

// NewOutput returns an Output on w. jqFilter may be empty.
func NewOutput(w io.Writer, jqFilter string, envelope bool) (*Output, error) {
	o := &Output{w: ndjson.NewWriter(w), envelope: envelope}
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
	return o.EmitValue(rec)
}

// EmitValue writes any JSON value (used by ll-brief for its pack).
func (o *Output) EmitValue(v any) error {
	o.written++
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
	if !o.envelope {
		return nil
	}
	data := o.gathered
	if data == nil {
		data = []any{}
	}
	return o.w.Write(map[string]any{
		"ok":   o.failed == 0,
		"data": data,
		"meta": map[string]string{"timestamp": record.FormatTime(time.Now()), "version": Version},
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

// OutputFor returns the Output a command's flags ask for (--jq, --json,
// --raw-output) on w.
func OutputFor(c *ucli.Command, w io.Writer) (*Output, error) {
	o, err := NewOutput(w, c.String("jq"), c.Bool("json"))
	if err != nil {
		return nil, err
	}
	if c.Bool("raw-output") {
		o.RawStrings(w)
	}
	return o, nil
}
