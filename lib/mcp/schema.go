package mcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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
	sdk.AddTool(s.srv, t, h)
}

// compactOutput makes an output schema cheaper for a client to read while
// validating the same results: the descriptions of its properties are
// dropped (the tool's description and docs/agents.md say what a result
// holds; an output schema is for code, which reads keys and types), and
// an object subschema that occurs more than once (highlights, lowlights
// and notes; a pack's entered and left) is given once under $defs, named
// by the first key it is found under, and referred to by $ref.
func compactOutput(s *jsonschema.Schema) *jsonschema.Schema {
	if s == recordSchema {
		return s
	}
	c := cloneSchema(s)
	walkSchema(c, func(sub *jsonschema.Schema) { sub.Description = "" })
	c.Description = s.Description
	// count the object subschemas by their JSON, innermost first so an
	// outer repeated schema refers to its inner ones
	count := map[string]int{}
	walkSchema(c, func(sub *jsonschema.Schema) {
		if sub != c && sub.Type == "object" && len(sub.Properties) > 0 {
			count[schemaKey(sub)]++
		}
	})
	names := map[string]string{}
	var rewrite func(key string, sub *jsonschema.Schema) *jsonschema.Schema
	rewrite = func(key string, sub *jsonschema.Schema) *jsonschema.Schema {
		if sub == nil {
			return nil
		}
		for _, k := range slices.Sorted(maps.Keys(sub.Properties)) {
			sub.Properties[k] = rewrite(k, sub.Properties[k])
		}
		sub.Items = rewrite(key, sub.Items)
		sub.AdditionalProperties = rewrite(key, sub.AdditionalProperties)
		if sub == c || sub.Type != "object" || len(sub.Properties) == 0 {
			return sub
		}
		k := schemaKey(sub)
		if count[k] < 2 {
			return sub
		}
		name, ok := names[k]
		if !ok {
			name = key
			for _, taken := range names {
				if taken == name {
					name = fmt.Sprintf("%s%d", key, len(names))
				}
			}
			names[k] = name
			if c.Defs == nil {
				c.Defs = map[string]*jsonschema.Schema{}
			}
			c.Defs[name] = sub
		}
		return &jsonschema.Schema{Ref: "#/$defs/" + name}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Properties)) {
		c.Properties[k] = rewrite(k, c.Properties[k])
	}
	return c
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

func schemaKey(s *jsonschema.Schema) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// cloneSchema copies s deeply (through JSON), so that compactOutput does
// not change a schema another tool shares.
func cloneSchema(s *jsonschema.Schema) *jsonschema.Schema {
	var c jsonschema.Schema
	if err := json.Unmarshal([]byte(schemaKey(s)), &c); err != nil {
		panic(err)
	}
	return &c
}
