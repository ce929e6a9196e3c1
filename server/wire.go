package server

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/a2amock/a2amock/server/internal/wirecap"
)

// The raw bytes of the last exchanges with the agents are kept by package
// wirecap and served at GET /_a2amock/journal/wire?request=N (an A2A
// request's number, as its journal entries carry it) or ?seq=S (a card or
// JWKS fetch's journal entry).
type (
	// WireExchange is the raw view of one HTTP exchange with an agent.
	WireExchange = wirecap.Exchange
	// WireBody is the start of a body: Text when it is UTF-8, else Base64;
	// Size counts every byte, Truncated says the rest was not kept.
	WireBody = wirecap.Body
)

// serveWire is GET /_a2amock/journal/wire: the raw bytes of one exchange.
func (s *Server) serveWire(c echo.Context) error {
	req, err := intParam(c, "request")
	if err != nil {
		return err
	}
	seq, err := intParam(c, "seq")
	if err != nil {
		return err
	}
	if (req > 0) == (seq > 0) {
		return fieldError(c, http.StatusBadRequest, "request", "give one of request (an A2A request's number) or seq (a card or JWKS fetch's journal entry), positive")
	}
	x, ok := s.wire.Get(req, seq)
	if !ok {
		return fieldError(c, http.StatusNotFound, "request", "no bytes kept for that exchange (only the last 512 are, and none from before a reset)")
	}
	return c.JSON(http.StatusOK, x)
}
