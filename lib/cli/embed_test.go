package cli

import (
	"context"
	"testing"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// storedEmbed is a fixed stored setting (cli.EmbedSettings).
type storedEmbed struct{ set *embed.Endpoint }

func (s storedEmbed) StoredEmbed(context.Context) (embed.Endpoint, *spec.StoredSetting, error) {
	if s.set == nil {
		return embed.Endpoint{}, nil, nil
	}
	return *s.set, &spec.StoredSetting{Key: "embed"}, nil
}

// mapEnv is an environment of vars only, telling unset from "".
func mapEnv(vars map[string]string) Env {
	return Env{
		Getenv:    func(k string) string { return vars[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
	}
}

func ptr(s string) *string { return &s }

// TestEmbedPrefixes: the prefixes a client gets, by precedence: the
// environment's (set, even to ""), the stored ones (an explicit "" too),
// the model's defaults.
func TestEmbedPrefixes(t *testing.T) {
	const url = "http://127.0.0.1:9/v1"
	for _, tc := range []struct {
		name       string
		vars       map[string]string
		stored     *embed.Endpoint
		doc, query string
	}{
		{"env, known model: its defaults", map[string]string{EnvEmbedURL: url, EnvEmbedModel: "nomic-embed-text"}, nil, "search_document: ", "search_query: "},
		{"env, other model: none", map[string]string{EnvEmbedURL: url, EnvEmbedModel: "hash-64"}, nil, "", ""},
		{"env prefixes win", map[string]string{EnvEmbedURL: url, EnvEmbedModel: "nomic-embed-text", EnvEmbedDocPrefix: "d: ", EnvEmbedQueryPrefix: "q: "}, nil, "d: ", "q: "},
		{"env explicit empty wins over the default", map[string]string{EnvEmbedURL: url, EnvEmbedModel: "nomic-embed-text", EnvEmbedDocPrefix: ""}, nil, "", "search_query: "},
		{"stored, no prefixes: the model's", map[string]string{}, &embed.Endpoint{URL: url, Model: "e5-base-v2"}, "passage: ", "query: "},
		{"stored prefixes", map[string]string{}, &embed.Endpoint{URL: url, Model: "e5-base-v2", DocPrefix: ptr("p "), QueryPrefix: ptr("")}, "p ", ""},
		{"env prefix over stored", map[string]string{EnvEmbedQueryPrefix: "eq "}, &embed.Endpoint{URL: url, Model: "e5-base-v2", QueryPrefix: ptr("sq ")}, "passage: ", "eq "},
		{"env explicit empty over stored", map[string]string{EnvEmbedDocPrefix: ""}, &embed.Endpoint{URL: url, Model: "m", DocPrefix: ptr("sd ")}, "", ""},
		{"env model over stored: its defaults", map[string]string{EnvEmbedModel: "bge-base-en-v1.5"}, &embed.Endpoint{URL: url, Model: "m"}, "", "Represent this sentence for searching relevant passages: "},
		{"env names the endpoint: stored not read", map[string]string{EnvEmbedURL: url, EnvEmbedModel: "m"}, &embed.Endpoint{URL: url, Model: "m", DocPrefix: ptr("sd ")}, "", ""},
	} {
		env, err := WithStoredEmbed(context.Background(), mapEnv(tc.vars), storedEmbed{tc.stored})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c, err := EmbedFromEnv(env, 0)
		if err != nil || c == nil {
			t.Fatalf("%s: client %v, %v", tc.name, c, err)
		}
		if c.DocPrefix != tc.doc || c.QueryPrefix != tc.query {
			t.Errorf("%s: prefixes %q, %q; want %q, %q", tc.name, c.DocPrefix, c.QueryPrefix, tc.doc, tc.query)
		}
		// what a filter run by the front command is handed (runFilter)
		for k, want := range map[string]*string{EnvEmbedDocPrefix: &tc.doc, EnvEmbedQueryPrefix: &tc.query} {
			v, ok := env.Lookup(k)
			if ok {
				if v != *want {
					t.Errorf("%s: %s = %q, want %q", tc.name, k, v, *want)
				}
			}
		}
	}
	// a bad prefix is an error naming the variable, never a client
	_, err := EmbedFromEnv(mapEnv(map[string]string{EnvEmbedURL: url, EnvEmbedModel: "m", EnvEmbedQueryPrefix: "x\x01"}), 0)
	if err == nil || err.Error() != "LINKLEDGER_EMBED_QUERY_PREFIX: want text of at most 256 bytes without control characters" {
		t.Errorf("bad prefix: %v", err)
	}
}
