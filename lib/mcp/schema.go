package mcp

import (
	"encoding/json"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"

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
