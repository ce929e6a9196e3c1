package server

import (
	"crypto/subtle"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
)

// guardControl keeps the control API (/_a2amock/...) to loopback clients, or,
// when a control token is configured, to clients that present it.
func (s *Server) guardControl(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if tok := s.cfg.ControlToken; tok != "" {
			got := r.Header.Get("Authorization")
			want := "Bearer " + tok
			if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
				c.Response().Header().Set("WWW-Authenticate", `Bearer realm="a2amock control"`)
				return c.JSON(http.StatusUnauthorized, map[string]any{"error": map[string]any{
					"code": 401, "status": "UNAUTHENTICATED", "message": "the control API requires the bearer token given by --control-token"}})
			}
			return next(c)
		}
		if !isLoopback(r) {
			return c.JSON(http.StatusForbidden, map[string]any{"error": map[string]any{
				"code": 403, "status": "PERMISSION_DENIED", "message": "the control API answers loopback clients only; start the server with --control-token to open it"}})
		}
		return next(c)
	}
}

// controlRoutes serves the journal, reset and health endpoints.
func (s *Server) controlRoutes(g *echo.Group) {
	g.GET("/journal", func(c echo.Context) error {
		var since int64
		if v := c.QueryParam("since"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return c.JSON(http.StatusBadRequest, map[string]any{"error": map[string]any{
					"code": 400, "status": "INVALID_ARGUMENT", "message": "since must be an integer sequence number"}})
			}
			since = n
		}
		entries := s.journal.Since(since)
		if name := c.QueryParam("agent"); name != "" {
			kept := entries[:0:0]
			for _, e := range entries {
				if e.Agent == name {
					kept = append(kept, e)
				}
			}
			entries = kept
		}
		if entries == nil {
			entries = []Entry{}
		}
		return c.JSON(http.StatusOK, map[string]any{"entries": entries})
	})
	g.POST("/reset", func(c echo.Context) error {
		s.Reset()
		return c.NoContent(http.StatusNoContent)
	})
	s.behaviorRoutes(g)
	g.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]any{"status": "ok", "agents": s.AgentNames()})
	})
}
