package serve

import (
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
)

// AddrError is a listen address refused, with why.
type AddrError struct {
	Addr string
	Why  string
	Hint string
}

func (e *AddrError) Error() string { return fmt.Sprintf("--addr %s: %s", e.Addr, e.Why) }

// Loopback reports whether host is a loopback address or localhost.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckAddr checks a listen address: HOST:PORT, and a host beyond
// loopback (any other address, or none: every interface) only with TLS
// (withTLS) or behindProxy (a TLS-terminating proxy, or a private network
// such as a tailnet, is in front): bearer tokens must not cross a network
// in clear.
func CheckAddr(addr string, withTLS, behindProxy bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return &AddrError{Addr: addr, Why: "want HOST:PORT, e.g. 127.0.0.1:7475", Hint: "try --addr 127.0.0.1:7475, or 127.0.0.1:0 for a free port"}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return &AddrError{Addr: addr, Why: "the port must be a number from 0 to 65535", Hint: "try --addr 127.0.0.1:7475"}
	}
	if Loopback(host) || withTLS || behindProxy {
		return nil
	}
	where := host
	if where == "" {
		where = "every interface"
	}
	return &AddrError{Addr: addr,
		Why:  fmt.Sprintf("%s is beyond loopback, and without TLS the tokens would cross the network in clear", where),
		Hint: "give --tls-cert FILE --tls-key FILE, or --behind-proxy when a TLS-terminating proxy or a private network (a tailnet) is in front; or listen on 127.0.0.1"}
}

// Listen checks addr (CheckAddr) and listens on it ("localhost" is
// 127.0.0.1, so a name that resolves elsewhere cannot widen it).
func Listen(addr string, withTLS, behindProxy bool) (net.Listener, error) {
	if err := CheckAddr(addr, withTLS, behindProxy); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	if host == "localhost" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	return net.Listen("tcp", addr)
}

// TLSConfig loads a certificate and its key (PEM files) for Serve.
func TLSConfig(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s, --tls-key %s: %w", certFile, keyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// BaseURL is the address clients use: http(s)://HOST:PORT of ln.
func BaseURL(ln net.Listener, withTLS bool) string {
	scheme := "http"
	if withTLS {
		scheme = "https"
	}
	return scheme + "://" + ln.Addr().String()
}
