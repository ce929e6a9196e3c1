package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// SameSecret compares two secrets in constant time, their lengths included:
// subtle.ConstantTimeCompare returns at once on a length mismatch, so both
// sides are hashed to a fixed length first.
func SameSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// CrossSite says why a state-changing control call (anything but GET, HEAD
// and OPTIONS) looks like it was sent by a page of another site, or "". A
// browser may send a simple cross-origin POST without a preflight, so a
// loopback-only rule alone would let any web page reset a mock the user
// runs: such calls carry an Origin (or Sec-Fetch-Site) that is not the
// server's own. With loopbackOnly (no token), the Host must also be a
// loopback name, so a page that rebinds its own DNS name to 127.0.0.1 is
// refused too. curl, the SDKs and test clients send neither header.
func CrossSite(r *http.Request, loopbackOnly bool) string {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return ""
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "the control API refuses state-changing calls from another site (Sec-Fetch-Site: " + site + ")"
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host) {
			return "the control API refuses state-changing calls from another origin (" + origin + " is not " + r.Host + ")"
		}
	}
	if loopbackOnly && !LoopbackHost(r.Host) {
		return "the control API refuses state-changing calls addressed to " + r.Host + ": without --control-token, use a loopback address (127.0.0.1, [::1] or localhost)"
	}
	return ""
}

// LoopbackRemote reports whether r came from a loopback client: its
// RemoteAddr is a loopback address and no proxy header names another
// client (see ForwardedClient). Nothing the client writes can make it
// loopback; a forwarding header can only take that away.
func LoopbackRemote(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return false
	}
	_, client := ForwardedClient(r)
	return client == ""
}

// forwardingHeaders are the headers by which reverse proxies name the
// client they forward a request for.
var forwardingHeaders = []string{"Forwarded", "X-Forwarded-For", "X-Real-Ip", "True-Client-Ip", "X-Client-Ip", "Cf-Connecting-Ip", "Fastly-Client-Ip"}

// ForwardedClient returns the first client a forwarding header of r names
// that is not a loopback address, with the header's name, or "" and "".
// A reverse proxy on the mock's host (nginx, a sidecar, an ingress
// controller's pod) connects from loopback: without this, every client it
// forwarded would count as a loopback client. A client the proxy does not
// name by address (Forwarded: for=unknown, an obfuscated _identifier) is
// not loopback either. A proxy that adds none of these headers cannot be
// told from a local client; run the mock with --control-token behind one.
func ForwardedClient(r *http.Request) (header, client string) {
	for _, name := range forwardingHeaders {
		for _, line := range r.Header.Values(name) {
			for _, elem := range strings.Split(line, ",") {
				node := strings.TrimSpace(elem)
				if name == "Forwarded" {
					if node = forwardedFor(node); node == "" {
						continue
					}
				}
				if node == "" {
					continue
				}
				if !loopbackNode(node) {
					return name, node
				}
			}
		}
	}
	return "", ""
}

// forwardedFor is the for= node of one element of an RFC 7239 Forwarded
// header, unquoted, or "" when the element names none.
func forwardedFor(elem string) string {
	for _, pair := range strings.Split(elem, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "for") {
			v = strings.TrimSpace(v)
			if u, err := strconv.Unquote(v); err == nil {
				v = u
			}
			if v == "" {
				return "unknown"
			}
			return v
		}
	}
	return ""
}

// loopbackNode reports whether a node a proxy header names (an address,
// with or without a port, IPv6 in brackets or not) is a loopback address.
func loopbackNode(node string) bool {
	host := node
	if h, _, err := net.SplitHostPort(node); err == nil {
		host = h
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// LoopbackHost reports whether a Host header names a loopback address.
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LoopbackOnlyMessage is the refusal the control API gives a client that
// is not loopback when no control token is set; it names the forwarded
// client when a proxy header was the reason.
func LoopbackOnlyMessage(r *http.Request) string {
	msg := "the control API answers loopback clients only; start the server with --control-token to open it"
	if header, client := ForwardedClient(r); client != "" {
		msg += " (this request was forwarded for " + client + ", by its " + header + " header)"
	}
	return msg
}
