package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/internal/httpserve"
)

// ControlFrontHeader is the header by which a front that proxies the
// control API (the gateway of a2amock serve --gateway) vouches for a control
// call; see Config.ControlFrontSecret.
const ControlFrontHeader = "X-A2amock-Front"

// guardControl keeps the control API (/_a2amock/...) to loopback clients, or,
// when a control token is configured, to clients that present it. With a
// front secret, only calls the front vouches for are answered at all; and a
// state-changing call from a browser page of another site is refused.
func (s *Server) guardControl(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if sec := s.cfg.ControlFrontSecret; sec != "" && !httpserve.SameSecret(r.Header.Get(ControlFrontHeader), sec) {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED",
				"the control API answers only the calls the front of this server forwards to it", nil)
		}
		if tok := s.cfg.ControlToken; tok != "" {
			if !httpserve.SameSecret(r.Header.Get("Authorization"), "Bearer "+tok) {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="a2amock control"`)
				return controlError(c, http.StatusUnauthorized, "UNAUTHENTICATED",
					"the control API requires the bearer token given by --control-token", nil)
			}
		} else if s.cfg.ControlFrontSecret == "" && !httpserve.LoopbackRemote(r) {
			// Behind a front, the front applied this rule to the real client.
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED",
				"the control API answers loopback clients only; start the server with --control-token to open it", nil)
		}
		if msg := httpserve.CrossSite(r, s.cfg.ControlToken == ""); msg != "" {
			return controlError(c, http.StatusForbidden, "PERMISSION_DENIED", msg, nil)
		}
		return next(c)
	}
}

// controlRoutes serves the journal, reset and health endpoints, the
// behaviors, the agents, the metrics and the OpenAPI description.
func (s *Server) controlRoutes(g *echo.Group) {
	g.GET("/journal", s.serveJournal)
	g.GET("/journal/stream", s.serveJournalStream)
	g.GET("/journal/wire", s.serveWire)
	g.POST("/reset", s.serveReset)
	s.behaviorRoutes(g)
	s.agentRoutes(g)
	g.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "agents": s.AgentNames()})
	})
}
