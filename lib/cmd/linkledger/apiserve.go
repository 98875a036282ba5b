package linkledger

// A hidden, test-only server of the front command's JSON API (lib/remote)
// on loopback: `linkledger api-serve-test --tokens FILE`, serving the same
// handler (servedAPI) behind a token check of its own. The e2e scripts use
// it to run the remote verbs against a real server until `linkledger
// serve` mounts servedAPI at /api/v1/ (serve_api.go); the lead removes it
// at that merge.

import (
	"bufio"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v3"

	"github.com/linkledger/linkledger/lib/cli"
	"github.com/linkledger/linkledger/lib/remote"
)

const apiServeName = "api-serve-test"

type testToken struct{ secret, name, scope string }

func apiServeVerb(filters Filters, env cli.Env) *ucli.Command {
	return &ucli.Command{
		Name:      apiServeName,
		Hidden:    true,
		Usage:     "test only: serve the front command's API on loopback",
		UsageText: "linkledger " + apiServeName + " --tokens FILE [--db FILE] [--addr 127.0.0.1:0] [--url-file FILE]",
		Flags: []ucli.Flag{
			cli.DBFlag(),
			&ucli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "loopback `HOST:PORT`"},
			&ucli.StringFlag{Name: "tokens", Usage: "`FILE` of lines: SECRET NAME SCOPE"},
			&ucli.StringFlag{Name: "url-file", Usage: "also write the base URL to `FILE`"},
		},
		Action: func(ctx context.Context, c *ucli.Command) error {
			return inVerb(c, apiServe(ctx, filters, env, c))
		},
	}
}

func apiServe(ctx context.Context, filters Filters, env cli.Env, c *ucli.Command) error {
	loc, err := cli.LocateDB(c.String("db"), env)
	if err != nil {
		return err
	}
	tokens, err := readTestTokens(c.String("tokens"))
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(c.String("addr"))
	if err != nil || !remote.Loopback(host) {
		return cli.Usage("--addr %q: this test server listens on loopback only", c.String("addr"))
	}
	ln, err := net.Listen("tcp", c.String("addr"))
	if err != nil {
		return err
	}
	identity := func(r *http.Request) (string, string, bool) {
		secret, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			return "", "", false
		}
		for _, t := range tokens {
			if subtle.ConstantTimeCompare([]byte(secret), []byte(t.secret)) == 1 {
				return t.name, t.scope, true
			}
		}
		return "", "", false
	}
	h := servedAPI(filters, env, loc.Path, identity)
	mux := http.NewServeMux()
	mux.Handle(remote.Mount, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := identity(r); !ok {
			http.Error(w, `{"error":"no valid token"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	base := "http://" + ln.Addr().String() + "/"
	if f := c.String("url-file"); f != "" {
		if err := os.WriteFile(f, []byte(base), 0o600); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.Stdout, base)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-done:
		return err
	}
}

func readTestTokens(path string) ([]testToken, error) {
	if path == "" {
		return nil, cli.Usage("--tokens FILE: wanted")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []testToken
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) == 0 {
			continue
		}
		if len(w) != 3 {
			return nil, fmt.Errorf("%s: want lines SECRET NAME SCOPE", path)
		}
		out = append(out, testToken{w[0], w[1], w[2]})
	}
	if len(out) == 0 {
		return nil, errors.New(path + ": no tokens")
	}
	return out, sc.Err()
}
