package httpserve

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
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

// LoopbackRemote reports whether r came from a loopback address (its
// RemoteAddr, not anything the client wrote in the request).
func LoopbackRemote(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
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
