package card

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/a2amock/a2amock/behaviors/core"

	"github.com/a2amock/a2amock/cardsig"
	"github.com/a2amock/a2amock/wire"
)

var cardSignatureSpec = core.Spec{
	Name: "card-signature",
	Doc: `Reproduces Agent Card signatures (v1.0 §8.4: a JWS over the JCS form of
the card without signatures and with proto3 default-valued members dropped)
that a verifying client must reject, or must accept. The card is signed
with the agent's key (derived from the run's seed, public half in the JWKS
at /.well-known/jwks.json, the jku) as Config.SignCards does, then mode=:
valid (nothing wrong: signing for this agent only), tampered (a field
changed after signing), wrong-canonical-form (an explicit default-valued
member, signed with the defaults kept), unknown-kid (a kid the JWKS does
not list), alg-none (alg "none", empty signature), hs256 (HS256 keyed
with the public key's bytes: algorithm confusion), expired-key (signed by
a key the JWKS marks expired, "exp" in the past; RFC 7517 has no expiry,
this follows OpenID Federation's JWKS), first-bad (two signatures, the
first by a rotated-out key no longer in the JWKS, the second valid: a
verifier must try each), jku-http (jku with http:, though under plain-HTTP
tests the honest jku is http: too), jku-unreachable (jku on a closed
loopback port), extended-unsigned (the public card signed, the
authenticated extended card unsigned, or with signer=other signed by
another key). Card fetches (and the extended card) of the v1.0 and v0.3
dialects, both bindings. Tests that a client that verifies cards refuses
each fault with a clear error, accepts valid and first-bad, and never
trusts the extended card less carefully than the public one. Evidence:
a2a-js#605, #606 and #705, a2a-go#368.`,
	New: func() core.Behavior { return &CardSignature{Mode: "tampered", Signer: "none"} },
}

var cardSignatureModes = []string{"valid", "tampered", "wrong-canonical-form", "unknown-kid", "alg-none", "hs256",
	"expired-key", "first-bad", "jku-http", "jku-unreachable", "extended-unsigned"}

// CardSignature signs the agent's cards, wrongly in the chosen way.
type CardSignature struct {
	Mode   string `param:"mode" doc:"valid, tampered, wrong-canonical-form, unknown-kid, alg-none, hs256, expired-key, first-bad, jku-http, jku-unreachable or extended-unsigned"`
	Signer string `param:"signer" doc:"extended-unsigned: none (no signature) or other (another key's)"`
}

// Validate implements Validator.
func (b *CardSignature) Validate() error {
	if !slices.Contains(cardSignatureModes, b.Mode) {
		return fmt.Errorf("mode must be one of %v, not %q", cardSignatureModes, b.Mode)
	}
	if b.Signer != "none" && b.Signer != "other" {
		return fmt.Errorf("signer must be none or other, not %q", b.Signer)
	}
	return nil
}

// Apply implements Behavior.
func (b *CardSignature) Apply(x *core.Exchange) {
	switch {
	case x.Op == core.OpCard:
		x.OnSignedCard(func(card []byte) []byte {
			if x.Signing == nil || b.Mode == "extended-unsigned" {
				return card
			}
			out, err := b.fault(card, x.Signing)
			if err != nil {
				return card
			}
			return out
		})
	case x.Op == wire.OpExtendedCard && b.Mode == "extended-unsigned":
		x.OnResult(func(res *wire.Result, e *wire.Error) (*wire.Result, *wire.Error) {
			if res == nil || res.Card == nil || x.Signing == nil {
				return res, e
			}
			card := stripSignatures(res.Card)
			if b.Signer == "other" {
				if signed, err := cardsig.SignCard(card, otherKey(x.Signing), x.Signing.JKU); err == nil {
					card = signed
				}
			}
			out := *res
			out.Card = card
			return &out, e
		})
	}
}

// otherKey is a key that is not the agent's and not in its JWKS.
func otherKey(s *core.CardSigning) cardsig.Key { return cardsig.DeriveKey(0, s.Key.ID+"/other") }

// fault turns an honestly signed card into the configured fault.
func (b *CardSignature) fault(signed []byte, s *core.CardSigning) ([]byte, error) {
	card := stripSignatures(signed)
	resign := func(payload []byte, k cardsig.Key, h cardsig.Header) ([]byte, error) {
		sig, err := cardsig.Sign(payload, k, h)
		if err != nil {
			return nil, err
		}
		return cardsig.Attach(card, sig)
	}
	canonical := func() []byte { p, _ := cardsig.Canonical(card, false); return p }
	switch b.Mode {
	case "valid":
		return signed, nil
	case "tampered":
		var m map[string]any
		if err := json.Unmarshal(signed, &m); err != nil {
			return nil, err
		}
		m["description"] = fmt.Sprint(m["description"]) + " (changed after signing)"
		return json.Marshal(m)
	case "wrong-canonical-form":
		card = withExplicitDefault(card)
		payload, err := cardsig.Canonical(card, true)
		if err != nil {
			return nil, err
		}
		return resign(payload, s.Key, cardsig.Header{JKU: s.JKU})
	case "unknown-kid":
		return resign(canonical(), s.Key, cardsig.Header{KID: s.Key.ID + "-unknown", JKU: s.JKU})
	case "alg-none":
		return cardsig.Attach(card, cardsig.Signature{Protected: b64JSON(map[string]any{"alg": "none", "typ": "JOSE", "kid": s.Key.ID, "jku": s.JKU})})
	case "hs256":
		protected := b64JSON(map[string]any{"alg": "HS256", "typ": "JOSE", "kid": s.Key.ID, "jku": s.JKU})
		mac := hmac.New(sha256.New, s.Key.Private.Public().(ed25519.PublicKey))
		mac.Write([]byte(protected + "." + base64.RawURLEncoding.EncodeToString(canonical())))
		return cardsig.Attach(card, cardsig.Signature{Protected: protected, Signature: base64.RawURLEncoding.EncodeToString(mac.Sum(nil))})
	case "expired-key":
		return resign(canonical(), s.Expired, cardsig.Header{JKU: s.JKU})
	case "first-bad":
		rotated := cardsig.DeriveKey(0, s.Key.ID+"/rotated")
		bad, err := cardsig.Sign(canonical(), rotated, cardsig.Header{JKU: s.JKU})
		if err != nil {
			return nil, err
		}
		good, err := cardsig.Sign(canonical(), s.Key, cardsig.Header{JKU: s.JKU})
		if err != nil {
			return nil, err
		}
		return cardsig.Attach(card, bad, good)
	case "jku-http":
		jku := s.JKU
		if rest, ok := cutScheme(jku); ok {
			jku = "http://" + rest
		}
		return resign(canonical(), s.Key, cardsig.Header{JKU: jku})
	case "jku-unreachable":
		return resign(canonical(), s.Key, cardsig.Header{JKU: "http://127.0.0.1:9/.well-known/jwks.json"})
	}
	return signed, nil
}

func cutScheme(u string) (string, bool) {
	for _, p := range []string{"https://", "http://"} {
		if len(u) > len(p) && u[:len(p)] == p {
			return u[len(p):], true
		}
	}
	return u, false
}

func b64JSON(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// stripSignatures returns card without its signatures member.
func stripSignatures(card []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(card, &m) != nil {
		return card
	}
	delete(m, "signatures")
	out, err := json.Marshal(m)
	if err != nil {
		return card
	}
	return out
}

// withExplicitDefault adds a default-valued member the card does not have,
// one that every canonical form drops (proto3 JSON omits it, and it has no
// explicit presence), so the canonical form and the defaults-kept form
// differ: an empty documentationUrl or iconUrl, else an empty list on the
// first skill or the card.
func withExplicitDefault(card []byte) []byte {
	var m map[string]any
	if json.Unmarshal(card, &m) != nil {
		return card
	}
	out := func() []byte {
		b, err := json.Marshal(m)
		if err != nil {
			return card
		}
		return b
	}
	for _, k := range []string{"documentationUrl", "iconUrl"} {
		if _, ok := m[k]; !ok {
			m[k] = ""
			return out()
		}
	}
	if skills, _ := m["skills"].([]any); len(skills) > 0 {
		if s0, ok := skills[0].(map[string]any); ok {
			for _, k := range []string{"examples", "inputModes", "outputModes", "securityRequirements"} {
				if _, ok := s0[k]; !ok {
					s0[k] = []any{}
					return out()
				}
			}
		}
	}
	for _, k := range []string{"securityRequirements", "defaultInputModes"} {
		if _, ok := m[k]; !ok {
			m[k] = []any{}
			return out()
		}
	}
	return card
}
