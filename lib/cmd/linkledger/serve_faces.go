package linkledger

// The faces linkledger serve mounts beside MCP: the web app in its served
// mode (sign-in with a device token) and the Litestream child process of
// --replica (docs/several-machines.md).

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/ledger"
	"github.com/linkledger/linkledger/lib/mcp"
	"github.com/linkledger/linkledger/lib/replica"
	"github.com/linkledger/linkledger/lib/web"
)

// servedWeb is the web app at / of linkledger serve: its public origins
// are those given (--origin), else the address served; a person signs in
// with a device token, checked on the ledger (and again on every request,
// so a revoked token signs its sessions out).
func servedWeb(st *ledger.Ledger, origins []string, base string, mo mcp.Options, diag cli.Diag) (http.Handler, error) {
	if len(origins) == 0 {
		origins = []string{base}
	}
	// web.New checks each origin (scheme://host[:port], no path, user or
	// query) and says which one it refused
	signIn, tokenScope := web.LedgerTokens(st)
	srv, err := web.New(web.Options{
		Ledger:   st,
		Embedder: mo.Embedder,
		Poke:     mo.Worker,
		Logf:     diag.Printf,
		Served: &web.Served{
			Origins: origins,
			// a Secure cookie is sent over https only: the first origin says
			// how browsers reach the app
			Secure: strings.HasPrefix(origins[0], "https://"),
			// the ledger's tokens, read afresh on every request; a failed
			// read (the ledger busy) is a 500, never a sign-out
			SignIn:     signIn,
			TokenScope: tokenScope,
		},
	})
	if err != nil {
		return nil, err
	}
	return srv.Handler(), nil
}

// replicaReadyWait bounds the wait for Litestream's first snapshot.
const replicaReadyWait = 2 * time.Minute

// startReplica starts Litestream copying the ledger at db to u, and
// returns once its first snapshot is in the replica (replica.Process.Ready:
// before that a clean stop would ship nothing), so that every request the
// server acknowledges afterwards is one a clean stop copies.
func startReplica(ctx context.Context, env cli.Env, db, u string) (*replica.Process, error) {
	if _, err := replica.ParseURL(u); err != nil {
		return nil, cli.Usage("--replica: %v", err)
	}
	bin, err := litestreamBinary(env)
	if err != nil {
		return nil, &cli.ExitError{Code: cli.ExitFatal, Err: err}
	}
	p, err := replica.Start(ctx, replica.Options{DB: db, URL: u, Binary: bin, Stderr: env.Stderr, SFTP: replicaSFTP(env)})
	if err != nil {
		return nil, &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("--replica: %w", err)}
	}
	t := time.NewTimer(replicaReadyWait)
	defer t.Stop()
	select {
	case <-p.Ready():
		return p, nil
	case <-p.Done():
		err = p.Err()
	case <-t.C:
		err = fmt.Errorf("no first snapshot in %s (its log above says why)", replicaReadyWait)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if serr := p.Stop(context.Background()); serr != nil && err == nil {
		err = serr
	}
	return nil, &cli.ExitError{Code: cli.ExitFatal, Err: fmt.Errorf("--replica %s: litestream did not start copying: %w", u, err)}
}

// envSet is env with variable k set to v (Getenv and LookupEnv).
func envSet(env cli.Env, k, v string) cli.Env {
	get, look := env.Getenv, env.LookupEnv
	env.Getenv = func(name string) string {
		if name == k {
			return v
		}
		if get == nil {
			return ""
		}
		return get(name)
	}
	env.LookupEnv = func(name string) (string, bool) {
		if name == k {
			return v, true
		}
		if look != nil {
			return look(name)
		}
		if get == nil {
			return "", false
		}
		val := get(name)
		return val, val != ""
	}
	return env
}
