package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/server/internal/metrics"
)

// serveMetrics is GET /_a2amock/metrics: the counts kept as the journal is
// written (package metrics) and the agents' state now.
func (s *Server) serveMetrics(c echo.Context) error {
	agents := s.allAgents()
	live := make([]metrics.Agent, len(agents))
	for i, a := range agents {
		live[i] = metrics.Agent{Name: a.name, Runtime: a.dynamic}
		live[i].States, live[i].Streams = a.eng.Stats()
	}
	resp := c.Response()
	resp.Header().Set("Content-Type", metrics.ContentType)
	resp.WriteHeader(http.StatusOK)
	return s.metrics.Write(resp, live, s.journal)
}
