package fetch

import (
	"net"
	"net/netip"
	"strconv"
	"syscall"
)

// The address guard of Options.PublicOnly. It runs in the dialer's
// Control hook, so it sees the address really being connected after DNS
// resolution, for the first request, every redirect hop and every source
// fetcher request: a name that resolves (or later re-resolves) to a
// private address cannot slip past it.

// blockedError is returned by the dial hook for a refused address.
// msg, when set, replaces the --public-only wording (the loopback-only
// mode of loopback.go).
type blockedError struct{ what, msg string }

func (e *blockedError) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.what + " is not a public address (--public-only)"
}

// nonPublic are the prefixes PublicAddr refuses besides the classes that
// netip.Addr reports itself (loopback, private, link-local, multicast,
// unspecified).
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT (and Alibaba's metadata 100.100.100.200)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, and broadcast
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64
	netip.MustParsePrefix("100::/64"),           // discard
	netip.MustParsePrefix("2001:db8::/32"),      // documentation
	netip.MustParsePrefix("fec0::/10"),          // old site-local
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (also link-local; listed to be explicit)
}

// nat64 is the well-known NAT64 prefix: its addresses reach the IPv4
// address in their last 4 bytes.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// PublicAddr reports whether a is an address the guard lets ll-fetch
// connect to: not loopback, private (RFC 1918, ULA fc00::/7, which holds
// AWS's fd00:ec2::254 metadata address), link-local (169.254/16 with the
// cloud metadata address, fe80::/10), CGNAT (100.64/10), unspecified,
// multicast, broadcast, documentation or reserved. IPv4-mapped and NAT64
// (64:ff9b::/96) IPv6 addresses are judged by the IPv4 address inside.
func PublicAddr(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		return PublicAddr(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// dialControl is the dialer's Control hook: with PublicOnly it refuses an
// address f.blocked refuses, before the connection is made.
func (f *Fetcher) dialControl(network, address string, _ syscall.RawConn) error {
	if !f.opts.PublicOnly {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// The dialer always hands an IP and port; refuse anything else.
		host, _, _ := net.SplitHostPort(address)
		return &blockedError{what: strconv.Quote(host) + " (not an IP address)"}
	}
	if f.blocked(ap) {
		return &blockedError{what: ap.Addr().Unmap().String()}
	}
	return nil
}
