package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
)

// LoopbackOnlyEnv names the environment variable that confines every
// connection lib/fetch makes (pages, redirects, images) to loopback. With
// it set to 1, a host that is not "localhost" or a loopback IP literal is
// refused before any DNS lookup or connection: nothing leaves the machine,
// whatever a page links to. The test suites set it (`make test`, the e2e
// scripts) so that a real page's image on a public CDN is never asked for;
// a sandbox may set it too.
const LoopbackOnlyEnv = "LINKLEDGER_LOOPBACK_ONLY"

// loopbackOnly reports whether LoopbackOnlyEnv is set to 1 now.
func loopbackOnly() bool { return os.Getenv(LoopbackOnlyEnv) == "1" }

// loopbackAddress reports whether address (host:port, as a dialer gets
// it) names loopback without needing a lookup.
func loopbackAddress(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// loopbackDial wraps dial so that, under LoopbackOnlyEnv, an address that
// is not loopback is refused before it is resolved or dialled.
func loopbackDial(dial func(ctx context.Context, network, address string) (net.Conn, error)) func(ctx context.Context, network, address string) (net.Conn, error) {
	if !loopbackOnly() {
		return dial
	}
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		if !loopbackAddress(address) {
			return nil, &blockedError{what: address, msg: fmt.Sprintf("%s refused: %s=1 allows loopback only", address, LoopbackOnlyEnv)}
		}
		return dial(ctx, network, address)
	}
}
