package httpserve

import (
	"net"
	"strings"
)

// DialAddr is addr as a client on the same host reaches it: a listener on
// every interface (0.0.0.0, ::, or an empty host, as ":8080" gives) is
// reached at 127.0.0.1, which Go's dual-stack wildcard listeners accept;
// any other address is returned as it is. A URL printed for a user, or
// dialled by the server's own front, must name a host one can connect to,
// and http://[::]:8080 is not one a browser or curl will take.
func DialAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); host == "" || ip != nil && ip.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}
