package server

import (
	"net/http"

	"github.com/a2amock/a2amock/server/internal/cardserve"
	"github.com/a2amock/a2amock/server/internal/entries"
	"github.com/a2amock/a2amock/server/internal/wirecap"
)

// serveJWKS answers the agent's JWKS (cardserve.ServeJWKS), journaled as
// an EntryJWKS.
func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request, a *agent) error {
	return cardserve.ServeJWKS(w, r, &a.cards.Signer, func() {
		wirecap.Tag(w, 0, s.rec.Record(Entry{Agent: a.name, Kind: EntryJWKS, Path: entries.Path(r.URL.Path)}))
	})
}
