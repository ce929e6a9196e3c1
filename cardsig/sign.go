// Package cardsig signs Agent Cards as A2A v1.0 §8.4 describes: a JWS (RFC
// 7515, flattened JSON serialisation with a detached payload) over the JCS
// (RFC 8785) form of the card without its signatures member and with
// proto3 default-valued members dropped. Keys are Ed25519 (JWS alg EdDSA,
// deterministic signatures) derived from the run's seed, so a run's cards
// and signatures are a function of its seed; their public halves are served
// as a JWKS at a jku URL.
package cardsig

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-jose/go-jose/v4"
)

// Key is a card-signing key.
type Key struct {
	// ID is the key's kid.
	ID      string
	Private ed25519.PrivateKey
}

// DeriveKey derives the signing key of name (an agent, or a variant such as
// "agent/rotated") from seed.
func DeriveKey(seed uint64, name string) Key {
	h := sha256.New()
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h.Write([]byte("a2amock card-signing key\x00"))
	h.Write(b[:])
	h.Write([]byte(name))
	priv := ed25519.NewKeyFromSeed(h.Sum(nil))
	sum := sha256.Sum256(priv.Public().(ed25519.PublicKey))
	return Key{ID: name + "-" + hex.EncodeToString(sum[:4]), Private: priv}
}

// Public returns the key's public half as a JWK.
func (k Key) Public() jose.JSONWebKey {
	return jose.JSONWebKey{Key: k.Private.Public(), KeyID: k.ID, Algorithm: string(jose.EdDSA), Use: "sig"}
}

// JWKS renders public keys as a JSON Web Key Set. extra adds members to the
// key of the same index (e.g. "exp"), for keys a fault marks.
func JWKS(keys []jose.JSONWebKey, extra map[string]map[string]any) ([]byte, error) {
	out := make([]json.RawMessage, 0, len(keys))
	for _, k := range keys {
		b, err := k.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if add := extra[k.KeyID]; len(add) > 0 {
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, err
			}
			for name, v := range add {
				m[name] = v
			}
			if b, err = json.Marshal(m); err != nil {
				return nil, err
			}
		}
		out = append(out, b)
	}
	return json.Marshal(map[string]any{"keys": out})
}

// Signature is one entry of a card's signatures member.
type Signature struct {
	Protected string         `json:"protected"`
	Signature string         `json:"signature"`
	Header    map[string]any `json:"header,omitempty"`
}

// Canonical returns the payload a card's signatures sign: the card JSON
// without "signatures", with members whose value is a proto3 default
// (false, 0, "", null, empty list or object) dropped at every depth, except
// the members the proto declares optional (capabilities' flags), which
// keep an explicit false; in JCS form. keepDefaults keeps those members: the form a signer that skips the
// proto3 step signs, which verifiers reject.
func Canonical(card []byte, keepDefaults bool) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(card, &m); err != nil || m == nil {
		return nil, fmt.Errorf("cardsig: card is not a JSON object: %v", err)
	}
	delete(m, "signatures")
	var v any = m
	if !keepDefaults {
		if v = dropDefaults(v, ""); v == nil {
			v = map[string]any{}
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return JCS(b)
}

// presence lists, by parent member, the members the v1.0 proto declares
// optional (explicit presence): proto3 JSON keeps them when set, even to
// their default, so a false there is signed. @a2a-js/sdk's canonical form
// keeps them too.
var presence = map[string][]string{"capabilities": {"streaming", "pushNotifications", "extendedAgentCard"}}

// dropDefaults removes default-valued members and list elements, keeping
// explicitly present optional fields; it returns nil for a value that is
// itself to be dropped. parent is the name of the member holding v.
func dropDefaults(v any, parent string) any {
	switch t := v.(type) {
	case nil:
		return nil
	case bool:
		if !t {
			return nil
		}
	case float64:
		if t == 0 {
			return nil
		}
	case string:
		if t == "" {
			return nil
		}
	case []any:
		out := make([]any, 0, len(t))
		for _, e := range t {
			if e = dropDefaults(e, ""); e != nil {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case map[string]any:
		for k, e := range t {
			if b, ok := e.(bool); ok && !b && slices.Contains(presence[parent], k) {
				continue
			}
			if e = dropDefaults(e, k); e == nil {
				delete(t, k)
			} else {
				t[k] = e
			}
		}
		if len(t) == 0 {
			return nil
		}
	}
	return v
}

// Header is what a signature's protected header says besides alg.
type Header struct {
	KID string
	JKU string
	// Extra members of the protected header (e.g. "exp").
	Extra map[string]any
}

// Sign signs payload with key (JWS, EdDSA, typ JOSE), detached.
func Sign(payload []byte, k Key, h Header) (Signature, error) {
	opts := (&jose.SignerOptions{}).WithType("JOSE")
	if h.JKU != "" {
		opts = opts.WithHeader("jku", h.JKU)
	}
	for name, v := range h.Extra {
		opts = opts.WithHeader(jose.HeaderKey(name), v)
	}
	kid := h.KID
	if kid == "" {
		kid = k.ID
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.EdDSA, Key: jose.JSONWebKey{Key: k.Private, KeyID: kid}}, opts)
	if err != nil {
		return Signature{}, err
	}
	obj, err := signer.Sign(payload)
	if err != nil {
		return Signature{}, err
	}
	compact, err := obj.CompactSerialize()
	if err != nil {
		return Signature{}, err
	}
	parts := strings.Split(compact, ".")
	return Signature{Protected: parts[0], Signature: parts[2]}, nil
}

// Attach returns card with sigs as its signatures member.
func Attach(card []byte, sigs ...Signature) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(card, &m); err != nil || m == nil {
		return nil, fmt.Errorf("cardsig: card is not a JSON object: %v", err)
	}
	b, err := json.Marshal(sigs)
	if err != nil {
		return nil, err
	}
	m["signatures"] = b
	return json.Marshal(m)
}

// SignCard signs card honestly with k, naming jku as where the key is.
func SignCard(card []byte, k Key, jku string) ([]byte, error) {
	payload, err := Canonical(card, false)
	if err != nil {
		return nil, err
	}
	sig, err := Sign(payload, k, Header{JKU: jku})
	if err != nil {
		return nil, err
	}
	return Attach(card, sig)
}

// ErrNoValidSignature is returned by Verify when no signature verifies.
var ErrNoValidSignature = errors.New("cardsig: no valid signature")

// Verify reports whether at least one of card's signatures verifies, over
// the canonical form, with the key of keys its kid names (EdDSA only, as
// this package signs). The errors of every signature are joined.
func Verify(card []byte, keys jose.JSONWebKeySet) error {
	var c struct {
		Signatures []Signature `json:"signatures"`
	}
	if err := json.Unmarshal(card, &c); err != nil {
		return err
	}
	if len(c.Signatures) == 0 {
		return fmt.Errorf("%w: the card has no signatures", ErrNoValidSignature)
	}
	payload, err := Canonical(card, false)
	if err != nil {
		return err
	}
	errs := []error{ErrNoValidSignature}
	for i, s := range c.Signatures {
		compact := s.Protected + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + s.Signature
		obj, err := jose.ParseSignedCompact(compact, []jose.SignatureAlgorithm{jose.EdDSA})
		if err != nil {
			errs = append(errs, fmt.Errorf("signature %d: %w", i, err))
			continue
		}
		kid := obj.Signatures[0].Protected.KeyID
		found := keys.Key(kid)
		if len(found) == 0 {
			errs = append(errs, fmt.Errorf("signature %d: no key %q", i, kid))
			continue
		}
		if _, err := obj.Verify(found[0].Key); err != nil {
			errs = append(errs, fmt.Errorf("signature %d: %w", i, err))
			continue
		}
		return nil
	}
	return errors.Join(errs...)
}
