package server

import (
	"net/http"

	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/wire"
)

// serveJWKS answers the agent's JWKS: its signing key and the expired one.
func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request, a *agent) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the JWKS answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	wirecap.Tag(r, 0, s.record(Entry{Agent: a.name, Kind: EntryJWKS, Path: entries.Path(r.URL.Path)}))
	b, err := a.signer.JWKS()
	if err != nil {
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInternal, "render JWKS: %v", err))
	}
	cardserve.WriteJWKS(w, r, b)
	return nil
}
