package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
)

// ControlFrontHeader is the header by which a front that proxies the
// control API (the gateway of a2amock serve --gateway) vouches for a control
// call; see Config.ControlFrontSecret.
const ControlFrontHeader = "X-A2amock-Front"

// sameSecret compares two secrets in constant time, their lengths included:
// subtle.ConstantTimeCompare returns at once on a length mismatch, so both
// sides are hashed to a fixed length first.
func sameSecret(got, want string) bool {
	g, w := sha256.Sum256([]byte(got)), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(g[:], w[:]) == 1
}

// guardControl keeps the control API (/_a2amock/...) to loopback clients, or,
// when a control token is configured, to clients that present it. With a
// front secret, only calls the front vouches for are answered at all; and a
// state-changing call from a browser page of another site is refused.
func (s *Server) guardControl(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if sec := s.cfg.ControlFrontSecret; sec != "" && !sameSecret(r.Header.Get(ControlFrontHeader), sec) {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED",
				"the control API answers only the calls the front of this server forwards to it", nil)
		}
		if tok := s.cfg.ControlToken; tok != "" {
			if !sameSecret(r.Header.Get("Authorization"), "Bearer "+tok) {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="a2amock control"`)
				return controlError(c, http.StatusUnauthorized, "UNAUTHENTICATED",
					"the control API requires the bearer token given by --control-token", nil)
			}
		} else if s.cfg.ControlFrontSecret == "" && !isLoopback(r) {
			// Behind a front, the front applied this rule to the real client.
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED",
				"the control API answers loopback clients only; start the server with --control-token to open it", nil)
		}
		if msg := crossSite(r, s.cfg.ControlToken == ""); msg != "" {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED", msg, nil)
		}
		return next(c)
	}
}

// crossSite says why a state-changing control call (anything but GET, HEAD
// and OPTIONS) looks like it was sent by a page of another site, or "". A
// browser may send a simple cross-origin POST without a preflight, so the
// loopback rule alone would let any web page reset the mock: such calls carry
// an Origin (or Sec-Fetch-Site) that is not the server's own. Without a
// token, the Host must also be a loopback name, so a page that rebinds its
// own DNS name to 127.0.0.1 is refused too.
func crossSite(r *http.Request, loopbackOnly bool) string {
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
	if loopbackOnly && !loopbackHost(r.Host) {
		return "the control API refuses state-changing calls addressed to " + r.Host + ": without --control-token, use a loopback address (127.0.0.1, [::1] or localhost)"
	}
	return ""
}

// loopbackHost reports whether a Host header names a loopback address.
func loopbackHost(host string) bool {
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

// controlRoutes serves the journal, reset and health endpoints, the
// behaviors, the agents, the metrics and the OpenAPI description.
func (s *Server) controlRoutes(g *echo.Group) {
	g.GET("/journal", s.serveJournal)
	g.POST("/reset", s.serveReset)
	s.behaviorRoutes(g)
	s.agentRoutes(g)
	g.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "agents": s.AgentNames()})
	})
}
