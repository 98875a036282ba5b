package embed

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// MaxModelName bounds a model name.
const MaxModelName = 200

// Endpoint is an embeddings endpoint as a ledger stores it (linkledger
// config embed): its base URL and model, or Off (stored "no endpoint").
// The key is never stored: it is read from the environment only
// (LINKLEDGER_EMBED_KEY). DocPrefix and QueryPrefix are the model's task
// prefixes (DefaultPrefixes); nil: none stored, the model's default
// applies; "": none, stored.
type Endpoint struct {
	URL         string  `json:"url,omitempty"`
	Model       string  `json:"model,omitempty"`
	Off         bool    `json:"off,omitempty"`
	DocPrefix   *string `json:"doc_prefix,omitempty"`
	QueryPrefix *string `json:"query_prefix,omitempty"`
}

// Prefixes are the document and query prefixes the setting gives its
// model: the stored ones, else the model's defaults.
func (e Endpoint) Prefixes() (doc, query string) {
	doc, query = DefaultPrefixes(e.Model)
	if e.DocPrefix != nil {
		doc = *e.DocPrefix
	}
	if e.QueryPrefix != nil {
		query = *e.QueryPrefix
	}
	return doc, query
}

// MaxEndpointURL bounds an endpoint URL.
const MaxEndpointURL = 2048

// Valid checks the setting: off, or an http(s) URL without user info (a
// secret goes in LINKLEDGER_EMBED_KEY, never in the ledger) and a model.
func (e Endpoint) Valid() error {
	if e.Off {
		if e.URL != "" || e.Model != "" || e.DocPrefix != nil || e.QueryPrefix != nil {
			return errors.New("embed off takes no url, model or prefix")
		}
		return nil
	}
	for _, p := range []struct {
		name string
		v    *string
	}{{"doc prefix", e.DocPrefix}, {"query prefix", e.QueryPrefix}} {
		if p.v != nil {
			if err := CheckPrefix(*p.v); err != nil {
				return fmt.Errorf("embed %s: %v", p.name, err)
			}
		}
	}
	if len(e.URL) > MaxEndpointURL {
		return fmt.Errorf("embed url: want at most %d bytes", MaxEndpointURL)
	}
	if err := CheckURL(e.URL); err != nil {
		return fmt.Errorf("embed url: %v", err)
	}
	if e.Model == "" || len(e.Model) > MaxModelName || strings.ContainsFunc(e.Model, unicode.IsControl) {
		return fmt.Errorf("embed model: want a name of 1..%d bytes without control characters", MaxModelName)
	}
	return nil
}
