package cardserve

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/go-jose/go-jose/v4"

	"github.com/a2amock/a2amock/behaviors"
	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/server/internal/httpbind"
	"github.com/a2amock/a2amock/wire"
)

// JWKSPath is where an agent serves the public keys its card signatures
// name (their jku).
const JWKSPath = "/.well-known/jwks.json"

// expiredKeyExp is the "exp" the JWKS gives the expired key: long past.
const expiredKeyExp = 946684800 // 2000-01-01T00:00:00Z

// Signer signs an agent's cards with keys derived from the server's seed
// and the agent's name (once, on first use), and serves their JWKS.
type Signer struct {
	Seed uint64
	Name string
	// Always signs every card, not only when a behavior asks to.
	Always bool

	once         sync.Once
	key, expired cardsig.Key
}

// keys returns the signing keys, derived once.
func (s *Signer) keys() (key, expired cardsig.Key) {
	s.once.Do(func() {
		s.key = cardsig.DeriveKey(s.Seed, s.Name)
		s.expired = cardsig.DeriveKey(s.Seed, s.Name+"/expired")
	})
	return s.key, s.expired
}

// Signing is the agent's signing material as seen from origin and base.
func (s *Signer) Signing(origin, base string) *behaviors.CardSigning {
	k, exp := s.keys()
	return &behaviors.CardSigning{Key: k, Expired: exp, JKU: origin + base + JWKSPath}
}

// Sign signs a rendered card when every card is signed or a behavior asks
// to (its signed-card hooks in x), then applies those hooks.
func (s *Signer) Sign(b []byte, x *behaviors.Exchange, sg *behaviors.CardSigning) ([]byte, error) {
	hooks := x.Hooks().SignedCard
	if !s.Always && len(hooks) == 0 {
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

// JWKS renders the agent's JWKS: its signing key and the expired one.
func (s *Signer) JWKS() ([]byte, error) {
	k, exp := s.keys()
	return cardsig.JWKS([]jose.JSONWebKey{k.Public(), exp.Public()}, map[string]map[string]any{exp.ID: {"exp": expiredKeyExp}})
}

// ServeJWKS answers a request for the JWKS of s (GET or HEAD), calling
// record once the method is accepted, so that the fetch is journaled.
func ServeJWKS(w http.ResponseWriter, r *http.Request, s *Signer, record func()) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInvalidRequest, "the JWKS answers GET only").WithHTTPStatus(http.StatusMethodNotAllowed))
	}
	record()
	jwks, err := s.JWKS()
	if err != nil {
		return httpbind.WriteStatusError(w, wire.Errorf(wire.CodeInternal, "render JWKS: %v", err))
	}
	h := w.Header()
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Type", "application/jwk-set+json")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return nil
	}
	h.Set("Content-Length", strconv.Itoa(len(jwks)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(jwks)
	return err
}
