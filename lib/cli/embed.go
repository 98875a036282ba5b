package cli

import (
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/linkledger/linkledger/lib/embed"
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
