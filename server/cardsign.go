package server

import (
	"net/http"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/server/internal/wirecap"
	"github.com/a2amock/a2amock/wire"
)

// jwksPath is where an agent serves the public keys its card signatures
// name (their jku).
const jwksPath = "/.well-known/jwks.json"

// expiredKeyExp is the "exp" the JWKS gives the expired key: long past.
const expiredKeyExp = 946684800 // 2000-01-01T00:00:00Z

// signingKeys returns the agent's card-signing keys, derived once.
func (a *agent) signingKeys() (key, expired cardsig.Key) {
	a.sigOnce.Do(func() {
		a.sigKey = cardsig.DeriveKey(a.srv.cfg.Seed, a.name)
		a.sigExpired = cardsig.DeriveKey(a.srv.cfg.Seed, a.name+"/expired")
	})
	return a.sigKey, a.sigExpired
}

// signing is the agent's signing material as seen from origin and base.
func (a *agent) signing(origin, base string) *behaviors.CardSigning {
	k, exp := a.signingKeys()
	return &behaviors.CardSigning{Key: k, Expired: exp, JKU: origin + base + jwksPath}
}

// signCard signs a rendered card when the server signs cards or a behavior
// asks to, then applies the behaviors' changes to the signed card.
func (a *agent) signCard(b []byte, x *behaviors.Exchange, sg *behaviors.CardSigning) ([]byte, error) {
	hooks := x.Hooks().SignedCard
	if !a.srv.cfg.SignCards && len(hooks) == 0 {
		return b, nil
	}
	signed, err := cardsig.SignCard(b, sg.Key, sg.JKU)
	if err != nil {
		return nil, err
	}
	for _, f := range hooks {
		signed = f(signed)
	}
	return signed, nil
}

// serveJWKS answers the agent's JWKS: its signing key and the expired one.
func (s *Server) serveJWKS(w http.ResponseWriter, r *http.Request, a *agent) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the JWKS answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	wirecap.Tag(r, 0, s.record(Entry{Agent: a.name, Kind: EntryJWKS, Path: journalPath(r.URL.Path)}))
	k, exp := a.signingKeys()
	b, err := cardsig.JWKS([]jose.JSONWebKey{k.Public(), exp.Public()}, map[string]map[string]any{exp.ID: {"exp": expiredKeyExp}})
	if err != nil {
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInternal, "render JWKS: %v", err))
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	if r.Method == http.MethodHead {
		h.Set("Content-Type", "application/jwk-set+json")
		w.WriteHeader(http.StatusOK)
		return nil
	}
	return httpbind.WriteJSON(w, http.StatusOK, "application/jwk-set+json", b)
}
