package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/ledger/spec"
)

// Environment of the embeddings endpoint (docs/retrieval.md). The key is
// read from the environment only: never a flag, never stored, logged or
// echoed.
const (
	EnvEmbedURL   = "LINKLEDGER_EMBED_URL"
	EnvEmbedModel = "LINKLEDGER_EMBED_MODEL"
	EnvEmbedKey   = "LINKLEDGER_EMBED_KEY"
	// The model's task prefixes (embed.DefaultPrefixes): set, even to
	// "", they win over the stored ones and the model's default.
	EnvEmbedDocPrefix   = "LINKLEDGER_EMBED_DOC_PREFIX"
	EnvEmbedQueryPrefix = "LINKLEDGER_EMBED_QUERY_PREFIX"
)

// EmbedFromEnv is the embeddings client the environment configures, nil
// when LINKLEDGER_EMBED_URL is unset or empty (no endpoint: every command
// behaves as without embeddings). A URL that is not http(s), or a URL
// without LINKLEDGER_EMBED_MODEL, is an error naming the variable (the
// URL itself is never echoed: it may carry a secret). The task prefixes
// are LINKLEDGER_EMBED_DOC_PREFIX and LINKLEDGER_EMBED_QUERY_PREFIX when
// set (even to ""), else the model's defaults (embed.DefaultPrefixes).
func EmbedFromEnv(env Env, timeout time.Duration) (*embed.Client, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	u := getenv(EnvEmbedURL)
	if u == "" {
		return nil, nil
	}
	if err := embed.CheckURL(u); err != nil {
		return nil, fmt.Errorf("%s: %v", EnvEmbedURL, err)
	}
	m := getenv(EnvEmbedModel)
	if m == "" {
		return nil, fmt.Errorf("%s is set but %s is not: name the embedding model (for example nomic-embed-text)", EnvEmbedURL, EnvEmbedModel)
	}
	if timeout <= 0 {
		timeout = embed.DefaultTimeout
	}
	doc, query := embed.DefaultPrefixes(m)
	for _, p := range []struct {
		k string
		v *string
	}{{EnvEmbedDocPrefix, &doc}, {EnvEmbedQueryPrefix, &query}} {
		if v, ok := env.Lookup(p.k); ok {
			if err := embed.CheckPrefix(v); err != nil {
				return nil, fmt.Errorf("%s: %v", p.k, err)
			}
			*p.v = v
		}
	}
	return &embed.Client{URL: u, Model: m, Key: getenv(EnvEmbedKey), DocPrefix: doc, QueryPrefix: query, Timeout: timeout,
		Attempts: embed.DefaultAttempts, BatchSize: embed.DefaultBatchSize, HTTP: &http.Client{}}, nil
}

// EmbedSettings is where WithStoredEmbed reads the stored endpoint: the
// store (a filter's) or a ledger.Ledger (a face's).
type EmbedSettings interface {
	StoredEmbed(ctx context.Context) (embed.Endpoint, *spec.StoredSetting, error)
}

// WithStoredEmbed returns env with the ledger's stored embeddings
// endpoint (linkledger config embed) in LINKLEDGER_EMBED_URL and
// LINKLEDGER_EMBED_MODEL where the environment leaves them unset, and
// its stored task prefixes (an explicit "" too) in
// LINKLEDGER_EMBED_DOC_PREFIX and _QUERY_PREFIX where the environment
// does not set them: the environment overrides the stored setting, each
// variable on its own, and the key stays the environment's alone. When
// the environment names both URL and model the setting is not read.
// With none stored (or one stored off), env is returned as it is. A
// setting that cannot be read is an error; env is then returned
// unchanged too.
func WithStoredEmbed(ctx context.Context, env Env, st EmbedSettings) (Env, error) {
	getenv := env.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv(EnvEmbedURL) != "" && getenv(EnvEmbedModel) != "" {
		return env, nil
	}
	set, row, err := st.StoredEmbed(ctx)
	if err != nil || row == nil || set.Off {
		return env, err
	}
	endpoint := map[string]string{EnvEmbedURL: set.URL, EnvEmbedModel: set.Model}
	stored := map[string]*string{EnvEmbedDocPrefix: set.DocPrefix, EnvEmbedQueryPrefix: set.QueryPrefix}
	e := env
	e.LookupEnv = func(k string) (string, bool) {
		switch k {
		case EnvEmbedURL, EnvEmbedModel:
			v := getenv(k)
			if v == "" {
				v = endpoint[k]
			}
			return v, v != ""
		case EnvEmbedDocPrefix, EnvEmbedQueryPrefix:
			if v, ok := env.Lookup(k); ok || stored[k] == nil {
				return v, ok
			}
			return *stored[k], true
		}
		return env.Lookup(k)
	}
	e.Getenv = func(k string) string {
		if k == EnvEmbedURL || k == EnvEmbedModel || stored[k] != nil {
			v, _ := e.LookupEnv(k)
			return v
		}
		return getenv(k)
	}
	return e, nil
}
