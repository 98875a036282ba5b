package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/record"
)

// recordSchema is the output schema of a whole record (show, status, the
// writes): an object with the identity keys named, open to every other
// key, since a record carries keys other stages add ("ingest", pass-through
// fields) and gains keys over time (docs/records.md).
var recordSchema = &jsonschema.Schema{
	Type:        "object",
	Description: "a linkledger record (docs/records.md): id, url, canonical_url, title, source_type and the keys of the view",
	Properties: map[string]*jsonschema.Schema{
		"id":            {Type: "string", Description: "the item id: ll_ and 16 hex digits"},
		"url":           {Type: "string"},
		"canonical_url": {Type: "string"},
		"title":         {Type: "string"},
		"source_type":   {Type: "string"},
	},
}

// outputSchema infers T's schema with records as recordSchema.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[record.Record]():   recordSchema,
		reflect.TypeFor[json.RawMessage](): {Type: "object", Description: "the evidence pack as ll-brief writes it: query, items, pointers, tokens, max_tokens, dropped"},
	}})
	if err != nil {
		panic(err) // a programming error in the output types, caught by every test
	}
	return s
}

// plainTypes rewrites every nullable type of s and its subschemas
// (["null","number"], which jsonschema.For makes of a pointer or a slice)
// to the plain type: a client that builds arguments from a schema (the
// MCP Inspector's CLI) cannot pass a number where the type is a union.
// Null is never sent nor returned: a nil pointer or slice is left out
// (omitempty), and a result's required arrays are never nil.
func plainTypes(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || s == recordSchema {
		return s
	}
	if len(s.Types) == 2 && (s.Types[0] == "null" || s.Types[1] == "null") {
		t := s.Types[0]
		if t == "null" {
			t = s.Types[1]
		}
		s.Type, s.Types = t, nil
	}
	for _, sub := range s.Properties {
		plainTypes(sub)
	}
	for _, sub := range s.Defs {
		plainTypes(sub)
	}
	for _, sub := range s.PrefixItems {
		plainTypes(sub)
	}
	for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
		for _, sub := range list {
			plainTypes(sub)
		}
	}
	plainTypes(s.Items)
	plainTypes(s.AdditionalProperties)
	return s
}

// addTool adds a tool whose input and output schemas are inferred from In
// and Out (records as recordSchema) with plain types (plainTypes).
func addTool[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a programming error in the input types, caught by every test
	}
	t.InputSchema = plainTypes(in)
	if t.OutputSchema == nil {
		t.OutputSchema = outputSchema[Out]()
	}
	t.OutputSchema = compactOutput(plainTypes(t.OutputSchema.(*jsonschema.Schema)))
	sdk.AddTool(s.srv, t, scoped(s, t, h))
}

// scoped checks the caller's scope before h runs (Options.Caller): a
// tool annotated read-only needs read, every other tool write, so a tool
// added later without the annotation is refused to a read token rather
// than let through. Without Options.Caller it is h.
func scoped[In, Out any](s *Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	if s.opt.Caller == nil {
		return h
	}
	need := ledger.ScopeWrite
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		need = ledger.ScopeRead
	}
	name := t.Name
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var zero Out
		who, scope, ok := s.opt.Caller(req)
		if !ok {
			return nil, zero, &ToolError{Code: CodeForbidden, Message: fmt.Sprintf("%s: the call has no token", name)}
		}
		if !ledger.ScopeAllows(scope, need) {
			return nil, zero, &ToolError{Code: CodeForbidden,
				Message: fmt.Sprintf("%s: the token %s has scope %s; %s needs %s; nothing was written", name, who, scope, name, need),
				Hint:    "use a token with scope " + need + " (linkledger token add NAME --scope " + need + " on the server)"}
		}
		return h(ctx, req, in)
	}
}

// compactOutput makes an output schema cheaper for a client to read while
// it still checks what a client walks: the result's keys and the keys of
// its entries (an item, a pack, a citation), with their types, which are
// always there, and no others (additionalProperties: false, as inferred).
// An object below that (why_ranked, a highlight, a passage, a pack's
// options) is given as {"type": "object"}: its keys are in docs/agents.md
// and docs/records.md, and spelling them out in every tool cost more than
// half the tool list (docs/agents.md "The tool list"). The descriptions of
// its properties are dropped too (the tool's description and the docs say
// what a result holds; an output schema is for code, which reads keys and
// types).
func compactOutput(s *jsonschema.Schema) *jsonschema.Schema {
	if s == recordSchema {
		return s
	}
	c := cloneSchema(s)
	walkSchema(c, func(sub *jsonschema.Schema) { sub.Description = "" })
	c.Description = s.Description
	shallow(c, 0)
	return c
}

// outputDepth is how many levels of objects an output schema spells out:
// the result and its entries (compactOutput).
const outputDepth = 2

// shallow cuts every object of s nested deeper than outputDepth objects
// (depth: the objects s sits in) to {"type": "object"}.
func shallow(s *jsonschema.Schema, depth int) {
	if s == nil || s == recordSchema {
		return
	}
	if s.Type == "object" && depth >= outputDepth {
		*s = jsonschema.Schema{Type: "object"}
		return
	}
	if s.Type == "object" {
		depth++
	}
	for _, sub := range s.Properties {
		shallow(sub, depth)
	}
	shallow(s.Items, depth)
}

// walkSchema calls f on s and every subschema of s.
func walkSchema(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil || s == recordSchema {
		return
	}
	for _, sub := range s.Properties {
		walkSchema(sub, f)
	}
	for _, sub := range s.Defs {
		walkSchema(sub, f)
	}
	walkSchema(s.Items, f)
	walkSchema(s.AdditionalProperties, f)
	f(s)
}

// cloneSchema copies s deeply (through JSON), so that compactOutput does
// not change a schema another tool shares.
func cloneSchema(s *jsonschema.Schema) *jsonschema.Schema {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	var c jsonschema.Schema
	if err := json.Unmarshal(b, &c); err != nil {
		panic(err)
	}
	return &c
}
