package findflags

import (
	"context"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
)

// Embedder sets o.Embedder from the environment (LINKLEDGER_EMBED_URL,
// LINKLEDGER_EMBED_MODEL, LINKLEDGER_EMBED_KEY, the task prefixes) or,
// where it names no endpoint, the ledger's stored one (linkledger config
// embed), for embedding the query (after its query prefix). A configuration that does not work is a warning
// on stderr and a lexical search, never a failed one.
func Embedder(ctx context.Context, env cli.Env, st cli.EmbedSettings, o *ledger.FindOptions, diag cli.Diag) {
	env, err := cli.WithStoredEmbed(ctx, env, st)
	if err != nil {
		diag.Printf("warning: %v: lexical ranking", err)
		return
	}
	c, err := cli.EmbedFromEnv(env, 0)
	if err != nil {
		diag.Printf("warning: %v: lexical ranking", err)
		return
	}
	o.Embedder = ledger.QueryClient(c)
}

// Warn writes the warnings of a search on stderr.
func Warn(diag cli.Diag, warnings []string) {
	for _, w := range warnings {
		diag.Printf("warning: %s", w)
	}
}
