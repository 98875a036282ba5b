package linkledger

import (
	"context"
	"net/http"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
	"github.com/linkledger/linkledger/lib/serve"
)

// servedAPI is the front command's JSON API (lib/remote) on the ledger
// db: the remote verbs of LINKLEDGER_URL run this same command, with
// filters, on it, as the request's token (identity). `linkledger serve`
// mounts it at /api/v1/ behind its token middleware:
//
//	serve.Options{..., API: servedAPI(filters, env, loc.Path, serveIdentity)}
func servedAPI(filters Filters, env cli.Env, db string, identity func(*http.Request) (string, string, bool)) http.Handler {
	return remote.Handler(remote.Options{
		DB:       db,
		Run:      func(ctx context.Context, e cli.Env, args []string) int { return Run(ctx, filters, e, args) },
		Identity: identity,
		Getenv:   env.Getenv,
	})
}

// serveIdentity is the token the served handler's middleware checked
// (serve.IdentityFrom): its name and scope.
func serveIdentity(r *http.Request) (string, string, bool) {
	id, ok := serve.IdentityFrom(r.Context())
	return id.Name, id.Scope, ok
}
