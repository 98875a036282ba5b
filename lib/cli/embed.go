package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
	"github.com/linkledger/linkledger/lib/store"
)

// Environment of the embeddings endpoint (docs/retrieval.md). The key is
// read from the environment only: never a flag, never stored, logged or
// echoed.
const (
	EnvEmbedURL   = "LINKLEDGER_EMBED_URL"
	EnvEmbedModel = "LINKLEDGER_EMBED_MODEL"
	EnvEmbedKey   = "LINKLEDGER_EMBED_KEY"
)

// EmbedFromEnv is the embeddings client the environment configures, nil
// when LINKLEDGER_EMBED_URL is unset or empty (no endpoint: every command
// behaves as without embeddings). A URL that is not http(s), or a URL
// without LINKLEDGER_EMBED_MODEL, is an error naming the variable (the
// URL itself is never echoed: it may carry a secret).
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
	return &embed.Client{URL: u, Model: m, Key: getenv(EnvEmbedKey), Timeout: timeout,
		Attempts: embed.DefaultAttempts, BatchSize: embed.DefaultBatchSize, HTTP: &http.Client{}}, nil
}

// EmbedSettings is where WithStoredEmbed reads the stored endpoint: the
// store (a filter's) or a ledger.Ledger (a face's).
type EmbedSettings interface {
	StoredEmbed(ctx context.Context) (store.EmbedSetting, *store.StoredSetting, error)
}

// WithStoredEmbed returns env with the ledger's stored embeddings
// endpoint (linkledger config embed) in LINKLEDGER_EMBED_URL and
// LINKLEDGER_EMBED_MODEL where the environment leaves them unset: the
// environment overrides the stored setting, each variable on its own,
// and the key stays the environment's alone. With none stored (or one
// stored off), env is returned as it is. A setting that cannot be
// read is an error; env is then returned unchanged too.
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
	e := env
	e.Getenv = func(k string) string {
		v := getenv(k)
		switch {
		case v != "":
		case k == EnvEmbedURL:
			v = set.URL
		case k == EnvEmbedModel:
			v = set.Model
		}
		return v
	}
	return e, nil
}
