package parse

import (
	"encoding/json"
	"strings"

	"github.com/linkledger/linkledger/lib/record"
)

// BundleAdapter returns an adapter for records whose body is a JSON bundle
// a source fetcher stored (YouTube, X): it matches on the bundle's content
// type, decodes the body into B and hands it to parse, a pure function.
func BundleAdapter[B any](name, contentType string, parse func(*B) (*Result, error)) Adapter {
	return bundleAdapter[B]{name: name, contentType: contentType, parse: parse}
}

type bundleAdapter[B any] struct {
	name, contentType string
	parse             func(*B) (*Result, error)
}

func (a bundleAdapter[B]) Name() string { return a.name }

func (a bundleAdapter[B]) Match(rec *record.Record) bool {
	return rec.Body != nil && rec.Fetch != nil && strings.HasPrefix(rec.Fetch.ContentType, a.contentType)
}

func (a bundleAdapter[B]) Parse(rec *record.Record) (*Result, error) {
	var b B
	if err := json.Unmarshal([]byte(*rec.Body), &b); err != nil {
		return nil, &record.Error{Stage: record.StageParse, Code: record.CodeExtractFailed, Message: a.name + " bundle is not valid json: " + err.Error()}
	}
	return a.parse(&b)
}
